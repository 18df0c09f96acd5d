"""Screens, films and ticket sales of a two-screen cinema."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from pathlib import Path


class Film:
    """A film in the programme."""

    def __init__(self, film_id: str, title: str, minutes: int = 100, rating: str = 'PG') -> None:
        if minutes < 0:
            raise ValueError("minutes must not be negative")
        film_id = film_id.strip()
        title = title.strip()
        rating = rating.strip()
        self.film_id = film_id
        self.title = title
        self.minutes = minutes
        self.rating = rating

    def __repr__(self) -> str:
        return f"Film(film_id={self.film_id!r}, title={self.title!r}, minutes={self.minutes!r})"

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Film):
            return NotImplemented
        return self.film_id == other.film_id

    def to_dict(self) -> dict[str, object]:
        """The fields as a plain dictionary (for JSON)."""
        return {"film_id": self.film_id, "title": self.title, "minutes": self.minutes, "rating": self.rating}

    @classmethod
    def from_dict(cls, data: dict[str, object]) -> Film:
        """The inverse of ``to_dict``; missing optional fields take their defaults."""
        kwargs = {}
        kwargs["film_id"] = str(data["film_id"])
        kwargs["title"] = str(data["title"])
        if "minutes" in data:
            kwargs["minutes"] = int(data["minutes"])
        if "rating" in data:
            kwargs["rating"] = str(data["rating"])
        return cls(**kwargs)

    def is_long(self) -> bool:
        """Films over two and a half hours get an interval."""
        return self.minutes > 150


class Screening:
    """One showing of a film."""

    def __init__(self, screening_id: str, film_id: str, seats: int = 120, sold: int = 0) -> None:
        if seats < 0:
            raise ValueError("seats must not be negative")
        if sold < 0:
            raise ValueError("sold must not be negative")
        screening_id = screening_id.strip()
        film_id = film_id.strip()
        self.screening_id = screening_id
        self.film_id = film_id
        self.seats = seats
        self.sold = sold

    def __repr__(self) -> str:
        return f"Screening(screening_id={self.screening_id!r}, film_id={self.film_id!r}, seats={self.seats!r})"

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Screening):
            return NotImplemented
        return self.screening_id == other.screening_id

    def to_dict(self) -> dict[str, object]:
        """The fields as a plain dictionary (for JSON)."""
        return {"screening_id": self.screening_id, "film_id": self.film_id, "seats": self.seats, "sold": self.sold}

    @classmethod
    def from_dict(cls, data: dict[str, object]) -> Screening:
        """The inverse of ``to_dict``; missing optional fields take their defaults."""
        kwargs = {}
        kwargs["screening_id"] = str(data["screening_id"])
        kwargs["film_id"] = str(data["film_id"])
        if "seats" in data:
            kwargs["seats"] = int(data["seats"])
        if "sold" in data:
            kwargs["sold"] = int(data["sold"])
        return cls(**kwargs)

    def occupancy(self) -> float:
        """Share of seats sold."""
        return self.sold / self.seats if self.seats else 0.0


class Ticket:
    """A sold ticket."""

    def __init__(self, ticket_id: str, screening_id: str, price: float = 9.0, concession: bool = False) -> None:
        if price < 0:
            raise ValueError("price must not be negative")
        ticket_id = ticket_id.strip()
        screening_id = screening_id.strip()
        self.ticket_id = ticket_id
        self.screening_id = screening_id
        self.price = price
        self.concession = concession

    def __repr__(self) -> str:
        return f"Ticket(ticket_id={self.ticket_id!r}, screening_id={self.screening_id!r}, price={self.price!r})"

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Ticket):
            return NotImplemented
        return self.ticket_id == other.ticket_id

    def to_dict(self) -> dict[str, object]:
        """The fields as a plain dictionary (for JSON)."""
        return {"ticket_id": self.ticket_id, "screening_id": self.screening_id, "price": self.price, "concession": self.concession}

    @classmethod
    def from_dict(cls, data: dict[str, object]) -> Ticket:
        """The inverse of ``to_dict``; missing optional fields take their defaults."""
        kwargs = {}
        kwargs["ticket_id"] = str(data["ticket_id"])
        kwargs["screening_id"] = str(data["screening_id"])
        if "price" in data:
            kwargs["price"] = float(data["price"])
        if "concession" in data:
            kwargs["concession"] = bool(data["concession"])
        return cls(**kwargs)

    def net_price(self) -> float:
        """Concessions pay 70 percent."""
        return self.price * (0.7 if self.concession else 1.0)


class FilmRegistry:
    """All Film records, kept by film_id."""

    def __init__(self) -> None:
        self._items: dict[str, Film] = {}

    def __len__(self) -> int:
        return len(self._items)

    def __iter__(self) -> Iterator[Film]:
        return iter(self._items.values())

    def add(self, item: Film) -> None:
        """Add a record; a duplicate film_id is an error."""
        if item.film_id in self._items:
            raise KeyError(f"duplicate film_id: {item.film_id}")
        self._items[item.film_id] = item

    def remove(self, film_id: str) -> Film:
        return self._items.pop(film_id)

    def find(self, film_id: str) -> Film | None:
        return self._items.get(film_id)

    def filter(self, predicate: Callable[[Film], bool]) -> list[Film]:
        """Records for which ``predicate`` is true, in insertion order."""
        return [item for item in self._items.values() if predicate(item)]

    def total(self, field: str = 'minutes') -> float:
        """Sum of one numeric field over every record."""
        return float(sum(getattr(item, field) for item in self._items.values()))

    def save(self, path: Path) -> None:
        """Write every record as JSON, atomically (write, then rename)."""
        tmp = path.with_suffix(path.suffix + ".tmp")
        tmp.write_text(json.dumps([item.to_dict() for item in self], indent=2))
        tmp.replace(path)

    @classmethod
    def load(cls, path: Path) -> FilmRegistry:
        registry = cls()
        for data in json.loads(path.read_text()):
            registry.add(Film.from_dict(data))
        return registry

    def summary(self) -> str:
        """A short human-readable report."""
        flagged = sum(1 for item in self._items.values() if item.is_long())
        return f"{len(self)} film record(s), {flagged} with is long"
