"""Pupils, courses and marks of a secondary school."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from pathlib import Path


class Pupil:
    """An enrolled pupil."""

    def __init__(self, pupil_id: str, name: str, year: int = 7, absences: int = 0) -> None:
        if year < 0:
            raise ValueError("year must not be negative")
        if absences < 0:
            raise ValueError("absences must not be negative")
        pupil_id = pupil_id.strip()
        name = name.strip()
        self.pupil_id = pupil_id
        self.name = name
        self.year = year
        self.absences = absences

    def __repr__(self) -> str:
        return f"Pupil(pupil_id={self.pupil_id!r}, name={self.name!r}, year={self.year!r})"

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Pupil):
            return NotImplemented
        return self.pupil_id == other.pupil_id

    def to_dict(self) -> dict[str, object]:
        """The fields as a plain dictionary (for JSON)."""
        return {"pupil_id": self.pupil_id, "name": self.name, "year": self.year, "absences": self.absences}

    @classmethod
    def from_dict(cls, data: dict[str, object]) -> Pupil:
        """The inverse of ``to_dict``; missing optional fields take their defaults."""
        kwargs = {}
        kwargs["pupil_id"] = str(data["pupil_id"])
        kwargs["name"] = str(data["name"])
        if "year" in data:
            kwargs["year"] = int(data["year"])
        if "absences" in data:
            kwargs["absences"] = int(data["absences"])
        return cls(**kwargs)

    def attendance_concern(self) -> bool:
        """More than ten absences in a term is a concern."""
        return self.absences > 10


class Course:
    """A taught course."""

    def __init__(self, course_id: str, title: str, capacity: int = 30, enrolled: int = 0) -> None:
        if capacity < 0:
            raise ValueError("capacity must not be negative")
        if enrolled < 0:
            raise ValueError("enrolled must not be negative")
        course_id = course_id.strip()
        title = title.strip()
        self.course_id = course_id
        self.title = title
        self.capacity = capacity
        self.enrolled = enrolled

    def __repr__(self) -> str:
        return f"Course(course_id={self.course_id!r}, title={self.title!r}, capacity={self.capacity!r})"

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Course):
            return NotImplemented
        return self.course_id == other.course_id

    def to_dict(self) -> dict[str, object]:
        """The fields as a plain dictionary (for JSON)."""
        return {"course_id": self.course_id, "title": self.title, "capacity": self.capacity, "enrolled": self.enrolled}

    @classmethod
    def from_dict(cls, data: dict[str, object]) -> Course:
        """The inverse of ``to_dict``; missing optional fields take their defaults."""
        kwargs = {}
        kwargs["course_id"] = str(data["course_id"])
        kwargs["title"] = str(data["title"])
        if "capacity" in data:
            kwargs["capacity"] = int(data["capacity"])
        if "enrolled" in data:
            kwargs["enrolled"] = int(data["enrolled"])
        return cls(**kwargs)

    def places_left(self) -> int:
        """Places still open."""
        return max(self.capacity - self.enrolled, 0)


class Mark:
    """One assessed piece of work."""

    def __init__(self, pupil_id: str, course_id: str, score: float = 0.0, out_of: float = 100.0) -> None:
        if score < 0:
            raise ValueError("score must not be negative")
        if out_of < 0:
            raise ValueError("out_of must not be negative")
        pupil_id = pupil_id.strip()
        course_id = course_id.strip()
        self.pupil_id = pupil_id
        self.course_id = course_id
        self.score = score
        self.out_of = out_of

    def __repr__(self) -> str:
        return f"Mark(pupil_id={self.pupil_id!r}, course_id={self.course_id!r}, score={self.score!r})"

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Mark):
            return NotImplemented
        return self.pupil_id == other.pupil_id

    def to_dict(self) -> dict[str, object]:
        """The fields as a plain dictionary (for JSON)."""
        return {"pupil_id": self.pupil_id, "course_id": self.course_id, "score": self.score, "out_of": self.out_of}

    @classmethod
    def from_dict(cls, data: dict[str, object]) -> Mark:
        """The inverse of ``to_dict``; missing optional fields take their defaults."""
        kwargs = {}
        kwargs["pupil_id"] = str(data["pupil_id"])
        kwargs["course_id"] = str(data["course_id"])
        if "score" in data:
            kwargs["score"] = float(data["score"])
        if "out_of" in data:
            kwargs["out_of"] = float(data["out_of"])
        return cls(**kwargs)

    def percentage(self) -> float:
        """The score as a percentage."""
        return 100.0 * self.score / self.out_of if self.out_of else 0.0


class PupilRegistry:
    """All Pupil records, kept by pupil_id."""

    def __init__(self) -> None:
        self._items: dict[str, Pupil] = {}

    def __len__(self) -> int:
        return len(self._items)

    def __iter__(self) -> Iterator[Pupil]:
        return iter(self._items.values())

    def add(self, item: Pupil) -> None:
        """Add a record; a duplicate pupil_id is an error."""
        if item.pupil_id in self._items:
            raise KeyError(f"duplicate pupil_id: {item.pupil_id}")
        self._items[item.pupil_id] = item

    def remove(self, pupil_id: str) -> Pupil:
        return self._items.pop(pupil_id)

    def find(self, pupil_id: str) -> Pupil | None:
        return self._items.get(pupil_id)

    def filter(self, predicate: Callable[[Pupil], bool]) -> list[Pupil]:
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
    def load(cls, path: Path) -> PupilRegistry:
        registry = cls()
        for data in json.loads(path.read_text()):
            registry.add(Pupil.from_dict(data))
        return registry

    def summary(self) -> str:
        """A short human-readable report."""
        flagged = sum(1 for item in self._items.values() if item.attendance_concern())
        return f"{len(self)} pupil record(s), {flagged} with attendance concern"
