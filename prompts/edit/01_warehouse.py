"""Stock keeping for a small warehouse: items, shelves and outgoing shipments."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from pathlib import Path


class Item:
    """A stocked article."""

    def __init__(self, sku: str, name: str, quantity: int = 0, unit_price: float = 0.0, reorder_level: int = 5) -> None:
        if quantity < 0:
            raise ValueError("quantity must not be negative")
        if unit_price < 0:
            raise ValueError("unit_price must not be negative")
        if reorder_level < 0:
            raise ValueError("reorder_level must not be negative")
        sku = sku.strip()
        name = name.strip()
        self.sku = sku
        self.name = name
        self.quantity = quantity
        self.unit_price = unit_price
        self.reorder_level = reorder_level

    def __repr__(self) -> str:
        return f"Item(sku={self.sku!r}, name={self.name!r}, quantity={self.quantity!r})"

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Item):
            return NotImplemented
        return self.sku == other.sku

    def to_dict(self) -> dict[str, object]:
        """The fields as a plain dictionary (for JSON)."""
        return {"sku": self.sku, "name": self.name, "quantity": self.quantity, "unit_price": self.unit_price, "reorder_level": self.reorder_level}

    @classmethod
    def from_dict(cls, data: dict[str, object]) -> Item:
        """The inverse of ``to_dict``; missing optional fields take their defaults."""
        kwargs = {}
        kwargs["sku"] = str(data["sku"])
        kwargs["name"] = str(data["name"])
        if "quantity" in data:
            kwargs["quantity"] = int(data["quantity"])
        if "unit_price" in data:
            kwargs["unit_price"] = float(data["unit_price"])
        if "reorder_level" in data:
            kwargs["reorder_level"] = int(data["reorder_level"])
        return cls(**kwargs)

    def needs_reorder(self) -> bool:
        """True when stock is at or below the reorder level."""
        return self.quantity <= self.reorder_level


class Shelf:
    """A storage shelf with a weight limit."""

    def __init__(self, code: str, aisle: int, max_load_kg: float = 250.0, load_kg: float = 0.0) -> None:
        if aisle < 0:
            raise ValueError("aisle must not be negative")
        if max_load_kg < 0:
            raise ValueError("max_load_kg must not be negative")
        if load_kg < 0:
            raise ValueError("load_kg must not be negative")
        code = code.strip()
        self.code = code
        self.aisle = aisle
        self.max_load_kg = max_load_kg
        self.load_kg = load_kg

    def __repr__(self) -> str:
        return f"Shelf(code={self.code!r}, aisle={self.aisle!r}, max_load_kg={self.max_load_kg!r})"

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Shelf):
            return NotImplemented
        return self.code == other.code

    def to_dict(self) -> dict[str, object]:
        """The fields as a plain dictionary (for JSON)."""
        return {"code": self.code, "aisle": self.aisle, "max_load_kg": self.max_load_kg, "load_kg": self.load_kg}

    @classmethod
    def from_dict(cls, data: dict[str, object]) -> Shelf:
        """The inverse of ``to_dict``; missing optional fields take their defaults."""
        kwargs = {}
        kwargs["code"] = str(data["code"])
        kwargs["aisle"] = int(data["aisle"])
        if "max_load_kg" in data:
            kwargs["max_load_kg"] = float(data["max_load_kg"])
        if "load_kg" in data:
            kwargs["load_kg"] = float(data["load_kg"])
        return cls(**kwargs)

    def free_capacity(self) -> float:
        """Kilograms that can still be placed on the shelf."""
        return max(self.max_load_kg - self.load_kg, 0.0)


class Shipment:
    """An outgoing shipment."""

    def __init__(self, shipment_id: str, destination: str, weight_kg: float = 0.0, priority: int = 1) -> None:
        if weight_kg < 0:
            raise ValueError("weight_kg must not be negative")
        if priority < 0:
            raise ValueError("priority must not be negative")
        shipment_id = shipment_id.strip()
        destination = destination.strip()
        self.shipment_id = shipment_id
        self.destination = destination
        self.weight_kg = weight_kg
        self.priority = priority

    def __repr__(self) -> str:
        return f"Shipment(shipment_id={self.shipment_id!r}, destination={self.destination!r}, weight_kg={self.weight_kg!r})"

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Shipment):
            return NotImplemented
        return self.shipment_id == other.shipment_id

    def to_dict(self) -> dict[str, object]:
        """The fields as a plain dictionary (for JSON)."""
        return {"shipment_id": self.shipment_id, "destination": self.destination, "weight_kg": self.weight_kg, "priority": self.priority}

    @classmethod
    def from_dict(cls, data: dict[str, object]) -> Shipment:
        """The inverse of ``to_dict``; missing optional fields take their defaults."""
        kwargs = {}
        kwargs["shipment_id"] = str(data["shipment_id"])
        kwargs["destination"] = str(data["destination"])
        if "weight_kg" in data:
            kwargs["weight_kg"] = float(data["weight_kg"])
        if "priority" in data:
            kwargs["priority"] = int(data["priority"])
        return cls(**kwargs)

    def is_express(self) -> bool:
        """Priority 3 and above ships express."""
        return self.priority >= 3


class ItemRegistry:
    """All Item records, kept by sku."""

    def __init__(self) -> None:
        self._items: dict[str, Item] = {}

    def __len__(self) -> int:
        return len(self._items)

    def __iter__(self) -> Iterator[Item]:
        return iter(self._items.values())

    def add(self, item: Item) -> None:
        """Add a record; a duplicate sku is an error."""
        if item.sku in self._items:
            raise KeyError(f"duplicate sku: {item.sku}")
        self._items[item.sku] = item

    def remove(self, sku: str) -> Item:
        return self._items.pop(sku)

    def find(self, sku: str) -> Item | None:
        return self._items.get(sku)

    def filter(self, predicate: Callable[[Item], bool]) -> list[Item]:
        """Records for which ``predicate`` is true, in insertion order."""
        return [item for item in self._items.values() if predicate(item)]

    def total(self, field: str = 'quantity') -> float:
        """Sum of one numeric field over every record."""
        return float(sum(getattr(item, field) for item in self._items.values()))

    def save(self, path: Path) -> None:
        """Write every record as JSON, atomically (write, then rename)."""
        tmp = path.with_suffix(path.suffix + ".tmp")
        tmp.write_text(json.dumps([item.to_dict() for item in self], indent=2))
        tmp.replace(path)

    @classmethod
    def load(cls, path: Path) -> ItemRegistry:
        registry = cls()
        for data in json.loads(path.read_text()):
            registry.add(Item.from_dict(data))
        return registry

    def summary(self) -> str:
        """A short human-readable report."""
        flagged = sum(1 for item in self._items.values() if item.needs_reorder())
        return f"{len(self)} item record(s), {flagged} with needs reorder"
