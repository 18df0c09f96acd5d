"""Lending records of a community library."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from pathlib import Path


class Book:
    """A book in the catalogue."""

    def __init__(self, isbn: str, title: str, author: str, copies: int = 1, on_loan: int = 0) -> None:
        if copies < 0:
            raise ValueError("copies must not be negative")
        if on_loan < 0:
            raise ValueError("on_loan must not be negative")
        isbn = isbn.strip()
        title = title.strip()
        author = author.strip()
        self.isbn = isbn
        self.title = title
        self.author = author
        self.copies = copies
        self.on_loan = on_loan

    def __repr__(self) -> str:
        return f"Book(isbn={self.isbn!r}, title={self.title!r}, author={self.author!r})"

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Book):
            return NotImplemented
        return self.isbn == other.isbn

    def to_dict(self) -> dict[str, object]:
        """The fields as a plain dictionary (for JSON)."""
        return {"isbn": self.isbn, "title": self.title, "author": self.author, "copies": self.copies, "on_loan": self.on_loan}

    @classmethod
    def from_dict(cls, data: dict[str, object]) -> Book:
        """The inverse of ``to_dict``; missing optional fields take their defaults."""
        kwargs = {}
        kwargs["isbn"] = str(data["isbn"])
        kwargs["title"] = str(data["title"])
        kwargs["author"] = str(data["author"])
        if "copies" in data:
            kwargs["copies"] = int(data["copies"])
        if "on_loan" in data:
            kwargs["on_loan"] = int(data["on_loan"])
        return cls(**kwargs)

    def available(self) -> int:
        """Copies that can be lent right now."""
        return max(self.copies - self.on_loan, 0)


class Member:
    """A registered member."""

    def __init__(self, member_id: str, name: str, books_out: int = 0, fines_due: float = 0.0) -> None:
        if books_out < 0:
            raise ValueError("books_out must not be negative")
        if fines_due < 0:
            raise ValueError("fines_due must not be negative")
        member_id = member_id.strip()
        name = name.strip()
        self.member_id = member_id
        self.name = name
        self.books_out = books_out
        self.fines_due = fines_due

    def __repr__(self) -> str:
        return f"Member(member_id={self.member_id!r}, name={self.name!r}, books_out={self.books_out!r})"

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Member):
            return NotImplemented
        return self.member_id == other.member_id

    def to_dict(self) -> dict[str, object]:
        """The fields as a plain dictionary (for JSON)."""
        return {"member_id": self.member_id, "name": self.name, "books_out": self.books_out, "fines_due": self.fines_due}

    @classmethod
    def from_dict(cls, data: dict[str, object]) -> Member:
        """The inverse of ``to_dict``; missing optional fields take their defaults."""
        kwargs = {}
        kwargs["member_id"] = str(data["member_id"])
        kwargs["name"] = str(data["name"])
        if "books_out" in data:
            kwargs["books_out"] = int(data["books_out"])
        if "fines_due" in data:
            kwargs["fines_due"] = float(data["fines_due"])
        return cls(**kwargs)

    def may_borrow(self) -> bool:
        """Members with fines over 5.00 or five books out may not borrow."""
        return self.fines_due <= 5.0 and self.books_out < 5


class Loan:
    """One book lent to one member."""

    def __init__(self, loan_id: str, isbn: str, member_id: str, days_out: int = 0) -> None:
        if days_out < 0:
            raise ValueError("days_out must not be negative")
        loan_id = loan_id.strip()
        isbn = isbn.strip()
        member_id = member_id.strip()
        self.loan_id = loan_id
        self.isbn = isbn
        self.member_id = member_id
        self.days_out = days_out

    def __repr__(self) -> str:
        return f"Loan(loan_id={self.loan_id!r}, isbn={self.isbn!r}, member_id={self.member_id!r})"

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Loan):
            return NotImplemented
        return self.loan_id == other.loan_id

    def to_dict(self) -> dict[str, object]:
        """The fields as a plain dictionary (for JSON)."""
        return {"loan_id": self.loan_id, "isbn": self.isbn, "member_id": self.member_id, "days_out": self.days_out}

    @classmethod
    def from_dict(cls, data: dict[str, object]) -> Loan:
        """The inverse of ``to_dict``; missing optional fields take their defaults."""
        kwargs = {}
        kwargs["loan_id"] = str(data["loan_id"])
        kwargs["isbn"] = str(data["isbn"])
        kwargs["member_id"] = str(data["member_id"])
        if "days_out" in data:
            kwargs["days_out"] = int(data["days_out"])
        return cls(**kwargs)

    def late_fee(self) -> float:
        """0.25 per day beyond the 21-day loan period."""
        return max(self.days_out - 21, 0) * 0.25


class BookRegistry:
    """All Book records, kept by isbn."""

    def __init__(self) -> None:
        self._items: dict[str, Book] = {}

    def __len__(self) -> int:
        return len(self._items)

    def __iter__(self) -> Iterator[Book]:
        return iter(self._items.values())

    def add(self, item: Book) -> None:
        """Add a record; a duplicate isbn is an error."""
        if item.isbn in self._items:
            raise KeyError(f"duplicate isbn: {item.isbn}")
        self._items[item.isbn] = item

    def remove(self, isbn: str) -> Book:
        return self._items.pop(isbn)

    def find(self, isbn: str) -> Book | None:
        return self._items.get(isbn)

    def filter(self, predicate: Callable[[Book], bool]) -> list[Book]:
        """Records for which ``predicate`` is true, in insertion order."""
        return [item for item in self._items.values() if predicate(item)]

    def total(self, field: str = 'copies') -> float:
        """Sum of one numeric field over every record."""
        return float(sum(getattr(item, field) for item in self._items.values()))

    def save(self, path: Path) -> None:
        """Write every record as JSON, atomically (write, then rename)."""
        tmp = path.with_suffix(path.suffix + ".tmp")
        tmp.write_text(json.dumps([item.to_dict() for item in self], indent=2))
        tmp.replace(path)

    @classmethod
    def load(cls, path: Path) -> BookRegistry:
        registry = cls()
        for data in json.loads(path.read_text()):
            registry.add(Book.from_dict(data))
        return registry

    def summary(self) -> str:
        """A short human-readable report."""
        flagged = sum(1 for item in self._items.values() if item.available())
        return f"{len(self)} book record(s), {flagged} with available"
