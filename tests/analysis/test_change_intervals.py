"""The draws of each compared figure and the interval of a change between two runs."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from analysis import percentiles
from analysis.change_intervals import Change, LevelSample, draws, measure_change
from analysis.tolerances import BY_NAME

TTFT_P90, TTFT_MEAN = BY_NAME["ttft_p90_ms"], BY_NAME["ttft_mean_ms"]
THROUGHPUT, FAILURES = BY_NAME["output_tok_s"], BY_NAME["failure_ratio"]


def sample(ttft: np.ndarray, failures: int = 0, tokens: float = 16.0) -> LevelSample:
    latency = ttft + 0.3
    frame = pd.DataFrame({"ttft": ttft, "latency": latency, "output_tokens": tokens})
    return LevelSample(frame, len(ttft), failures)


def scattered(seed: int, n: int = 200, scale: float = 0.1) -> np.ndarray:
    return scale * np.random.default_rng(seed).lognormal(0.0, 0.1, n)


def rng(seed: int = 0) -> np.random.Generator:
    return np.random.default_rng(seed)


def test_a_percentile_s_draws_are_the_report_s_exact_bootstrap_draws():
    ttft = scattered(1)
    expected = percentiles.bootstrap_estimates(np.sort(ttft * 1000), 0.9, "linear", rng(), 500)
    assert np.array_equal(draws(TTFT_P90, sample(ttft), 100.0, rng(), 500), expected)


def test_a_mean_s_draws_centre_on_the_mean_with_its_standard_error():
    ttft = scattered(2, n=400)
    found = draws(TTFT_MEAN, sample(ttft), 100.0, rng(), 4000)
    values = ttft * 1000
    assert found.mean() == pytest.approx(values.mean(), rel=1e-3)
    assert found.std() == pytest.approx(values.std(ddof=1) / math.sqrt(len(values)), rel=0.05)


def test_the_aggregate_throughput_s_draws_centre_on_the_report_s_value():
    found = draws(THROUGHPUT, sample(scattered(3)), 250.0, rng(), 4000)
    assert found.mean() == pytest.approx(250.0, rel=1e-3) and 0 < found.std() < 5


def test_failure_draws_are_binomial_in_percent():
    found = draws(FAILURES, sample(scattered(4, n=90), failures=10), 10.0, rng(), 4000)
    assert found.mean() == pytest.approx(10.0, rel=0.03)
    assert np.allclose(found * 100 % 1, 0)  # whole failures of 100 requests


def test_a_level_without_failures_draws_none():
    assert not draws(FAILURES, sample(scattered(5)), 0.0, rng(), 100).any()


@pytest.mark.parametrize("n", [0, 1])
def test_fewer_than_two_values_draw_nothing(n):
    assert len(draws(TTFT_P90, sample(scattered(6, n=n)), 100.0, rng(), 100)) == 0


def test_no_resamples_draw_nothing():
    assert len(draws(TTFT_P90, sample(scattered(7)), 100.0, rng(), 0)) == 0


def test_two_samples_of_one_distribution_give_an_interval_that_holds_no_change():
    base, run = scattered(8), scattered(9)
    found = measure_change(
        TTFT_P90,
        percentiles.quantile(np.sort(base * 1000), 0.9, "linear"),
        percentiles.quantile(np.sort(run * 1000), 0.9, "linear"),
        draws(TTFT_P90, sample(base), 1.0, rng(1), 1000),
        draws(TTFT_P90, sample(run), 1.0, rng(2), 1000),
    )
    assert found.low < 0 < found.high and not found.excludes_none


def test_a_doubled_sample_gives_an_interval_that_excludes_no_change_around_plus_100_percent():
    base = scattered(10)
    found = measure_change(
        TTFT_MEAN,
        base.mean() * 1000,
        base.mean() * 2000,
        draws(TTFT_MEAN, sample(base), 1.0, rng(1), 1000),
        draws(TTFT_MEAN, sample(base * 2), 1.0, rng(2), 1000),
    )
    assert found.change == pytest.approx(100.0)
    assert 90 < found.low < 100 < found.high < 110 and found.excludes_none


def test_the_failure_ratio_s_change_is_in_points():
    found = measure_change(FAILURES, 1.0, 4.0, np.full(10, 1.0), np.full(10, 4.0))
    assert (found.change, found.low, found.high) == (3.0, 3.0, 3.0)


def test_no_failures_on_either_side_is_no_change_at_all():
    found = measure_change(FAILURES, 0.0, 0.0, np.zeros(10), np.zeros(10))
    assert (found.change, found.low, found.high) == (0.0, 0.0, 0.0) and not found.excludes_none


def test_a_relative_change_from_zero_has_no_value():
    found = measure_change(TTFT_MEAN, 0.0, 5.0, np.zeros(10), np.ones(10))
    assert math.isnan(found.change) and math.isnan(found.low)


def test_a_side_without_draws_leaves_the_interval_unknown():
    found = measure_change(TTFT_MEAN, 10.0, 12.0, np.empty(0), np.ones(10))
    assert found.change == pytest.approx(20.0) and math.isnan(found.low) and math.isnan(found.high)
    assert not found.excludes_none


@pytest.mark.parametrize(
    ("low", "high", "excludes"), [(1.0, 5.0, True), (-5.0, -1.0, True), (-1.0, 1.0, False)]
)
def test_an_interval_excludes_no_change_when_wholly_on_one_side(low, high, excludes):
    assert Change(0.0, low, high).excludes_none is excludes
