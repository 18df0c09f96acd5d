"""Tanks, fish and feeding at a public aquarium."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from pathlib import Path


class Tank:
    """A display tank."""

    def __init__(self, tank_id: str, litres: float = 500.0, temperature_c: float = 24.0, salt_water: bool = False) -> None:
        if litres < 0:
            raise ValueError("litres must not be negative")
        if temperature_c < 0:
            raise ValueError("temperature_c must not be negative")
        tank_id = tank_id.strip()
        self.tank_id = tank_id
        self.litres = litres
        self.temperature_c = temperature_c
        self.salt_water = salt_water

    def __repr__(self) -> str:
        return f"Tank(tank_id={self.tank_id!r}, litres={self.litres!r}, temperature_c={self.temperature_c!r})"

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Tank):
            return NotImplemented
        return self.tank_id == other.tank_id

    def to_dict(self) -> dict[str, object]:
        """The fields as a plain dictionary (for JSON)."""
        return {"tank_id": self.tank_id, "litres": self.litres, "temperature_c": self.temperature_c, "salt_water": self.salt_water}

    @classmethod
    def from_dict(cls, data: dict[str, object]) -> Tank:
        """The inverse of ``to_dict``; missing optional fields take their defaults."""
        kwargs = {}
        kwargs["tank_id"] = str(data["tank_id"])
        if "litres" in data:
            kwargs["litres"] = float(data["litres"])
        if "temperature_c" in data:
            kwargs["temperature_c"] = float(data["temperature_c"])
        if "salt_water" in data:
            kwargs["salt_water"] = bool(data["salt_water"])
        return cls(**kwargs)

    def in_range(self) -> bool:
        """Tropical tanks should stay between 22 and 28 degrees."""
        return 22.0 <= self.temperature_c <= 28.0


class Fish:
    """A group of one species in a tank."""

    def __init__(self, species: str, tank_id: str, count: int = 1, adult_cm: float = 5.0) -> None:
        if count < 0:
            raise ValueError("count must not be negative")
        if adult_cm < 0:
            raise ValueError("adult_cm must not be negative")
        species = species.strip()
        tank_id = tank_id.strip()
        self.species = species
        self.tank_id = tank_id
        self.count = count
        self.adult_cm = adult_cm

    def __repr__(self) -> str:
        return f"Fish(species={self.species!r}, tank_id={self.tank_id!r}, count={self.count!r})"

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Fish):
            return NotImplemented
        return self.species == other.species

    def to_dict(self) -> dict[str, object]:
        """The fields as a plain dictionary (for JSON)."""
        return {"species": self.species, "tank_id": self.tank_id, "count": self.count, "adult_cm": self.adult_cm}

    @classmethod
    def from_dict(cls, data: dict[str, object]) -> Fish:
        """The inverse of ``to_dict``; missing optional fields take their defaults."""
        kwargs = {}
        kwargs["species"] = str(data["species"])
        kwargs["tank_id"] = str(data["tank_id"])
        if "count" in data:
            kwargs["count"] = int(data["count"])
        if "adult_cm" in data:
            kwargs["adult_cm"] = float(data["adult_cm"])
        return cls(**kwargs)

    def stocking_cm(self) -> float:
        """Total adult length, for the stocking rule of thumb."""
        return self.count * self.adult_cm


class Feeding:
    """One scheduled feeding."""

    def __init__(self, tank_id: str, hour: int = 9, food: str = 'flakes', grams: float = 2.0) -> None:
        if hour < 0:
            raise ValueError("hour must not be negative")
        if grams < 0:
            raise ValueError("grams must not be negative")
        tank_id = tank_id.strip()
        food = food.strip()
        self.tank_id = tank_id
        self.hour = hour
        self.food = food
        self.grams = grams

    def __repr__(self) -> str:
        return f"Feeding(tank_id={self.tank_id!r}, hour={self.hour!r}, food={self.food!r})"

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Feeding):
            return NotImplemented
        return self.tank_id == other.tank_id

    def to_dict(self) -> dict[str, object]:
        """The fields as a plain dictionary (for JSON)."""
        return {"tank_id": self.tank_id, "hour": self.hour, "food": self.food, "grams": self.grams}

    @classmethod
    def from_dict(cls, data: dict[str, object]) -> Feeding:
        """The inverse of ``to_dict``; missing optional fields take their defaults."""
        kwargs = {}
        kwargs["tank_id"] = str(data["tank_id"])
        if "hour" in data:
            kwargs["hour"] = int(data["hour"])
        if "food" in data:
            kwargs["food"] = str(data["food"])
        if "grams" in data:
            kwargs["grams"] = float(data["grams"])
        return cls(**kwargs)

    def is_morning(self) -> bool:
        """Feedings before noon."""
        return self.hour < 12


class TankRegistry:
    """All Tank records, kept by tank_id."""

    def __init__(self) -> None:
        self._items: dict[str, Tank] = {}

    def __len__(self) -> int:
        return len(self._items)

    def __iter__(self) -> Iterator[Tank]:
        return iter(self._items.values())

    def add(self, item: Tank) -> None:
        """Add a record; a duplicate tank_id is an error."""
        if item.tank_id in self._items:
            raise KeyError(f"duplicate tank_id: {item.tank_id}")
        self._items[item.tank_id] = item

    def remove(self, tank_id: str) -> Tank:
        return self._items.pop(tank_id)

    def find(self, tank_id: str) -> Tank | None:
        return self._items.get(tank_id)

    def filter(self, predicate: Callable[[Tank], bool]) -> list[Tank]:
        """Records for which ``predicate`` is true, in insertion order."""
        return [item for item in self._items.values() if predicate(item)]

    def total(self, field: str = 'litres') -> float:
        """Sum of one numeric field over every record."""
        return float(sum(getattr(item, field) for item in self._items.values()))

    def save(self, path: Path) -> None:
        """Write every record as JSON, atomically (write, then rename)."""
        tmp = path.with_suffix(path.suffix + ".tmp")
        tmp.write_text(json.dumps([item.to_dict() for item in self], indent=2))
        tmp.replace(path)

    @classmethod
    def load(cls, path: Path) -> TankRegistry:
        registry = cls()
        for data in json.loads(path.read_text()):
            registry.add(Tank.from_dict(data))
        return registry

    def summary(self) -> str:
        """A short human-readable report."""
        flagged = sum(1 for item in self._items.values() if item.in_range())
        return f"{len(self)} tank record(s), {flagged} with in range"
