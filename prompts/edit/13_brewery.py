"""Tanks, batches and kegs of a craft brewery."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from pathlib import Path


class Fermenter:
    """A fermentation tank."""

    def __init__(self, tank_id: str, capacity_l: float = 1000.0, volume_l: float = 0.0, temperature_c: float = 18.0) -> None:
        if capacity_l < 0:
            raise ValueError("capacity_l must not be negative")
        if volume_l < 0:
            raise ValueError("volume_l must not be negative")
        if temperature_c < 0:
            raise ValueError("temperature_c must not be negative")
        tank_id = tank_id.strip()
        self.tank_id = tank_id
        self.capacity_l = capacity_l
        self.volume_l = volume_l
        self.temperature_c = temperature_c

    def __repr__(self) -> str:
        return f"Fermenter(tank_id={self.tank_id!r}, capacity_l={self.capacity_l!r}, volume_l={self.volume_l!r})"

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Fermenter):
            return NotImplemented
        return self.tank_id == other.tank_id

    def to_dict(self) -> dict[str, object]:
        """The fields as a plain dictionary (for JSON)."""
        return {"tank_id": self.tank_id, "capacity_l": self.capacity_l, "volume_l": self.volume_l, "temperature_c": self.temperature_c}

    @classmethod
    def from_dict(cls, data: dict[str, object]) -> Fermenter:
        """The inverse of ``to_dict``; missing optional fields take their defaults."""
        kwargs = {}
        kwargs["tank_id"] = str(data["tank_id"])
        if "capacity_l" in data:
            kwargs["capacity_l"] = float(data["capacity_l"])
        if "volume_l" in data:
            kwargs["volume_l"] = float(data["volume_l"])
        if "temperature_c" in data:
            kwargs["temperature_c"] = float(data["temperature_c"])
        return cls(**kwargs)

    def fill_level(self) -> float:
        """Share of the tank in use."""
        return self.volume_l / self.capacity_l if self.capacity_l else 0.0


class Brew:
    """A batch of beer."""

    def __init__(self, brew_id: str, style: str, original_gravity: float = 1.050, final_gravity: float = 1.010) -> None:
        if original_gravity < 0:
            raise ValueError("original_gravity must not be negative")
        if final_gravity < 0:
            raise ValueError("final_gravity must not be negative")
        brew_id = brew_id.strip()
        style = style.strip()
        self.brew_id = brew_id
        self.style = style
        self.original_gravity = original_gravity
        self.final_gravity = final_gravity

    def __repr__(self) -> str:
        return f"Brew(brew_id={self.brew_id!r}, style={self.style!r}, original_gravity={self.original_gravity!r})"

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Brew):
            return NotImplemented
        return self.brew_id == other.brew_id

    def to_dict(self) -> dict[str, object]:
        """The fields as a plain dictionary (for JSON)."""
        return {"brew_id": self.brew_id, "style": self.style, "original_gravity": self.original_gravity, "final_gravity": self.final_gravity}

    @classmethod
    def from_dict(cls, data: dict[str, object]) -> Brew:
        """The inverse of ``to_dict``; missing optional fields take their defaults."""
        kwargs = {}
        kwargs["brew_id"] = str(data["brew_id"])
        kwargs["style"] = str(data["style"])
        if "original_gravity" in data:
            kwargs["original_gravity"] = float(data["original_gravity"])
        if "final_gravity" in data:
            kwargs["final_gravity"] = float(data["final_gravity"])
        return cls(**kwargs)

    def abv(self) -> float:
        """Alcohol by volume from the two gravity readings."""
        return (self.original_gravity - self.final_gravity) * 131.25


class Keg:
    """A filled keg."""

    def __init__(self, keg_id: str, brew_id: str, litres: float = 30.0, days_filled: int = 0) -> None:
        if litres < 0:
            raise ValueError("litres must not be negative")
        if days_filled < 0:
            raise ValueError("days_filled must not be negative")
        keg_id = keg_id.strip()
        brew_id = brew_id.strip()
        self.keg_id = keg_id
        self.brew_id = brew_id
        self.litres = litres
        self.days_filled = days_filled

    def __repr__(self) -> str:
        return f"Keg(keg_id={self.keg_id!r}, brew_id={self.brew_id!r}, litres={self.litres!r})"

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Keg):
            return NotImplemented
        return self.keg_id == other.keg_id

    def to_dict(self) -> dict[str, object]:
        """The fields as a plain dictionary (for JSON)."""
        return {"keg_id": self.keg_id, "brew_id": self.brew_id, "litres": self.litres, "days_filled": self.days_filled}

    @classmethod
    def from_dict(cls, data: dict[str, object]) -> Keg:
        """The inverse of ``to_dict``; missing optional fields take their defaults."""
        kwargs = {}
        kwargs["keg_id"] = str(data["keg_id"])
        kwargs["brew_id"] = str(data["brew_id"])
        if "litres" in data:
            kwargs["litres"] = float(data["litres"])
        if "days_filled" in data:
            kwargs["days_filled"] = int(data["days_filled"])
        return cls(**kwargs)

    def is_fresh(self) -> bool:
        """Kegs are best within sixty days."""
        return self.days_filled <= 60


class FermenterRegistry:
    """All Fermenter records, kept by tank_id."""

    def __init__(self) -> None:
        self._items: dict[str, Fermenter] = {}

    def __len__(self) -> int:
        return len(self._items)

    def __iter__(self) -> Iterator[Fermenter]:
        return iter(self._items.values())

    def add(self, item: Fermenter) -> None:
        """Add a record; a duplicate tank_id is an error."""
        if item.tank_id in self._items:
            raise KeyError(f"duplicate tank_id: {item.tank_id}")
        self._items[item.tank_id] = item

    def remove(self, tank_id: str) -> Fermenter:
        return self._items.pop(tank_id)

    def find(self, tank_id: str) -> Fermenter | None:
        return self._items.get(tank_id)

    def filter(self, predicate: Callable[[Fermenter], bool]) -> list[Fermenter]:
        """Records for which ``predicate`` is true, in insertion order."""
        return [item for item in self._items.values() if predicate(item)]

    def total(self, field: str = 'capacity_l') -> float:
        """Sum of one numeric field over every record."""
        return float(sum(getattr(item, field) for item in self._items.values()))

    def save(self, path: Path) -> None:
        """Write every record as JSON, atomically (write, then rename)."""
        tmp = path.with_suffix(path.suffix + ".tmp")
        tmp.write_text(json.dumps([item.to_dict() for item in self], indent=2))
        tmp.replace(path)

    @classmethod
    def load(cls, path: Path) -> FermenterRegistry:
        registry = cls()
        for data in json.loads(path.read_text()):
            registry.add(Fermenter.from_dict(data))
        return registry

    def summary(self) -> str:
        """A short human-readable report."""
        flagged = sum(1 for item in self._items.values() if item.fill_level())
        return f"{len(self)} fermenter record(s), {flagged} with fill level"
