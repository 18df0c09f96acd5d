"""Rooms, guests and bookings of a small hotel."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from pathlib import Path


class Room:
    """A guest room."""

    def __init__(self, number: str, beds: int = 2, rate: float = 90.0, sea_view: bool = False) -> None:
        if beds < 0:
            raise ValueError("beds must not be negative")
        if rate < 0:
            raise ValueError("rate must not be negative")
        number = number.strip()
        self.number = number
        self.beds = beds
        self.rate = rate
        self.sea_view = sea_view

    def __repr__(self) -> str:
        return f"Room(number={self.number!r}, beds={self.beds!r}, rate={self.rate!r})"

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Room):
            return NotImplemented
        return self.number == other.number

    def to_dict(self) -> dict[str, object]:
        """The fields as a plain dictionary (for JSON)."""
        return {"number": self.number, "beds": self.beds, "rate": self.rate, "sea_view": self.sea_view}

    @classmethod
    def from_dict(cls, data: dict[str, object]) -> Room:
        """The inverse of ``to_dict``; missing optional fields take their defaults."""
        kwargs = {}
        kwargs["number"] = str(data["number"])
        if "beds" in data:
            kwargs["beds"] = int(data["beds"])
        if "rate" in data:
            kwargs["rate"] = float(data["rate"])
        if "sea_view" in data:
            kwargs["sea_view"] = bool(data["sea_view"])
        return cls(**kwargs)

    def nightly_rate(self) -> float:
        """Sea-view rooms cost 20 percent more."""
        return self.rate * (1.2 if self.sea_view else 1.0)


class Guest:
    """A guest record."""

    def __init__(self, guest_id: str, name: str, stays: int = 0, country: str = 'GB') -> None:
        if stays < 0:
            raise ValueError("stays must not be negative")
        guest_id = guest_id.strip()
        name = name.strip()
        country = country.strip()
        self.guest_id = guest_id
        self.name = name
        self.stays = stays
        self.country = country

    def __repr__(self) -> str:
        return f"Guest(guest_id={self.guest_id!r}, name={self.name!r}, stays={self.stays!r})"

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Guest):
            return NotImplemented
        return self.guest_id == other.guest_id

    def to_dict(self) -> dict[str, object]:
        """The fields as a plain dictionary (for JSON)."""
        return {"guest_id": self.guest_id, "name": self.name, "stays": self.stays, "country": self.country}

    @classmethod
    def from_dict(cls, data: dict[str, object]) -> Guest:
        """The inverse of ``to_dict``; missing optional fields take their defaults."""
        kwargs = {}
        kwargs["guest_id"] = str(data["guest_id"])
        kwargs["name"] = str(data["name"])
        if "stays" in data:
            kwargs["stays"] = int(data["stays"])
        if "country" in data:
            kwargs["country"] = str(data["country"])
        return cls(**kwargs)

    def is_regular(self) -> bool:
        """Guests with five stays or more are regulars."""
        return self.stays >= 5


class Booking:
    """A reservation."""

    def __init__(self, booking_id: str, guest_id: str, room: str, nights: int = 1, deposit: float = 0.0) -> None:
        if nights < 0:
            raise ValueError("nights must not be negative")
        if deposit < 0:
            raise ValueError("deposit must not be negative")
        booking_id = booking_id.strip()
        guest_id = guest_id.strip()
        room = room.strip()
        self.booking_id = booking_id
        self.guest_id = guest_id
        self.room = room
        self.nights = nights
        self.deposit = deposit

    def __repr__(self) -> str:
        return f"Booking(booking_id={self.booking_id!r}, guest_id={self.guest_id!r}, room={self.room!r})"

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Booking):
            return NotImplemented
        return self.booking_id == other.booking_id

    def to_dict(self) -> dict[str, object]:
        """The fields as a plain dictionary (for JSON)."""
        return {"booking_id": self.booking_id, "guest_id": self.guest_id, "room": self.room, "nights": self.nights, "deposit": self.deposit}

    @classmethod
    def from_dict(cls, data: dict[str, object]) -> Booking:
        """The inverse of ``to_dict``; missing optional fields take their defaults."""
        kwargs = {}
        kwargs["booking_id"] = str(data["booking_id"])
        kwargs["guest_id"] = str(data["guest_id"])
        kwargs["room"] = str(data["room"])
        if "nights" in data:
            kwargs["nights"] = int(data["nights"])
        if "deposit" in data:
            kwargs["deposit"] = float(data["deposit"])
        return cls(**kwargs)

    def deposit_ok(self) -> bool:
        """A deposit of at least 20 per night is required."""
        return self.deposit >= 20.0 * self.nights


class RoomRegistry:
    """All Room records, kept by number."""

    def __init__(self) -> None:
        self._items: dict[str, Room] = {}

    def __len__(self) -> int:
        return len(self._items)

    def __iter__(self) -> Iterator[Room]:
        return iter(self._items.values())

    def add(self, item: Room) -> None:
        """Add a record; a duplicate number is an error."""
        if item.number in self._items:
            raise KeyError(f"duplicate number: {item.number}")
        self._items[item.number] = item

    def remove(self, number: str) -> Room:
        return self._items.pop(number)

    def find(self, number: str) -> Room | None:
        return self._items.get(number)

    def filter(self, predicate: Callable[[Room], bool]) -> list[Room]:
        """Records for which ``predicate`` is true, in insertion order."""
        return [item for item in self._items.values() if predicate(item)]

    def total(self, field: str = 'beds') -> float:
        """Sum of one numeric field over every record."""
        return float(sum(getattr(item, field) for item in self._items.values()))

    def save(self, path: Path) -> None:
        """Write every record as JSON, atomically (write, then rename)."""
        tmp = path.with_suffix(path.suffix + ".tmp")
        tmp.write_text(json.dumps([item.to_dict() for item in self], indent=2))
        tmp.replace(path)

    @classmethod
    def load(cls, path: Path) -> RoomRegistry:
        registry = cls()
        for data in json.loads(path.read_text()):
            registry.add(Room.from_dict(data))
        return registry

    def summary(self) -> str:
        """A short human-readable report."""
        flagged = sum(1 for item in self._items.values() if item.nightly_rate())
        return f"{len(self)} room record(s), {flagged} with nightly rate"
