"""--scenario's options: its names, its knobs, and what it refuses beside it (one line each)."""

from __future__ import annotations

import argparse

import pytest

from sparkload.config import from_namespace
from sparkload.errors import ConfigError


def options(**given: str):
    return from_namespace(argparse.Namespace(**given))


def test_a_scenario_alone_works_with_its_defaults():
    opts = options(scenario="recovery")
    assert opts.mode == "scenario" and opts.level_count == 3
    assert [p.concurrency for p in opts.scenario.phases] == [2, 32, 2]


def test_no_scenario_leaves_the_plan_as_it_was():
    opts = options()
    assert opts.mode == "ladder" and opts.scenario.phases == ()
    assert opts.level_count == 5


def test_an_unknown_scenario_names_the_scenarios():
    with pytest.raises(ConfigError, match="'spike' is not a scenario: give one of ramp, burst"):
        options(scenario="spike")


def test_a_phase_without_its_unit_is_refused():
    with pytest.raises(ConfigError, match="--scenario-phase: '30' is not a duration"):
        options(scenario="ramp", scenario_phase="30")


def test_a_phase_with_its_unit_is_target_seconds():
    assert options(scenario="soak", scenario_phase="2m").scenario.phases[0].duration == 120.0


def test_a_knob_without_a_scenario_is_refused():
    with pytest.raises(ConfigError, match="--scenario-high shapes a scenario"):
        options(scenario_high="64")


def test_low_must_be_below_high():
    with pytest.raises(ConfigError, match="--scenario-low 8 must be below --scenario-high 8"):
        options(scenario="burst", scenario_low="8", scenario_high="8")


@pytest.mark.parametrize(
    ("dest", "value", "flag"),
    [
        ("arrival_rate", "4", "--arrival-rate"),
        ("find_capacity", "ttft_p90_ms<=800", "--find-capacity"),
        ("step_duration", "10", "--step-duration"),
        ("ladder", "1,2", "--ladder"),
    ],
)
def test_another_plans_option_is_refused_beside_a_scenario(dest, value, flag):
    with pytest.raises(ConfigError, match=f"--scenario churn brings its own phases.*drop {flag}"):
        options(scenario="churn", **{dest: value})
