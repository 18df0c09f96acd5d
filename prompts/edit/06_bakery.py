"""Recipes, batches and orders of a neighbourhood bakery."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from pathlib import Path


class Recipe:
    """A recipe and its yield."""

    def __init__(self, recipe_id: str, name: str, flour_g: float = 500.0, water_g: float = 350.0, yield_units: int = 1) -> None:
        if flour_g < 0:
            raise ValueError("flour_g must not be negative")
        if water_g < 0:
            raise ValueError("water_g must not be negative")
        if yield_units < 0:
            raise ValueError("yield_units must not be negative")
        recipe_id = recipe_id.strip()
        name = name.strip()
        self.recipe_id = recipe_id
        self.name = name
        self.flour_g = flour_g
        self.water_g = water_g
        self.yield_units = yield_units

    def __repr__(self) -> str:
        return f"Recipe(recipe_id={self.recipe_id!r}, name={self.name!r}, flour_g={self.flour_g!r})"

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Recipe):
            return NotImplemented
        return self.recipe_id == other.recipe_id

    def to_dict(self) -> dict[str, object]:
        """The fields as a plain dictionary (for JSON)."""
        return {"recipe_id": self.recipe_id, "name": self.name, "flour_g": self.flour_g, "water_g": self.water_g, "yield_units": self.yield_units}

    @classmethod
    def from_dict(cls, data: dict[str, object]) -> Recipe:
        """The inverse of ``to_dict``; missing optional fields take their defaults."""
        kwargs = {}
        kwargs["recipe_id"] = str(data["recipe_id"])
        kwargs["name"] = str(data["name"])
        if "flour_g" in data:
            kwargs["flour_g"] = float(data["flour_g"])
        if "water_g" in data:
            kwargs["water_g"] = float(data["water_g"])
        if "yield_units" in data:
            kwargs["yield_units"] = int(data["yield_units"])
        return cls(**kwargs)

    def hydration(self) -> float:
        """Water as a fraction of flour, the baker's percentage."""
        return self.water_g / self.flour_g if self.flour_g else 0.0


class Batch:
    """A batch in the oven."""

    def __init__(self, batch_id: str, recipe_id: str, units: int = 0, minutes_left: int = 0) -> None:
        if units < 0:
            raise ValueError("units must not be negative")
        if minutes_left < 0:
            raise ValueError("minutes_left must not be negative")
        batch_id = batch_id.strip()
        recipe_id = recipe_id.strip()
        self.batch_id = batch_id
        self.recipe_id = recipe_id
        self.units = units
        self.minutes_left = minutes_left

    def __repr__(self) -> str:
        return f"Batch(batch_id={self.batch_id!r}, recipe_id={self.recipe_id!r}, units={self.units!r})"

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Batch):
            return NotImplemented
        return self.batch_id == other.batch_id

    def to_dict(self) -> dict[str, object]:
        """The fields as a plain dictionary (for JSON)."""
        return {"batch_id": self.batch_id, "recipe_id": self.recipe_id, "units": self.units, "minutes_left": self.minutes_left}

    @classmethod
    def from_dict(cls, data: dict[str, object]) -> Batch:
        """The inverse of ``to_dict``; missing optional fields take their defaults."""
        kwargs = {}
        kwargs["batch_id"] = str(data["batch_id"])
        kwargs["recipe_id"] = str(data["recipe_id"])
        if "units" in data:
            kwargs["units"] = int(data["units"])
        if "minutes_left" in data:
            kwargs["minutes_left"] = int(data["minutes_left"])
        return cls(**kwargs)

    def is_ready(self) -> bool:
        """Ready when no baking time is left."""
        return self.minutes_left <= 0


class Order:
    """A customer order."""

    def __init__(self, order_id: str, customer: str, units: int = 1, unit_price: float = 2.5, paid: bool = False) -> None:
        if units < 0:
            raise ValueError("units must not be negative")
        if unit_price < 0:
            raise ValueError("unit_price must not be negative")
        order_id = order_id.strip()
        customer = customer.strip()
        self.order_id = order_id
        self.customer = customer
        self.units = units
        self.unit_price = unit_price
        self.paid = paid

    def __repr__(self) -> str:
        return f"Order(order_id={self.order_id!r}, customer={self.customer!r}, units={self.units!r})"

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Order):
            return NotImplemented
        return self.order_id == other.order_id

    def to_dict(self) -> dict[str, object]:
        """The fields as a plain dictionary (for JSON)."""
        return {"order_id": self.order_id, "customer": self.customer, "units": self.units, "unit_price": self.unit_price, "paid": self.paid}

    @classmethod
    def from_dict(cls, data: dict[str, object]) -> Order:
        """The inverse of ``to_dict``; missing optional fields take their defaults."""
        kwargs = {}
        kwargs["order_id"] = str(data["order_id"])
        kwargs["customer"] = str(data["customer"])
        if "units" in data:
            kwargs["units"] = int(data["units"])
        if "unit_price" in data:
            kwargs["unit_price"] = float(data["unit_price"])
        if "paid" in data:
            kwargs["paid"] = bool(data["paid"])
        return cls(**kwargs)

    def amount_due(self) -> float:
        """What the customer still owes."""
        return 0.0 if self.paid else self.units * self.unit_price


class RecipeRegistry:
    """All Recipe records, kept by recipe_id."""

    def __init__(self) -> None:
        self._items: dict[str, Recipe] = {}

    def __len__(self) -> int:
        return len(self._items)

    def __iter__(self) -> Iterator[Recipe]:
        return iter(self._items.values())

    def add(self, item: Recipe) -> None:
        """Add a record; a duplicate recipe_id is an error."""
        if item.recipe_id in self._items:
            raise KeyError(f"duplicate recipe_id: {item.recipe_id}")
        self._items[item.recipe_id] = item

    def remove(self, recipe_id: str) -> Recipe:
        return self._items.pop(recipe_id)

    def find(self, recipe_id: str) -> Recipe | None:
        return self._items.get(recipe_id)

    def filter(self, predicate: Callable[[Recipe], bool]) -> list[Recipe]:
        """Records for which ``predicate`` is true, in insertion order."""
        return [item for item in self._items.values() if predicate(item)]

    def total(self, field: str = 'flour_g') -> float:
        """Sum of one numeric field over every record."""
        return float(sum(getattr(item, field) for item in self._items.values()))

    def save(self, path: Path) -> None:
        """Write every record as JSON, atomically (write, then rename)."""
        tmp = path.with_suffix(path.suffix + ".tmp")
        tmp.write_text(json.dumps([item.to_dict() for item in self], indent=2))
        tmp.replace(path)

    @classmethod
    def load(cls, path: Path) -> RecipeRegistry:
        registry = cls()
        for data in json.loads(path.read_text()):
            registry.add(Recipe.from_dict(data))
        return registry

    def summary(self) -> str:
        """A short human-readable report."""
        flagged = sum(1 for item in self._items.values() if item.hydration())
        return f"{len(self)} recipe record(s), {flagged} with hydration"
