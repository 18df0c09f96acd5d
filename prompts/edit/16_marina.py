"""Berths, boats and fees of a small marina."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from pathlib import Path


class Berth:
    """A mooring berth."""

    def __init__(self, berth_id: str, length_m: float = 10.0, occupied: bool = False, power: bool = True) -> None:
        if length_m < 0:
            raise ValueError("length_m must not be negative")
        berth_id = berth_id.strip()
        self.berth_id = berth_id
        self.length_m = length_m
        self.occupied = occupied
        self.power = power

    def __repr__(self) -> str:
        return f"Berth(berth_id={self.berth_id!r}, length_m={self.length_m!r}, occupied={self.occupied!r})"

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Berth):
            return NotImplemented
        return self.berth_id == other.berth_id

    def to_dict(self) -> dict[str, object]:
        """The fields as a plain dictionary (for JSON)."""
        return {"berth_id": self.berth_id, "length_m": self.length_m, "occupied": self.occupied, "power": self.power}

    @classmethod
    def from_dict(cls, data: dict[str, object]) -> Berth:
        """The inverse of ``to_dict``; missing optional fields take their defaults."""
        kwargs = {}
        kwargs["berth_id"] = str(data["berth_id"])
        if "length_m" in data:
            kwargs["length_m"] = float(data["length_m"])
        if "occupied" in data:
            kwargs["occupied"] = bool(data["occupied"])
        if "power" in data:
            kwargs["power"] = bool(data["power"])
        return cls(**kwargs)

    def fits(self) -> bool:
        """Berths fit boats up to their length (checked against 10 m here)."""
        return self.length_m >= 10.0


class Boat:
    """A moored boat."""

    def __init__(self, registration: str, name: str, length_m: float = 8.0, owner: str = '') -> None:
        if length_m < 0:
            raise ValueError("length_m must not be negative")
        registration = registration.strip()
        name = name.strip()
        owner = owner.strip()
        self.registration = registration
        self.name = name
        self.length_m = length_m
        self.owner = owner

    def __repr__(self) -> str:
        return f"Boat(registration={self.registration!r}, name={self.name!r}, length_m={self.length_m!r})"

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Boat):
            return NotImplemented
        return self.registration == other.registration

    def to_dict(self) -> dict[str, object]:
        """The fields as a plain dictionary (for JSON)."""
        return {"registration": self.registration, "name": self.name, "length_m": self.length_m, "owner": self.owner}

    @classmethod
    def from_dict(cls, data: dict[str, object]) -> Boat:
        """The inverse of ``to_dict``; missing optional fields take their defaults."""
        kwargs = {}
        kwargs["registration"] = str(data["registration"])
        kwargs["name"] = str(data["name"])
        if "length_m" in data:
            kwargs["length_m"] = float(data["length_m"])
        if "owner" in data:
            kwargs["owner"] = str(data["owner"])
        return cls(**kwargs)

    def size_class(self) -> str:
        """Small, medium or large by length."""
        return 'small' if self.length_m < 8 else 'medium' if self.length_m < 14 else 'large'


class Fee:
    """A mooring fee."""

    def __init__(self, registration: str, nights: int = 1, rate_per_m: float = 2.8, length_m: float = 8.0) -> None:
        if nights < 0:
            raise ValueError("nights must not be negative")
        if rate_per_m < 0:
            raise ValueError("rate_per_m must not be negative")
        if length_m < 0:
            raise ValueError("length_m must not be negative")
        registration = registration.strip()
        self.registration = registration
        self.nights = nights
        self.rate_per_m = rate_per_m
        self.length_m = length_m

    def __repr__(self) -> str:
        return f"Fee(registration={self.registration!r}, nights={self.nights!r}, rate_per_m={self.rate_per_m!r})"

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Fee):
            return NotImplemented
        return self.registration == other.registration

    def to_dict(self) -> dict[str, object]:
        """The fields as a plain dictionary (for JSON)."""
        return {"registration": self.registration, "nights": self.nights, "rate_per_m": self.rate_per_m, "length_m": self.length_m}

    @classmethod
    def from_dict(cls, data: dict[str, object]) -> Fee:
        """The inverse of ``to_dict``; missing optional fields take their defaults."""
        kwargs = {}
        kwargs["registration"] = str(data["registration"])
        if "nights" in data:
            kwargs["nights"] = int(data["nights"])
        if "rate_per_m" in data:
            kwargs["rate_per_m"] = float(data["rate_per_m"])
        if "length_m" in data:
            kwargs["length_m"] = float(data["length_m"])
        return cls(**kwargs)

    def total(self) -> float:
        """Nights times length times the rate per metre."""
        return self.nights * self.length_m * self.rate_per_m


class BerthRegistry:
    """All Berth records, kept by berth_id."""

    def __init__(self) -> None:
        self._items: dict[str, Berth] = {}

    def __len__(self) -> int:
        return len(self._items)

    def __iter__(self) -> Iterator[Berth]:
        return iter(self._items.values())

    def add(self, item: Berth) -> None:
        """Add a record; a duplicate berth_id is an error."""
        if item.berth_id in self._items:
            raise KeyError(f"duplicate berth_id: {item.berth_id}")
        self._items[item.berth_id] = item

    def remove(self, berth_id: str) -> Berth:
        return self._items.pop(berth_id)

    def find(self, berth_id: str) -> Berth | None:
        return self._items.get(berth_id)

    def filter(self, predicate: Callable[[Berth], bool]) -> list[Berth]:
        """Records for which ``predicate`` is true, in insertion order."""
        return [item for item in self._items.values() if predicate(item)]

    def total(self, field: str = 'length_m') -> float:
        """Sum of one numeric field over every record."""
        return float(sum(getattr(item, field) for item in self._items.values()))

    def save(self, path: Path) -> None:
        """Write every record as JSON, atomically (write, then rename)."""
        tmp = path.with_suffix(path.suffix + ".tmp")
        tmp.write_text(json.dumps([item.to_dict() for item in self], indent=2))
        tmp.replace(path)

    @classmethod
    def load(cls, path: Path) -> BerthRegistry:
        registry = cls()
        for data in json.loads(path.read_text()):
            registry.add(Berth.from_dict(data))
        return registry

    def summary(self) -> str:
        """A short human-readable report."""
        flagged = sum(1 for item in self._items.values() if item.fits())
        return f"{len(self)} berth record(s), {flagged} with fits"
