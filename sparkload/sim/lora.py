"""LoRA adapters in the simulator: the names it serves beside its base model, and the slots that
hold them, so the cost of switching adapters shows without a GPU.

vLLM serves adapters given by ``--lora-modules NAME=PATH`` under their own names (``GET
/v1/models`` lists each with ``parent`` the base model), a request asking for one by its
``model``. A batch holds at most ``--max-loras`` distinct adapters, each in a slot of the
GPU's LoRA buffers; an adapter in no slot is loaded into one before the step that needs it, and
the whole step waits for it. The simulator models that simply (``--lora``,
``--max-loras``, ``--lora-switch-ms``):

- the engine holds ``--max-loras`` slots (vLLM's default: 1), least recently used first out;
- a request of the base model needs no slot;
- a request is admitted (first scheduled, or again after a preemption) only if its adapter is
  in a slot, or a slot is free or held by an adapter no running request uses: then the adapter
  is loaded into it, and the step that admits it lasts ``--lora-switch-ms`` longer (every
  request in that step waits, as in vLLM); otherwise it waits, and later waiting requests whose
  adapters fit may go first (vLLM's scheduler skips it the same way);
- ``--profile fixed`` has no batch: a request whose adapter is in no slot pays the switch in its
  own time to first token, its adapter taking the least recently used slot.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Collection
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class LoraSetup:
    """The adapters a simulator serves and what switching them costs."""

    adapters: tuple[str, ...] = ()
    slots: int = 1  # --max-loras: distinct adapters a batch may hold
    switch_s: float = 0.0  # --lora-switch-ms, in seconds: loading an adapter into a slot


@dataclass
class LoraSlots:
    """Which adapters are loaded, least recently used first, and how many loads there were."""

    setup: LoraSetup
    loaded: OrderedDict[str, None] = field(default_factory=OrderedDict)
    loads: int = 0

    def admit(self, adapter: str | None, busy: Collection[str] = ()) -> float | None:
        """The seconds admitting a request of ``adapter`` costs (0: the base model, or the
        adapter is loaded), loading it if needed; None when every slot holds an adapter of a
        running request (``busy``) and the request must wait."""
        if adapter is None:
            return 0.0
        if adapter in self.loaded:
            self.loaded.move_to_end(adapter)
            return 0.0
        if len(self.loaded) >= self.setup.slots:
            free = next((name for name in self.loaded if name not in busy), None)
            if free is None:
                return None
            del self.loaded[free]
        self.loaded[adapter] = None
        self.loads += 1
        return self.setup.switch_s


def served_as(body: Any, base: str, setup: LoraSetup) -> tuple[Any, str | None]:
    """A request body asking for an adapter, as the base model's body (what the server's
    readers check the model against), and the adapter (None: the base model or another name,
    which the readers refuse as before)."""
    if isinstance(body, dict) and body.get("model") in setup.adapters:
        return {**body, "model": base}, str(body["model"])
    return body, None


def model_cards(base: str, setup: LoraSetup, created: int) -> list[dict[str, Any]]:
    """``GET /v1/models``'s data: the base model, then each adapter with the base as its
    ``parent`` (as vLLM lists ``--lora-modules``)."""
    cards = [_card(base, base, None, created)]
    return cards + [_card(name, name, base, created) for name in setup.adapters]


def _card(name: str, root: str, parent: str | None, created: int) -> dict[str, Any]:
    return {
        "id": name,
        "object": "model",
        "created": created,
        "owned_by": "sparkload-sim",
        "root": root,
        "parent": parent,
    }
