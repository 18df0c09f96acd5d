"""Plots, plants and watering of an allotment garden."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from pathlib import Path


class Plot:
    """A rented plot."""

    def __init__(self, plot_id: str, tenant: str, area_m2: float = 50.0, rent_per_m2: float = 1.2) -> None:
        if area_m2 < 0:
            raise ValueError("area_m2 must not be negative")
        if rent_per_m2 < 0:
            raise ValueError("rent_per_m2 must not be negative")
        plot_id = plot_id.strip()
        tenant = tenant.strip()
        self.plot_id = plot_id
        self.tenant = tenant
        self.area_m2 = area_m2
        self.rent_per_m2 = rent_per_m2

    def __repr__(self) -> str:
        return f"Plot(plot_id={self.plot_id!r}, tenant={self.tenant!r}, area_m2={self.area_m2!r})"

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Plot):
            return NotImplemented
        return self.plot_id == other.plot_id

    def to_dict(self) -> dict[str, object]:
        """The fields as a plain dictionary (for JSON)."""
        return {"plot_id": self.plot_id, "tenant": self.tenant, "area_m2": self.area_m2, "rent_per_m2": self.rent_per_m2}

    @classmethod
    def from_dict(cls, data: dict[str, object]) -> Plot:
        """The inverse of ``to_dict``; missing optional fields take their defaults."""
        kwargs = {}
        kwargs["plot_id"] = str(data["plot_id"])
        kwargs["tenant"] = str(data["tenant"])
        if "area_m2" in data:
            kwargs["area_m2"] = float(data["area_m2"])
        if "rent_per_m2" in data:
            kwargs["rent_per_m2"] = float(data["rent_per_m2"])
        return cls(**kwargs)

    def yearly_rent(self) -> float:
        """Rent for one year."""
        return self.area_m2 * self.rent_per_m2


class Plant:
    """A crop growing on a plot."""

    def __init__(self, plant_id: str, variety: str, days_planted: int = 0, days_to_harvest: int = 90) -> None:
        if days_planted < 0:
            raise ValueError("days_planted must not be negative")
        if days_to_harvest < 0:
            raise ValueError("days_to_harvest must not be negative")
        plant_id = plant_id.strip()
        variety = variety.strip()
        self.plant_id = plant_id
        self.variety = variety
        self.days_planted = days_planted
        self.days_to_harvest = days_to_harvest

    def __repr__(self) -> str:
        return f"Plant(plant_id={self.plant_id!r}, variety={self.variety!r}, days_planted={self.days_planted!r})"

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Plant):
            return NotImplemented
        return self.plant_id == other.plant_id

    def to_dict(self) -> dict[str, object]:
        """The fields as a plain dictionary (for JSON)."""
        return {"plant_id": self.plant_id, "variety": self.variety, "days_planted": self.days_planted, "days_to_harvest": self.days_to_harvest}

    @classmethod
    def from_dict(cls, data: dict[str, object]) -> Plant:
        """The inverse of ``to_dict``; missing optional fields take their defaults."""
        kwargs = {}
        kwargs["plant_id"] = str(data["plant_id"])
        kwargs["variety"] = str(data["variety"])
        if "days_planted" in data:
            kwargs["days_planted"] = int(data["days_planted"])
        if "days_to_harvest" in data:
            kwargs["days_to_harvest"] = int(data["days_to_harvest"])
        return cls(**kwargs)

    def progress(self) -> float:
        """Fraction of the growing season done, at most 1."""
        return min(self.days_planted / self.days_to_harvest, 1.0) if self.days_to_harvest else 1.0


class WateringLog:
    """Water given on one day."""

    def __init__(self, plot_id: str, day: int, litres: float = 0.0, rain_mm: float = 0.0) -> None:
        if day < 0:
            raise ValueError("day must not be negative")
        if litres < 0:
            raise ValueError("litres must not be negative")
        if rain_mm < 0:
            raise ValueError("rain_mm must not be negative")
        plot_id = plot_id.strip()
        self.plot_id = plot_id
        self.day = day
        self.litres = litres
        self.rain_mm = rain_mm

    def __repr__(self) -> str:
        return f"WateringLog(plot_id={self.plot_id!r}, day={self.day!r}, litres={self.litres!r})"

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, WateringLog):
            return NotImplemented
        return self.plot_id == other.plot_id

    def to_dict(self) -> dict[str, object]:
        """The fields as a plain dictionary (for JSON)."""
        return {"plot_id": self.plot_id, "day": self.day, "litres": self.litres, "rain_mm": self.rain_mm}

    @classmethod
    def from_dict(cls, data: dict[str, object]) -> WateringLog:
        """The inverse of ``to_dict``; missing optional fields take their defaults."""
        kwargs = {}
        kwargs["plot_id"] = str(data["plot_id"])
        kwargs["day"] = int(data["day"])
        if "litres" in data:
            kwargs["litres"] = float(data["litres"])
        if "rain_mm" in data:
            kwargs["rain_mm"] = float(data["rain_mm"])
        return cls(**kwargs)

    def was_needed(self) -> bool:
        """Watering counts as needed when less than 5 mm of rain fell."""
        return self.rain_mm < 5.0


class PlotRegistry:
    """All Plot records, kept by plot_id."""

    def __init__(self) -> None:
        self._items: dict[str, Plot] = {}

    def __len__(self) -> int:
        return len(self._items)

    def __iter__(self) -> Iterator[Plot]:
        return iter(self._items.values())

    def add(self, item: Plot) -> None:
        """Add a record; a duplicate plot_id is an error."""
        if item.plot_id in self._items:
            raise KeyError(f"duplicate plot_id: {item.plot_id}")
        self._items[item.plot_id] = item

    def remove(self, plot_id: str) -> Plot:
        return self._items.pop(plot_id)

    def find(self, plot_id: str) -> Plot | None:
        return self._items.get(plot_id)

    def filter(self, predicate: Callable[[Plot], bool]) -> list[Plot]:
        """Records for which ``predicate`` is true, in insertion order."""
        return [item for item in self._items.values() if predicate(item)]

    def total(self, field: str = 'area_m2') -> float:
        """Sum of one numeric field over every record."""
        return float(sum(getattr(item, field) for item in self._items.values()))

    def save(self, path: Path) -> None:
        """Write every record as JSON, atomically (write, then rename)."""
        tmp = path.with_suffix(path.suffix + ".tmp")
        tmp.write_text(json.dumps([item.to_dict() for item in self], indent=2))
        tmp.replace(path)

    @classmethod
    def load(cls, path: Path) -> PlotRegistry:
        registry = cls()
        for data in json.loads(path.read_text()):
            registry.add(Plot.from_dict(data))
        return registry

    def summary(self) -> str:
        """A short human-readable report."""
        flagged = sum(1 for item in self._items.values() if item.yearly_rent())
        return f"{len(self)} plot record(s), {flagged} with yearly rent"
