"""The simulator's power model: idle watts plus watts by the step's work, in simulated time."""

from __future__ import annotations

import pytest

from sparkload.sim.engine import BatchShape, Engine, step_cost
from sparkload.sim.power import PowerMeter, PowerModel
from sparkload.sim.profiles import get_profile

MODEL = PowerModel()
DECODE_1 = BatchShape(decode_seqs=1, context_tokens=300)
DECODE_64 = BatchShape(decode_seqs=64, context_tokens=64 * 300)
PREFILL = BatchShape(prefill_seqs=1, prefill_tokens=2048, attention_pairs=2048 * 1024)


class FakeClock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def watts(profile_name: str, batch: BatchShape, tp: int = 1) -> float:
    return MODEL.step_watts(step_cost(get_profile(profile_name, tp), batch))


def test_a_single_decode_stream_draws_what_reviews_measured_for_llm_inference():
    """60-90 W for LLM inference on a DGX Spark (power.py names the sources)."""
    for profile in ("fp8", "awq-mtp", "nvfp4-mtp"):
        assert 55 <= watts(profile, DECODE_1) <= 70


def test_a_larger_decode_batch_draws_more():
    assert watts("awq-mtp", DECODE_64) > watts("awq-mtp", DECODE_1)


def test_a_compute_bound_prefill_draws_more_than_any_decode_batch():
    assert watts("awq-mtp", PREFILL) > watts("awq-mtp", DECODE_64) + 20


def test_no_step_draws_more_than_the_gb10_peak():
    huge = BatchShape(prefill_seqs=8, prefill_tokens=16384, attention_pairs=16384 * 65536)
    assert watts("fp8", huge) <= MODEL.peak_w == 140.0


def test_each_node_of_a_tp_group_draws_less_on_its_share_of_a_prefill():
    assert watts("fp8", PREFILL, tp=2) < watts("fp8", PREFILL, tp=1)


def test_an_idle_node_draws_idle_watts():
    assert PowerMeter(MODEL, 10.0, FakeClock()).watts() == MODEL.idle_w


def test_a_node_draws_the_step_watts_while_a_step_is_under_way():
    meter = PowerMeter(MODEL, 10.0, FakeClock())
    cost = step_cost(get_profile("fp8"), PREFILL)
    meter.begin_step(cost)
    assert meter.watts() == MODEL.step_watts(cost)
    meter.end_step(0.5)
    assert meter.watts() == MODEL.idle_w


def test_idle_energy_accrues_in_simulated_seconds():
    clock = FakeClock()
    meter = PowerMeter(MODEL, 10.0, clock)
    clock.now += 3.0  # 3 real seconds at 10x: 30 simulated seconds
    assert meter.energy_j() == pytest.approx(MODEL.idle_w * 30.0)


def test_a_finished_step_adds_its_watts_above_idle_for_its_simulated_duration():
    clock = FakeClock()
    meter = PowerMeter(MODEL, 10.0, clock)
    cost = step_cost(get_profile("fp8"), PREFILL)
    meter.begin_step(cost)
    clock.now += 0.2  # the step's 2 simulated seconds at 10x
    meter.end_step(2.0)
    expected = MODEL.idle_w * 2.0 + (MODEL.step_watts(cost) - MODEL.idle_w) * 2.0
    assert meter.energy_j() == pytest.approx(expected)


def test_every_engine_step_carries_the_cost_its_duration_came_from():
    engine = Engine(get_profile("fp8"), seed=1)
    engine.add("r", prompt_tokens=100, max_tokens=4)
    step = engine.step()
    assert step.duration_s == pytest.approx(step.cost.seconds, rel=0.2)  # jitter ~3 %
    assert 0 < step.cost.compute_share < 1 and 0 < step.cost.memory_share < 1
