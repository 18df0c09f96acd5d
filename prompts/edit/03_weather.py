"""Readings from a network of weather stations."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from pathlib import Path


class Station:
    """A weather station."""

    def __init__(self, station_id: str, name: str, altitude_m: float = 0.0, active: bool = True) -> None:
        if altitude_m < 0:
            raise ValueError("altitude_m must not be negative")
        station_id = station_id.strip()
        name = name.strip()
        self.station_id = station_id
        self.name = name
        self.altitude_m = altitude_m
        self.active = active

    def __repr__(self) -> str:
        return f"Station(station_id={self.station_id!r}, name={self.name!r}, altitude_m={self.altitude_m!r})"

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Station):
            return NotImplemented
        return self.station_id == other.station_id

    def to_dict(self) -> dict[str, object]:
        """The fields as a plain dictionary (for JSON)."""
        return {"station_id": self.station_id, "name": self.name, "altitude_m": self.altitude_m, "active": self.active}

    @classmethod
    def from_dict(cls, data: dict[str, object]) -> Station:
        """The inverse of ``to_dict``; missing optional fields take their defaults."""
        kwargs = {}
        kwargs["station_id"] = str(data["station_id"])
        kwargs["name"] = str(data["name"])
        if "altitude_m" in data:
            kwargs["altitude_m"] = float(data["altitude_m"])
        if "active" in data:
            kwargs["active"] = bool(data["active"])
        return cls(**kwargs)

    def is_mountain(self) -> bool:
        """Stations above 1,500 m count as mountain stations."""
        return self.altitude_m > 1500.0


class Reading:
    """One hourly observation."""

    def __init__(self, station_id: str, hour: int, temperature_c: float = 0.0, humidity_pct: float = 50.0, wind_ms: float = 0.0) -> None:
        if hour < 0:
            raise ValueError("hour must not be negative")
        if temperature_c < 0:
            raise ValueError("temperature_c must not be negative")
        if humidity_pct < 0:
            raise ValueError("humidity_pct must not be negative")
        if wind_ms < 0:
            raise ValueError("wind_ms must not be negative")
        station_id = station_id.strip()
        self.station_id = station_id
        self.hour = hour
        self.temperature_c = temperature_c
        self.humidity_pct = humidity_pct
        self.wind_ms = wind_ms

    def __repr__(self) -> str:
        return f"Reading(station_id={self.station_id!r}, hour={self.hour!r}, temperature_c={self.temperature_c!r})"

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Reading):
            return NotImplemented
        return self.station_id == other.station_id

    def to_dict(self) -> dict[str, object]:
        """The fields as a plain dictionary (for JSON)."""
        return {"station_id": self.station_id, "hour": self.hour, "temperature_c": self.temperature_c, "humidity_pct": self.humidity_pct, "wind_ms": self.wind_ms}

    @classmethod
    def from_dict(cls, data: dict[str, object]) -> Reading:
        """The inverse of ``to_dict``; missing optional fields take their defaults."""
        kwargs = {}
        kwargs["station_id"] = str(data["station_id"])
        kwargs["hour"] = int(data["hour"])
        if "temperature_c" in data:
            kwargs["temperature_c"] = float(data["temperature_c"])
        if "humidity_pct" in data:
            kwargs["humidity_pct"] = float(data["humidity_pct"])
        if "wind_ms" in data:
            kwargs["wind_ms"] = float(data["wind_ms"])
        return cls(**kwargs)

    def feels_like(self) -> float:
        """A simple wind-chill estimate in degrees Celsius."""
        return self.temperature_c - 0.7 * self.wind_ms


class Alert:
    """A weather warning."""

    def __init__(self, alert_id: str, kind: str, level: int = 1, hours: int = 6) -> None:
        if level < 0:
            raise ValueError("level must not be negative")
        if hours < 0:
            raise ValueError("hours must not be negative")
        alert_id = alert_id.strip()
        kind = kind.strip()
        self.alert_id = alert_id
        self.kind = kind
        self.level = level
        self.hours = hours

    def __repr__(self) -> str:
        return f"Alert(alert_id={self.alert_id!r}, kind={self.kind!r}, level={self.level!r})"

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Alert):
            return NotImplemented
        return self.alert_id == other.alert_id

    def to_dict(self) -> dict[str, object]:
        """The fields as a plain dictionary (for JSON)."""
        return {"alert_id": self.alert_id, "kind": self.kind, "level": self.level, "hours": self.hours}

    @classmethod
    def from_dict(cls, data: dict[str, object]) -> Alert:
        """The inverse of ``to_dict``; missing optional fields take their defaults."""
        kwargs = {}
        kwargs["alert_id"] = str(data["alert_id"])
        kwargs["kind"] = str(data["kind"])
        if "level" in data:
            kwargs["level"] = int(data["level"])
        if "hours" in data:
            kwargs["hours"] = int(data["hours"])
        return cls(**kwargs)

    def is_severe(self) -> bool:
        """Level 3 and above is severe."""
        return self.level >= 3


class StationRegistry:
    """All Station records, kept by station_id."""

    def __init__(self) -> None:
        self._items: dict[str, Station] = {}

    def __len__(self) -> int:
        return len(self._items)

    def __iter__(self) -> Iterator[Station]:
        return iter(self._items.values())

    def add(self, item: Station) -> None:
        """Add a record; a duplicate station_id is an error."""
        if item.station_id in self._items:
            raise KeyError(f"duplicate station_id: {item.station_id}")
        self._items[item.station_id] = item

    def remove(self, station_id: str) -> Station:
        return self._items.pop(station_id)

    def find(self, station_id: str) -> Station | None:
        return self._items.get(station_id)

    def filter(self, predicate: Callable[[Station], bool]) -> list[Station]:
        """Records for which ``predicate`` is true, in insertion order."""
        return [item for item in self._items.values() if predicate(item)]

    def total(self, field: str = 'altitude_m') -> float:
        """Sum of one numeric field over every record."""
        return float(sum(getattr(item, field) for item in self._items.values()))

    def save(self, path: Path) -> None:
        """Write every record as JSON, atomically (write, then rename)."""
        tmp = path.with_suffix(path.suffix + ".tmp")
        tmp.write_text(json.dumps([item.to_dict() for item in self], indent=2))
        tmp.replace(path)

    @classmethod
    def load(cls, path: Path) -> StationRegistry:
        registry = cls()
        for data in json.loads(path.read_text()):
            registry.add(Station.from_dict(data))
        return registry

    def summary(self) -> str:
        """A short human-readable report."""
        flagged = sum(1 for item in self._items.values() if item.is_mountain())
        return f"{len(self)} station record(s), {flagged} with is mountain"
