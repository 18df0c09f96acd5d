"""The simulator's thermal model (--thermal): a node heating with its draw over minutes of
simulated time, its clock sagging past the limit; and the power meter that drives it."""

from __future__ import annotations

import math

import pytest

from sparkload.sim.engine import StepCost
from sparkload.sim.power import PowerMeter, PowerModel
from sparkload.sim.thermal import Thermal, ThermalModel

MODEL = ThermalModel()
IDLE_W = PowerModel().idle_w


class FakeClock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def test_a_node_starts_at_its_idle_temperature_below_the_limit_at_full_clock():
    node = Thermal(MODEL, IDLE_W)
    assert node.temperature_c == pytest.approx(MODEL.ambient_c + MODEL.c_per_w * IDLE_W)
    assert node.temperature_c < MODEL.limit_c and node.clock_share == 1.0


def test_after_one_time_constant_a_node_has_covered_63_percent_of_its_way():
    node = Thermal(MODEL, IDLE_W)
    start, target = node.temperature_c, MODEL.settled_c(90.0)
    node.advance(90.0, MODEL.time_constant_s)
    assert (node.temperature_c - start) / (target - start) == pytest.approx(1 - math.exp(-1))


def test_heating_in_many_short_steps_equals_one_long_one():
    one, many = Thermal(MODEL, IDLE_W), Thermal(MODEL, IDLE_W)
    one.advance(80.0, 120.0)
    for _ in range(1200):
        many.advance(80.0, 0.1)
    assert many.temperature_c == pytest.approx(one.temperature_c)


def test_a_burst_of_a_minute_at_a_loaded_servers_draw_keeps_the_full_clock():
    node = Thermal(MODEL, IDLE_W)
    node.advance(80.0, 60.0)
    assert node.clock_share == 1.0


def test_a_loaded_server_held_for_half_an_hour_settles_past_the_limit():
    assert MODEL.settled_c(75.0) > MODEL.limit_c > MODEL.settled_c(IDLE_W)


def test_the_clock_sags_by_its_share_per_degree_over_the_limit_down_to_its_floor():
    assert MODEL.clock_share(MODEL.limit_c) == 1.0
    assert MODEL.clock_share(MODEL.limit_c + 5) == pytest.approx(1 - 5 * MODEL.sag_per_c)
    assert MODEL.clock_share(MODEL.limit_c + 100) == MODEL.min_share


def test_a_throttled_node_reports_its_clock_in_mhz():
    node = Thermal(MODEL, IDLE_W)
    node.temperature_c = MODEL.limit_c + 5
    assert node.clock_mhz == pytest.approx(MODEL.max_clock_mhz * (1 - 5 * MODEL.sag_per_c))


def test_without_a_thermal_model_the_meter_keeps_the_full_clock_and_no_temperature():
    meter = PowerMeter(PowerModel(), 1.0, FakeClock())
    assert meter.clock_share == 1.0 and meter.temperature_c() is None


def test_a_throttled_step_draws_its_watts_above_idle_times_the_clocks_share():
    cost = StepCost(
        memory=0.05, compute=0.0, overlap_loss=0.0, overhead=0.0, draft=0.0, comm=0.0, verify=0.0
    )
    full = PowerModel().step_watts(cost)
    meter = PowerMeter(PowerModel(), 1.0, FakeClock(), Thermal(MODEL, IDLE_W))
    meter.thermal.temperature_c = MODEL.limit_c + 10  # type: ignore[union-attr]
    meter.begin_step(cost)
    share = MODEL.clock_share(MODEL.limit_c + 10)
    assert meter.watts() == pytest.approx(IDLE_W + share * (full - IDLE_W))


def test_an_idle_node_cools_towards_its_idle_temperature_as_simulated_time_passes():
    clock = FakeClock()
    meter = PowerMeter(PowerModel(), 10.0, clock, Thermal(MODEL, IDLE_W))
    meter.thermal.temperature_c = 90.0  # type: ignore[union-attr]
    clock.now = MODEL.time_constant_s / 10.0  # one time constant of simulated time
    cooled = meter.temperature_c()
    idle = MODEL.settled_c(IDLE_W)
    assert cooled == pytest.approx(idle + (90.0 - idle) * math.exp(-1))
