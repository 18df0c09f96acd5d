"""Appointments and patients of a small veterinary clinic."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from pathlib import Path


class Patient:
    """An animal registered at the clinic."""

    def __init__(self, patient_id: str, name: str, species: str, weight_kg: float = 0.0, age_years: int = 0) -> None:
        if weight_kg < 0:
            raise ValueError("weight_kg must not be negative")
        if age_years < 0:
            raise ValueError("age_years must not be negative")
        patient_id = patient_id.strip()
        name = name.strip()
        species = species.strip()
        self.patient_id = patient_id
        self.name = name
        self.species = species
        self.weight_kg = weight_kg
        self.age_years = age_years

    def __repr__(self) -> str:
        return f"Patient(patient_id={self.patient_id!r}, name={self.name!r}, species={self.species!r})"

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Patient):
            return NotImplemented
        return self.patient_id == other.patient_id

    def to_dict(self) -> dict[str, object]:
        """The fields as a plain dictionary (for JSON)."""
        return {"patient_id": self.patient_id, "name": self.name, "species": self.species, "weight_kg": self.weight_kg, "age_years": self.age_years}

    @classmethod
    def from_dict(cls, data: dict[str, object]) -> Patient:
        """The inverse of ``to_dict``; missing optional fields take their defaults."""
        kwargs = {}
        kwargs["patient_id"] = str(data["patient_id"])
        kwargs["name"] = str(data["name"])
        kwargs["species"] = str(data["species"])
        if "weight_kg" in data:
            kwargs["weight_kg"] = float(data["weight_kg"])
        if "age_years" in data:
            kwargs["age_years"] = int(data["age_years"])
        return cls(**kwargs)

    def is_senior(self) -> bool:
        """Animals of ten years or more are seniors."""
        return self.age_years >= 10


class Appointment:
    """A booked visit."""

    def __init__(self, appointment_id: str, patient_id: str, minutes: int = 15, fee: float = 40.0) -> None:
        if minutes < 0:
            raise ValueError("minutes must not be negative")
        if fee < 0:
            raise ValueError("fee must not be negative")
        appointment_id = appointment_id.strip()
        patient_id = patient_id.strip()
        self.appointment_id = appointment_id
        self.patient_id = patient_id
        self.minutes = minutes
        self.fee = fee

    def __repr__(self) -> str:
        return f"Appointment(appointment_id={self.appointment_id!r}, patient_id={self.patient_id!r}, minutes={self.minutes!r})"

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Appointment):
            return NotImplemented
        return self.appointment_id == other.appointment_id

    def to_dict(self) -> dict[str, object]:
        """The fields as a plain dictionary (for JSON)."""
        return {"appointment_id": self.appointment_id, "patient_id": self.patient_id, "minutes": self.minutes, "fee": self.fee}

    @classmethod
    def from_dict(cls, data: dict[str, object]) -> Appointment:
        """The inverse of ``to_dict``; missing optional fields take their defaults."""
        kwargs = {}
        kwargs["appointment_id"] = str(data["appointment_id"])
        kwargs["patient_id"] = str(data["patient_id"])
        if "minutes" in data:
            kwargs["minutes"] = int(data["minutes"])
        if "fee" in data:
            kwargs["fee"] = float(data["fee"])
        return cls(**kwargs)

    def fee_per_minute(self) -> float:
        """Fee divided by the appointment length."""
        return self.fee / max(self.minutes, 1)


class Vaccine:
    """A vaccine on the shelf."""

    def __init__(self, code: str, name: str, doses: int = 0, days_to_expiry: int = 365) -> None:
        if doses < 0:
            raise ValueError("doses must not be negative")
        if days_to_expiry < 0:
            raise ValueError("days_to_expiry must not be negative")
        code = code.strip()
        name = name.strip()
        self.code = code
        self.name = name
        self.doses = doses
        self.days_to_expiry = days_to_expiry

    def __repr__(self) -> str:
        return f"Vaccine(code={self.code!r}, name={self.name!r}, doses={self.doses!r})"

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Vaccine):
            return NotImplemented
        return self.code == other.code

    def to_dict(self) -> dict[str, object]:
        """The fields as a plain dictionary (for JSON)."""
        return {"code": self.code, "name": self.name, "doses": self.doses, "days_to_expiry": self.days_to_expiry}

    @classmethod
    def from_dict(cls, data: dict[str, object]) -> Vaccine:
        """The inverse of ``to_dict``; missing optional fields take their defaults."""
        kwargs = {}
        kwargs["code"] = str(data["code"])
        kwargs["name"] = str(data["name"])
        if "doses" in data:
            kwargs["doses"] = int(data["doses"])
        if "days_to_expiry" in data:
            kwargs["days_to_expiry"] = int(data["days_to_expiry"])
        return cls(**kwargs)

    def expiring_soon(self) -> bool:
        """Expiring within thirty days."""
        return self.days_to_expiry <= 30


class PatientRegistry:
    """All Patient records, kept by patient_id."""

    def __init__(self) -> None:
        self._items: dict[str, Patient] = {}

    def __len__(self) -> int:
        return len(self._items)

    def __iter__(self) -> Iterator[Patient]:
        return iter(self._items.values())

    def add(self, item: Patient) -> None:
        """Add a record; a duplicate patient_id is an error."""
        if item.patient_id in self._items:
            raise KeyError(f"duplicate patient_id: {item.patient_id}")
        self._items[item.patient_id] = item

    def remove(self, patient_id: str) -> Patient:
        return self._items.pop(patient_id)

    def find(self, patient_id: str) -> Patient | None:
        return self._items.get(patient_id)

    def filter(self, predicate: Callable[[Patient], bool]) -> list[Patient]:
        """Records for which ``predicate`` is true, in insertion order."""
        return [item for item in self._items.values() if predicate(item)]

    def total(self, field: str = 'weight_kg') -> float:
        """Sum of one numeric field over every record."""
        return float(sum(getattr(item, field) for item in self._items.values()))

    def save(self, path: Path) -> None:
        """Write every record as JSON, atomically (write, then rename)."""
        tmp = path.with_suffix(path.suffix + ".tmp")
        tmp.write_text(json.dumps([item.to_dict() for item in self], indent=2))
        tmp.replace(path)

    @classmethod
    def load(cls, path: Path) -> PatientRegistry:
        registry = cls()
        for data in json.loads(path.read_text()):
            registry.add(Patient.from_dict(data))
        return registry

    def summary(self) -> str:
        """A short human-readable report."""
        flagged = sum(1 for item in self._items.values() if item.is_senior())
        return f"{len(self)} patient record(s), {flagged} with is senior"
