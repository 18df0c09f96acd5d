"""Meters, tariffs and bills of a small energy cooperative."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from pathlib import Path


class Meter:
    """An electricity meter."""

    def __init__(self, meter_id: str, address: str, reading_kwh: float = 0.0, previous_kwh: float = 0.0) -> None:
        if reading_kwh < 0:
            raise ValueError("reading_kwh must not be negative")
        if previous_kwh < 0:
            raise ValueError("previous_kwh must not be negative")
        meter_id = meter_id.strip()
        address = address.strip()
        self.meter_id = meter_id
        self.address = address
        self.reading_kwh = reading_kwh
        self.previous_kwh = previous_kwh

    def __repr__(self) -> str:
        return f"Meter(meter_id={self.meter_id!r}, address={self.address!r}, reading_kwh={self.reading_kwh!r})"

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Meter):
            return NotImplemented
        return self.meter_id == other.meter_id

    def to_dict(self) -> dict[str, object]:
        """The fields as a plain dictionary (for JSON)."""
        return {"meter_id": self.meter_id, "address": self.address, "reading_kwh": self.reading_kwh, "previous_kwh": self.previous_kwh}

    @classmethod
    def from_dict(cls, data: dict[str, object]) -> Meter:
        """The inverse of ``to_dict``; missing optional fields take their defaults."""
        kwargs = {}
        kwargs["meter_id"] = str(data["meter_id"])
        kwargs["address"] = str(data["address"])
        if "reading_kwh" in data:
            kwargs["reading_kwh"] = float(data["reading_kwh"])
        if "previous_kwh" in data:
            kwargs["previous_kwh"] = float(data["previous_kwh"])
        return cls(**kwargs)

    def usage(self) -> float:
        """Energy used since the previous reading."""
        return max(self.reading_kwh - self.previous_kwh, 0.0)


class Tariff:
    """A price plan."""

    def __init__(self, tariff_id: str, name: str, price_kwh: float = 0.3, standing_daily: float = 0.5) -> None:
        if price_kwh < 0:
            raise ValueError("price_kwh must not be negative")
        if standing_daily < 0:
            raise ValueError("standing_daily must not be negative")
        tariff_id = tariff_id.strip()
        name = name.strip()
        self.tariff_id = tariff_id
        self.name = name
        self.price_kwh = price_kwh
        self.standing_daily = standing_daily

    def __repr__(self) -> str:
        return f"Tariff(tariff_id={self.tariff_id!r}, name={self.name!r}, price_kwh={self.price_kwh!r})"

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Tariff):
            return NotImplemented
        return self.tariff_id == other.tariff_id

    def to_dict(self) -> dict[str, object]:
        """The fields as a plain dictionary (for JSON)."""
        return {"tariff_id": self.tariff_id, "name": self.name, "price_kwh": self.price_kwh, "standing_daily": self.standing_daily}

    @classmethod
    def from_dict(cls, data: dict[str, object]) -> Tariff:
        """The inverse of ``to_dict``; missing optional fields take their defaults."""
        kwargs = {}
        kwargs["tariff_id"] = str(data["tariff_id"])
        kwargs["name"] = str(data["name"])
        if "price_kwh" in data:
            kwargs["price_kwh"] = float(data["price_kwh"])
        if "standing_daily" in data:
            kwargs["standing_daily"] = float(data["standing_daily"])
        return cls(**kwargs)

    def monthly_fixed(self) -> float:
        """The standing charge over thirty days."""
        return 30 * self.standing_daily


class Panel:
    """A solar panel on a member's roof."""

    def __init__(self, panel_id: str, meter_id: str, peak_kw: float = 0.4, efficiency: float = 0.2) -> None:
        if peak_kw < 0:
            raise ValueError("peak_kw must not be negative")
        if efficiency < 0:
            raise ValueError("efficiency must not be negative")
        panel_id = panel_id.strip()
        meter_id = meter_id.strip()
        self.panel_id = panel_id
        self.meter_id = meter_id
        self.peak_kw = peak_kw
        self.efficiency = efficiency

    def __repr__(self) -> str:
        return f"Panel(panel_id={self.panel_id!r}, meter_id={self.meter_id!r}, peak_kw={self.peak_kw!r})"

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Panel):
            return NotImplemented
        return self.panel_id == other.panel_id

    def to_dict(self) -> dict[str, object]:
        """The fields as a plain dictionary (for JSON)."""
        return {"panel_id": self.panel_id, "meter_id": self.meter_id, "peak_kw": self.peak_kw, "efficiency": self.efficiency}

    @classmethod
    def from_dict(cls, data: dict[str, object]) -> Panel:
        """The inverse of ``to_dict``; missing optional fields take their defaults."""
        kwargs = {}
        kwargs["panel_id"] = str(data["panel_id"])
        kwargs["meter_id"] = str(data["meter_id"])
        if "peak_kw" in data:
            kwargs["peak_kw"] = float(data["peak_kw"])
        if "efficiency" in data:
            kwargs["efficiency"] = float(data["efficiency"])
        return cls(**kwargs)

    def daily_estimate(self) -> float:
        """Rough daily yield in kWh with four peak-sun hours."""
        return self.peak_kw * 4.0 * (0.5 + self.efficiency)


class MeterRegistry:
    """All Meter records, kept by meter_id."""

    def __init__(self) -> None:
        self._items: dict[str, Meter] = {}

    def __len__(self) -> int:
        return len(self._items)

    def __iter__(self) -> Iterator[Meter]:
        return iter(self._items.values())

    def add(self, item: Meter) -> None:
        """Add a record; a duplicate meter_id is an error."""
        if item.meter_id in self._items:
            raise KeyError(f"duplicate meter_id: {item.meter_id}")
        self._items[item.meter_id] = item

    def remove(self, meter_id: str) -> Meter:
        return self._items.pop(meter_id)

    def find(self, meter_id: str) -> Meter | None:
        return self._items.get(meter_id)

    def filter(self, predicate: Callable[[Meter], bool]) -> list[Meter]:
        """Records for which ``predicate`` is true, in insertion order."""
        return [item for item in self._items.values() if predicate(item)]

    def total(self, field: str = 'reading_kwh') -> float:
        """Sum of one numeric field over every record."""
        return float(sum(getattr(item, field) for item in self._items.values()))

    def save(self, path: Path) -> None:
        """Write every record as JSON, atomically (write, then rename)."""
        tmp = path.with_suffix(path.suffix + ".tmp")
        tmp.write_text(json.dumps([item.to_dict() for item in self], indent=2))
        tmp.replace(path)

    @classmethod
    def load(cls, path: Path) -> MeterRegistry:
        registry = cls()
        for data in json.loads(path.read_text()):
            registry.add(Meter.from_dict(data))
        return registry

    def summary(self) -> str:
        """A short human-readable report."""
        flagged = sum(1 for item in self._items.values() if item.usage())
        return f"{len(self)} meter record(s), {flagged} with usage"
