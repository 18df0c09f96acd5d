"""Members, classes and equipment of a fitness club."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from pathlib import Path


class Athlete:
    """A club member."""

    def __init__(self, member_id: str, name: str, visits: int = 0, monthly_fee: float = 35.0) -> None:
        if visits < 0:
            raise ValueError("visits must not be negative")
        if monthly_fee < 0:
            raise ValueError("monthly_fee must not be negative")
        member_id = member_id.strip()
        name = name.strip()
        self.member_id = member_id
        self.name = name
        self.visits = visits
        self.monthly_fee = monthly_fee

    def __repr__(self) -> str:
        return f"Athlete(member_id={self.member_id!r}, name={self.name!r}, visits={self.visits!r})"

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Athlete):
            return NotImplemented
        return self.member_id == other.member_id

    def to_dict(self) -> dict[str, object]:
        """The fields as a plain dictionary (for JSON)."""
        return {"member_id": self.member_id, "name": self.name, "visits": self.visits, "monthly_fee": self.monthly_fee}

    @classmethod
    def from_dict(cls, data: dict[str, object]) -> Athlete:
        """The inverse of ``to_dict``; missing optional fields take their defaults."""
        kwargs = {}
        kwargs["member_id"] = str(data["member_id"])
        kwargs["name"] = str(data["name"])
        if "visits" in data:
            kwargs["visits"] = int(data["visits"])
        if "monthly_fee" in data:
            kwargs["monthly_fee"] = float(data["monthly_fee"])
        return cls(**kwargs)

    def cost_per_visit(self) -> float:
        """The monthly fee spread over this month's visits."""
        return self.monthly_fee / self.visits if self.visits else self.monthly_fee


class Session:
    """A group class."""

    def __init__(self, session_id: str, kind: str, spaces: int = 20, booked: int = 0) -> None:
        if spaces < 0:
            raise ValueError("spaces must not be negative")
        if booked < 0:
            raise ValueError("booked must not be negative")
        session_id = session_id.strip()
        kind = kind.strip()
        self.session_id = session_id
        self.kind = kind
        self.spaces = spaces
        self.booked = booked

    def __repr__(self) -> str:
        return f"Session(session_id={self.session_id!r}, kind={self.kind!r}, spaces={self.spaces!r})"

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Session):
            return NotImplemented
        return self.session_id == other.session_id

    def to_dict(self) -> dict[str, object]:
        """The fields as a plain dictionary (for JSON)."""
        return {"session_id": self.session_id, "kind": self.kind, "spaces": self.spaces, "booked": self.booked}

    @classmethod
    def from_dict(cls, data: dict[str, object]) -> Session:
        """The inverse of ``to_dict``; missing optional fields take their defaults."""
        kwargs = {}
        kwargs["session_id"] = str(data["session_id"])
        kwargs["kind"] = str(data["kind"])
        if "spaces" in data:
            kwargs["spaces"] = int(data["spaces"])
        if "booked" in data:
            kwargs["booked"] = int(data["booked"])
        return cls(**kwargs)

    def is_full(self) -> bool:
        """No spaces left."""
        return self.booked >= self.spaces


class Machine:
    """A piece of equipment."""

    def __init__(self, machine_id: str, kind: str, hours_used: float = 0.0, service_hours: float = 500.0) -> None:
        if hours_used < 0:
            raise ValueError("hours_used must not be negative")
        if service_hours < 0:
            raise ValueError("service_hours must not be negative")
        machine_id = machine_id.strip()
        kind = kind.strip()
        self.machine_id = machine_id
        self.kind = kind
        self.hours_used = hours_used
        self.service_hours = service_hours

    def __repr__(self) -> str:
        return f"Machine(machine_id={self.machine_id!r}, kind={self.kind!r}, hours_used={self.hours_used!r})"

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Machine):
            return NotImplemented
        return self.machine_id == other.machine_id

    def to_dict(self) -> dict[str, object]:
        """The fields as a plain dictionary (for JSON)."""
        return {"machine_id": self.machine_id, "kind": self.kind, "hours_used": self.hours_used, "service_hours": self.service_hours}

    @classmethod
    def from_dict(cls, data: dict[str, object]) -> Machine:
        """The inverse of ``to_dict``; missing optional fields take their defaults."""
        kwargs = {}
        kwargs["machine_id"] = str(data["machine_id"])
        kwargs["kind"] = str(data["kind"])
        if "hours_used" in data:
            kwargs["hours_used"] = float(data["hours_used"])
        if "service_hours" in data:
            kwargs["service_hours"] = float(data["service_hours"])
        return cls(**kwargs)

    def needs_service(self) -> bool:
        """Serviced every few hundred hours of use."""
        return self.hours_used >= self.service_hours


class AthleteRegistry:
    """All Athlete records, kept by member_id."""

    def __init__(self) -> None:
        self._items: dict[str, Athlete] = {}

    def __len__(self) -> int:
        return len(self._items)

    def __iter__(self) -> Iterator[Athlete]:
        return iter(self._items.values())

    def add(self, item: Athlete) -> None:
        """Add a record; a duplicate member_id is an error."""
        if item.member_id in self._items:
            raise KeyError(f"duplicate member_id: {item.member_id}")
        self._items[item.member_id] = item

    def remove(self, member_id: str) -> Athlete:
        return self._items.pop(member_id)

    def find(self, member_id: str) -> Athlete | None:
        return self._items.get(member_id)

    def filter(self, predicate: Callable[[Athlete], bool]) -> list[Athlete]:
        """Records for which ``predicate`` is true, in insertion order."""
        return [item for item in self._items.values() if predicate(item)]

    def total(self, field: str = 'visits') -> float:
        """Sum of one numeric field over every record."""
        return float(sum(getattr(item, field) for item in self._items.values()))

    def save(self, path: Path) -> None:
        """Write every record as JSON, atomically (write, then rename)."""
        tmp = path.with_suffix(path.suffix + ".tmp")
        tmp.write_text(json.dumps([item.to_dict() for item in self], indent=2))
        tmp.replace(path)

    @classmethod
    def load(cls, path: Path) -> AthleteRegistry:
        registry = cls()
        for data in json.loads(path.read_text()):
            registry.add(Athlete.from_dict(data))
        return registry

    def summary(self) -> str:
        """A short human-readable report."""
        flagged = sum(1 for item in self._items.values() if item.cost_per_visit())
        return f"{len(self)} athlete record(s), {flagged} with cost per visit"
