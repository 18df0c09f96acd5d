"""LoRA adapters in the simulator: the slots, the engine admitting by them and paying the switch,
and how adapters are listed and asked for (no network)."""

from dataclasses import replace

import pytest

from sparkload.sim.engine import Engine
from sparkload.sim.lora import LoraSetup, LoraSlots, model_cards, served_as
from sparkload.sim.profiles import get_profile

SWITCH = 0.25  # seconds: far above any step of the tests' short requests


def engine(slots: int = 1) -> Engine:
    profile = replace(get_profile("fp8"), step_jitter=0.0)
    return Engine(profile, lora=LoraSetup(("a", "b", "c"), slots, SWITCH))


def first_steps(engine: Engine) -> dict[str, int]:
    """The index of the step that first schedules each request."""
    seen: dict[str, int] = {}
    for index in range(2000):
        if not engine.has_work():
            break
        for request_id in engine.step().scheduled:
            seen.setdefault(request_id, index)
    return seen


def test_a_slot_loads_an_adapter_once_and_the_base_model_needs_none():
    slots = LoraSlots(LoraSetup(("a",), 1, SWITCH))
    assert [slots.admit("a"), slots.admit("a"), slots.admit(None)] == [SWITCH, 0.0, 0.0]
    assert slots.loads == 1


def test_the_least_recently_used_adapter_leaves_its_slot():
    slots = LoraSlots(LoraSetup(("a", "b", "c"), 2, SWITCH))
    for adapter in ("a", "b", "a", "c"):
        slots.admit(adapter)
    assert list(slots.loaded) == ["a", "c"]


def test_an_adapter_in_use_keeps_its_slot_and_the_newcomer_waits():
    slots = LoraSlots(LoraSetup(("a", "b"), 1, SWITCH))
    slots.admit("a")
    assert slots.admit("b", busy={"a"}) is None
    assert list(slots.loaded) == ["a"]


def test_the_step_admitting_an_unloaded_adapter_lasts_the_switch_longer():
    plain = Engine(replace(get_profile("fp8"), step_jitter=0.0))
    plain.add("x", 100, 4)
    lora = engine()
    lora.add("x", 100, 4, adapter="a")
    assert lora.step().duration_s - plain.step().duration_s == pytest.approx(SWITCH)


def test_a_request_whose_adapter_is_loaded_pays_nothing_more():
    lora = engine()
    lora.add("x", 100, 2, adapter="a")
    first = lora.step().duration_s
    lora.add("y", 100, 2, adapter="a")
    assert all(lora.step().duration_s < first - SWITCH / 2 for _ in range(2))


def test_with_one_slot_a_second_adapter_waits_until_the_first_ones_requests_end():
    lora = engine(slots=1)
    lora.add("a1", 100, 8, adapter="a")
    lora.add("b1", 100, 8, adapter="b")
    order = first_steps(lora)
    assert order["b1"] >= 8  # a1's prefill and its seven more decode steps come first
    assert lora.lora.loads == 2


def test_two_slots_serve_two_adapters_side_by_side():
    lora = engine(slots=2)
    lora.add("a1", 100, 8, adapter="a")
    lora.add("b1", 100, 8, adapter="b")
    assert first_steps(lora) == {"a1": 0, "b1": 0}


def test_a_waiting_request_whose_adapter_finds_no_slot_lets_later_ones_go_first():
    lora = engine(slots=1)
    lora.add("a1", 100, 8, adapter="a")
    lora.add("b1", 100, 8, adapter="b")
    lora.add("a2", 100, 8, adapter="a")
    lora.add("base", 100, 8)
    order = first_steps(lora)
    assert order["a2"] == order["base"] == 0
    assert order["b1"] > order["a2"]


def test_an_adapters_request_is_read_as_the_base_models_and_the_adapter_kept():
    setup = LoraSetup(("tenant-a",))
    body, adapter = served_as({"model": "tenant-a", "max_tokens": 3}, "base", setup)
    assert (body, adapter) == ({"model": "base", "max_tokens": 3}, "tenant-a")
    assert served_as({"model": "other"}, "base", setup) == ({"model": "other"}, None)


def test_models_list_each_adapter_with_the_base_as_its_parent():
    cards = model_cards("base", LoraSetup(("a", "b")), created=0)
    assert [(c["id"], c["parent"]) for c in cards] == [("base", None), ("a", "base"), ("b", "base")]
