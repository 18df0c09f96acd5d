"""The scenarios' plans: each a fixed order of phases made from the knobs (pure)."""

from __future__ import annotations

import pytest

from sparkload.records import SCENARIO_NAMES
from sparkload.scenarios import DEFAULT_PHASE, DEFAULT_SOAK, PLANS, Knobs, phases

KNOBS = Knobs(low=2, high=16, phase=30.0, cycles=2)


def shape(name: str, knobs: Knobs = KNOBS) -> list[tuple[str, int, float, bool]]:
    return [(p.name, p.concurrency, p.duration, p.churn) for p in phases(name, knobs)]


def test_every_scenario_name_has_a_plan():
    assert set(PLANS) == set(SCENARIO_NAMES)


def test_a_ramp_doubles_from_low_and_ends_at_high():
    assert [c for _, c, _, _ in shape("ramp", Knobs(3, 20, 30.0, 1))] == [3, 6, 12, 20]
    assert [name for name, *_ in shape("ramp")] == ["step1", "step2", "step3", "step4"]


def test_recovery_holds_low_then_overloads_for_a_third_then_waits_twice_as_long():
    assert shape("recovery") == [
        ("baseline", 2, 30.0, False),
        ("overload", 16, 10.0, False),
        ("after", 2, 60.0, False),
    ]


def test_a_burst_is_a_third_of_a_phase_between_two_low_phases():
    assert shape("burst") == [
        ("baseline", 2, 30.0, False),
        ("burst", 16, 10.0, False),
        ("after", 2, 30.0, False),
    ]


def test_a_zigzag_alternates_for_its_cycles_and_ends_low():
    assert [(n, c) for n, c, _, _ in shape("zigzag")] == [
        ("low1", 2),
        ("high1", 16),
        ("low2", 2),
        ("high2", 16),
        ("low3", 2),
    ]


def test_churn_opens_a_connection_per_request_only_in_its_second_phase():
    assert shape("churn") == [("kept", 16, 30.0, False), ("churn", 16, 30.0, True)]


@pytest.mark.parametrize(("name", "length"), [("recovery", DEFAULT_PHASE), ("soak", DEFAULT_SOAK)])
def test_a_phase_not_given_is_the_scenarios_own_default(name, length):
    first = phases(name, Knobs(2, 16, 0.0, 1))[0]
    assert first.duration == length
