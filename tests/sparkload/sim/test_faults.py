"""Fault specs and the seeded per-request choice."""

import pytest

from sparkload.sim.faults import FAULT_KINDS, FaultPicker, parse_fault_spec


def test_fault_spec_parses_kinds_and_rates():
    assert parse_fault_spec("http_500=0.1, stall=0.05") == {"http_500": 0.1, "stall": 0.05}


def test_empty_fault_spec_means_no_faults():
    assert parse_fault_spec("") == {}


@pytest.mark.parametrize(
    "spec, reason",
    [
        ("oops=0.1", "unknown fault kind"),
        ("http_500", "needs a rate"),
        ("http_500=x", "not a number"),
        ("http_500=1.5", "between 0 and 1"),
        ("http_500=0.6,stall=0.6", "sum to"),
        ("stall=0.1,stall=0.2", "twice"),
    ],
)
def test_bad_fault_specs_are_rejected_with_a_reason(spec, reason):
    with pytest.raises(ValueError, match=reason):
        parse_fault_spec(spec)


def test_fault_choice_is_reproducible_for_a_seed():
    rates = {"http_500": 0.2, "disconnect": 0.3}
    picker_a, picker_b = FaultPicker(rates, seed=4), FaultPicker(rates, seed=4)
    assert [picker_a.pick() for _ in range(200)] == [picker_b.pick() for _ in range(200)]


def test_fault_choice_follows_the_rates():
    picker = FaultPicker({"http_429": 0.25}, seed=1)
    picks = [picker.pick() for _ in range(4000)]
    assert 0.22 < picks.count("http_429") / len(picks) < 0.28
    assert set(picks) == {"http_429", None}


def test_a_forced_kind_wins_over_the_rates():
    assert FaultPicker({}, seed=0).pick("stall") == "stall"


def test_a_forced_unknown_kind_is_an_error():
    with pytest.raises(ValueError):
        FaultPicker({}).pick("explode")


def test_every_documented_kind_is_accepted():
    assert parse_fault_spec(",".join(f"{k}=0.1" for k in FAULT_KINDS))
