"""Objects, loans and visitors of a local museum."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from pathlib import Path


class Artefact:
    """An object in the collection."""

    def __init__(self, accession: str, title: str, year: int = 1900, insured_value: float = 0.0) -> None:
        if year < 0:
            raise ValueError("year must not be negative")
        if insured_value < 0:
            raise ValueError("insured_value must not be negative")
        accession = accession.strip()
        title = title.strip()
        self.accession = accession
        self.title = title
        self.year = year
        self.insured_value = insured_value

    def __repr__(self) -> str:
        return f"Artefact(accession={self.accession!r}, title={self.title!r}, year={self.year!r})"

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Artefact):
            return NotImplemented
        return self.accession == other.accession

    def to_dict(self) -> dict[str, object]:
        """The fields as a plain dictionary (for JSON)."""
        return {"accession": self.accession, "title": self.title, "year": self.year, "insured_value": self.insured_value}

    @classmethod
    def from_dict(cls, data: dict[str, object]) -> Artefact:
        """The inverse of ``to_dict``; missing optional fields take their defaults."""
        kwargs = {}
        kwargs["accession"] = str(data["accession"])
        kwargs["title"] = str(data["title"])
        if "year" in data:
            kwargs["year"] = int(data["year"])
        if "insured_value" in data:
            kwargs["insured_value"] = float(data["insured_value"])
        return cls(**kwargs)

    def is_antique(self) -> bool:
        """Objects over a hundred years old (reference year 2025)."""
        return 2025 - self.year >= 100


class Exhibit:
    """A display case or room."""

    def __init__(self, exhibit_id: str, theme: str, objects: int = 0, lux: float = 150.0) -> None:
        if objects < 0:
            raise ValueError("objects must not be negative")
        if lux < 0:
            raise ValueError("lux must not be negative")
        exhibit_id = exhibit_id.strip()
        theme = theme.strip()
        self.exhibit_id = exhibit_id
        self.theme = theme
        self.objects = objects
        self.lux = lux

    def __repr__(self) -> str:
        return f"Exhibit(exhibit_id={self.exhibit_id!r}, theme={self.theme!r}, objects={self.objects!r})"

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Exhibit):
            return NotImplemented
        return self.exhibit_id == other.exhibit_id

    def to_dict(self) -> dict[str, object]:
        """The fields as a plain dictionary (for JSON)."""
        return {"exhibit_id": self.exhibit_id, "theme": self.theme, "objects": self.objects, "lux": self.lux}

    @classmethod
    def from_dict(cls, data: dict[str, object]) -> Exhibit:
        """The inverse of ``to_dict``; missing optional fields take their defaults."""
        kwargs = {}
        kwargs["exhibit_id"] = str(data["exhibit_id"])
        kwargs["theme"] = str(data["theme"])
        if "objects" in data:
            kwargs["objects"] = int(data["objects"])
        if "lux" in data:
            kwargs["lux"] = float(data["lux"])
        return cls(**kwargs)

    def light_safe(self) -> bool:
        """Sensitive displays stay at or below 200 lux."""
        return self.lux <= 200.0


class Visit:
    """A day's visitor count."""

    def __init__(self, day: int, adults: int = 0, children: int = 0, donations: float = 0.0) -> None:
        if day < 0:
            raise ValueError("day must not be negative")
        if adults < 0:
            raise ValueError("adults must not be negative")
        if children < 0:
            raise ValueError("children must not be negative")
        if donations < 0:
            raise ValueError("donations must not be negative")
        self.day = day
        self.adults = adults
        self.children = children
        self.donations = donations

    def __repr__(self) -> str:
        return f"Visit(day={self.day!r}, adults={self.adults!r}, children={self.children!r})"

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Visit):
            return NotImplemented
        return self.day == other.day

    def to_dict(self) -> dict[str, object]:
        """The fields as a plain dictionary (for JSON)."""
        return {"day": self.day, "adults": self.adults, "children": self.children, "donations": self.donations}

    @classmethod
    def from_dict(cls, data: dict[str, object]) -> Visit:
        """The inverse of ``to_dict``; missing optional fields take their defaults."""
        kwargs = {}
        kwargs["day"] = int(data["day"])
        if "adults" in data:
            kwargs["adults"] = int(data["adults"])
        if "children" in data:
            kwargs["children"] = int(data["children"])
        if "donations" in data:
            kwargs["donations"] = float(data["donations"])
        return cls(**kwargs)

    def donation_per_head(self) -> float:
        """Donations per visitor."""
        return self.donations / (self.adults + self.children) if self.adults + self.children else 0.0


class ArtefactRegistry:
    """All Artefact records, kept by accession."""

    def __init__(self) -> None:
        self._items: dict[str, Artefact] = {}

    def __len__(self) -> int:
        return len(self._items)

    def __iter__(self) -> Iterator[Artefact]:
        return iter(self._items.values())

    def add(self, item: Artefact) -> None:
        """Add a record; a duplicate accession is an error."""
        if item.accession in self._items:
            raise KeyError(f"duplicate accession: {item.accession}")
        self._items[item.accession] = item

    def remove(self, accession: str) -> Artefact:
        return self._items.pop(accession)

    def find(self, accession: str) -> Artefact | None:
        return self._items.get(accession)

    def filter(self, predicate: Callable[[Artefact], bool]) -> list[Artefact]:
        """Records for which ``predicate`` is true, in insertion order."""
        return [item for item in self._items.values() if predicate(item)]

    def total(self, field: str = 'year') -> float:
        """Sum of one numeric field over every record."""
        return float(sum(getattr(item, field) for item in self._items.values()))

    def save(self, path: Path) -> None:
        """Write every record as JSON, atomically (write, then rename)."""
        tmp = path.with_suffix(path.suffix + ".tmp")
        tmp.write_text(json.dumps([item.to_dict() for item in self], indent=2))
        tmp.replace(path)

    @classmethod
    def load(cls, path: Path) -> ArtefactRegistry:
        registry = cls()
        for data in json.loads(path.read_text()):
            registry.add(Artefact.from_dict(data))
        return registry

    def summary(self) -> str:
        """A short human-readable report."""
        flagged = sum(1 for item in self._items.values() if item.is_antique())
        return f"{len(self)} artefact record(s), {flagged} with is antique"
