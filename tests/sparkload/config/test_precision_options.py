"""--target-precision's options: repeatable targets, the bounds per level, and one line where
they cannot apply (exit 2 before the load: ``tests/sparkload/shapes/test_precision_runs.py``)."""

from __future__ import annotations

import pytest

from sparkload.config.precision import DEFAULT_MAX_REQUESTS, MOST_REQUESTS
from sparkload.errors import ConfigError
from sparkload.records import PrecisionTarget
from sparkload.run.livetable import EXACT_VALUES
from tests.options import parsed_options


def test_targets_repeat_and_a_level_is_capped_at_2000_unless_told():
    opts = parsed_options("--target-precision", "ttft_p90:5%", "--target-precision", "itl_mean:2%")
    assert opts.precision.targets == (
        PrecisionTarget("ttft", "p90", 0.05),
        PrecisionTarget("itl", "mean", 0.02),
    )
    assert opts.precision.max_requests_per_level == DEFAULT_MAX_REQUESTS == 2000
    assert opts.precision.min_requests_per_level is None


def test_a_run_without_targets_has_none():
    assert parsed_options().precision.targets == ()


def refusal(*args: str) -> str:
    with pytest.raises(ConfigError) as refused:
        parsed_options(*args)
    return str(refused.value)


def test_a_zero_precision_is_refused_naming_the_option_and_the_value():
    assert refusal("--target-precision", "ttft_p90:0%") == (
        "--target-precision 'ttft_p90:0%': the precision 0% must be more than 0 % and at most 100 %"
    )


def test_an_unknown_statistic_is_refused_naming_the_option_and_the_value():
    assert refusal("--target-precision", "bogus:5%") == (
        "--target-precision 'bogus:5%': 'bogus' is not a statistic: give METRIC_STAT:PCT with "
        "STAT one of mean, p50, p90, p99, e.g. 'ttft_p90:5%'"
    )


def test_the_same_statistic_twice_is_refused():
    assert refusal("--target-precision", "ttft_p90:5%", "--target-precision", "ttft_ms_p90:2%") == (
        "--target-precision ttft_p90: the statistic is given twice"
    )


def test_timed_steps_are_refused_beside_a_target():
    said = refusal("--target-precision", "ttft_p90:5%", "--step-duration", "30")
    assert "timed levels end on their own clock: drop --step-duration" in said


def test_an_open_loop_is_refused_beside_a_target():
    said = refusal("--target-precision", "ttft_p90:5%", "--arrival-rate", "2")
    assert "open-loop levels end on their own clock: drop --arrival-rate" in said


def test_a_minimum_above_the_maximum_is_refused():
    assert refusal(
        "--target-precision",
        "ttft_p90:5%",
        "--min-requests-per-level",
        "300",
        "--max-requests-per-level",
        "200",
    ) == ("--min-requests-per-level 300 is more than --max-requests-per-level 200")


def test_bounds_without_a_target_are_refused():
    assert refusal("--min-requests-per-level", "50") == (
        "--min-requests-per-level without --target-precision: they bound its levels, give a "
        "target too, e.g. --target-precision 'ttft_p90:5%'"
    )


def test_a_cap_past_what_the_live_table_keeps_exactly_is_refused():
    said = refusal("--target-precision", "ttft_p90:5%", "--max-requests-per-level", "20001")
    assert said == "--max-requests-per-level: 20001 is more than a level can keep exactly (20000)"


def test_the_cap_is_what_the_live_table_keeps_exactly():
    assert MOST_REQUESTS <= EXACT_VALUES
