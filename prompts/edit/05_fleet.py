"""Vehicles, drivers and trips of a delivery fleet."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from pathlib import Path


class Vehicle:
    """A delivery van."""

    def __init__(self, plate: str, model: str, odometer_km: float = 0.0, service_interval_km: float = 15000.0, last_service_km: float = 0.0) -> None:
        if odometer_km < 0:
            raise ValueError("odometer_km must not be negative")
        if service_interval_km < 0:
            raise ValueError("service_interval_km must not be negative")
        if last_service_km < 0:
            raise ValueError("last_service_km must not be negative")
        plate = plate.strip()
        model = model.strip()
        self.plate = plate
        self.model = model
        self.odometer_km = odometer_km
        self.service_interval_km = service_interval_km
        self.last_service_km = last_service_km

    def __repr__(self) -> str:
        return f"Vehicle(plate={self.plate!r}, model={self.model!r}, odometer_km={self.odometer_km!r})"

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Vehicle):
            return NotImplemented
        return self.plate == other.plate

    def to_dict(self) -> dict[str, object]:
        """The fields as a plain dictionary (for JSON)."""
        return {"plate": self.plate, "model": self.model, "odometer_km": self.odometer_km, "service_interval_km": self.service_interval_km, "last_service_km": self.last_service_km}

    @classmethod
    def from_dict(cls, data: dict[str, object]) -> Vehicle:
        """The inverse of ``to_dict``; missing optional fields take their defaults."""
        kwargs = {}
        kwargs["plate"] = str(data["plate"])
        kwargs["model"] = str(data["model"])
        if "odometer_km" in data:
            kwargs["odometer_km"] = float(data["odometer_km"])
        if "service_interval_km" in data:
            kwargs["service_interval_km"] = float(data["service_interval_km"])
        if "last_service_km" in data:
            kwargs["last_service_km"] = float(data["last_service_km"])
        return cls(**kwargs)

    def service_due(self) -> bool:
        """True once the service interval has been driven."""
        return self.odometer_km - self.last_service_km >= self.service_interval_km


class Driver:
    """A licensed driver."""

    def __init__(self, driver_id: str, name: str, hours_this_week: float = 0.0, points: int = 0) -> None:
        if hours_this_week < 0:
            raise ValueError("hours_this_week must not be negative")
        if points < 0:
            raise ValueError("points must not be negative")
        driver_id = driver_id.strip()
        name = name.strip()
        self.driver_id = driver_id
        self.name = name
        self.hours_this_week = hours_this_week
        self.points = points

    def __repr__(self) -> str:
        return f"Driver(driver_id={self.driver_id!r}, name={self.name!r}, hours_this_week={self.hours_this_week!r})"

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Driver):
            return NotImplemented
        return self.driver_id == other.driver_id

    def to_dict(self) -> dict[str, object]:
        """The fields as a plain dictionary (for JSON)."""
        return {"driver_id": self.driver_id, "name": self.name, "hours_this_week": self.hours_this_week, "points": self.points}

    @classmethod
    def from_dict(cls, data: dict[str, object]) -> Driver:
        """The inverse of ``to_dict``; missing optional fields take their defaults."""
        kwargs = {}
        kwargs["driver_id"] = str(data["driver_id"])
        kwargs["name"] = str(data["name"])
        if "hours_this_week" in data:
            kwargs["hours_this_week"] = float(data["hours_this_week"])
        if "points" in data:
            kwargs["points"] = int(data["points"])
        return cls(**kwargs)

    def may_drive(self) -> bool:
        """At most 48 hours a week and fewer than 9 licence points."""
        return self.hours_this_week < 48.0 and self.points < 9


class Trip:
    """One delivery round."""

    def __init__(self, trip_id: str, plate: str, distance_km: float = 0.0, stops: int = 1, fuel_l: float = 0.0) -> None:
        if distance_km < 0:
            raise ValueError("distance_km must not be negative")
        if stops < 0:
            raise ValueError("stops must not be negative")
        if fuel_l < 0:
            raise ValueError("fuel_l must not be negative")
        trip_id = trip_id.strip()
        plate = plate.strip()
        self.trip_id = trip_id
        self.plate = plate
        self.distance_km = distance_km
        self.stops = stops
        self.fuel_l = fuel_l

    def __repr__(self) -> str:
        return f"Trip(trip_id={self.trip_id!r}, plate={self.plate!r}, distance_km={self.distance_km!r})"

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Trip):
            return NotImplemented
        return self.trip_id == other.trip_id

    def to_dict(self) -> dict[str, object]:
        """The fields as a plain dictionary (for JSON)."""
        return {"trip_id": self.trip_id, "plate": self.plate, "distance_km": self.distance_km, "stops": self.stops, "fuel_l": self.fuel_l}

    @classmethod
    def from_dict(cls, data: dict[str, object]) -> Trip:
        """The inverse of ``to_dict``; missing optional fields take their defaults."""
        kwargs = {}
        kwargs["trip_id"] = str(data["trip_id"])
        kwargs["plate"] = str(data["plate"])
        if "distance_km" in data:
            kwargs["distance_km"] = float(data["distance_km"])
        if "stops" in data:
            kwargs["stops"] = int(data["stops"])
        if "fuel_l" in data:
            kwargs["fuel_l"] = float(data["fuel_l"])
        return cls(**kwargs)

    def consumption(self) -> float:
        """Litres per 100 km."""
        return 100.0 * self.fuel_l / self.distance_km if self.distance_km else 0.0


class VehicleRegistry:
    """All Vehicle records, kept by plate."""

    def __init__(self) -> None:
        self._items: dict[str, Vehicle] = {}

    def __len__(self) -> int:
        return len(self._items)

    def __iter__(self) -> Iterator[Vehicle]:
        return iter(self._items.values())

    def add(self, item: Vehicle) -> None:
        """Add a record; a duplicate plate is an error."""
        if item.plate in self._items:
            raise KeyError(f"duplicate plate: {item.plate}")
        self._items[item.plate] = item

    def remove(self, plate: str) -> Vehicle:
        return self._items.pop(plate)

    def find(self, plate: str) -> Vehicle | None:
        return self._items.get(plate)

    def filter(self, predicate: Callable[[Vehicle], bool]) -> list[Vehicle]:
        """Records for which ``predicate`` is true, in insertion order."""
        return [item for item in self._items.values() if predicate(item)]

    def total(self, field: str = 'odometer_km') -> float:
        """Sum of one numeric field over every record."""
        return float(sum(getattr(item, field) for item in self._items.values()))

    def save(self, path: Path) -> None:
        """Write every record as JSON, atomically (write, then rename)."""
        tmp = path.with_suffix(path.suffix + ".tmp")
        tmp.write_text(json.dumps([item.to_dict() for item in self], indent=2))
        tmp.replace(path)

    @classmethod
    def load(cls, path: Path) -> VehicleRegistry:
        registry = cls()
        for data in json.loads(path.read_text()):
            registry.add(Vehicle.from_dict(data))
        return registry

    def summary(self) -> str:
        """A short human-readable report."""
        flagged = sum(1 for item in self._items.values() if item.service_due())
        return f"{len(self)} vehicle record(s), {flagged} with service due"
