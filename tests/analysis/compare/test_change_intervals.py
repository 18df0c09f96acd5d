"""The draws of each compared figure and the interval of a change between two runs."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from analysis.compare.change_intervals import (
    MIN_FOR_INTERVAL,
    Change,
    LevelSample,
    draws,
    measure_change,
    own_value,
    sample_size,
)
from analysis.compare.tolerances import BY_NAME
from analysis.figures import percentiles

TTFT_P90, TTFT_MEAN = BY_NAME["ttft_p90_ms"], BY_NAME["ttft_mean_ms"]
THROUGHPUT, FAILURES = BY_NAME["output_tok_s"], BY_NAME["failure_ratio"]
TTFO_MEAN, ANSWERED = BY_NAME["ttfo_mean_ms"], BY_NAME["answered_share"]
RELATIVE = [TTFT_MEAN, BY_NAME["ttft_p50_ms"], TTFT_P90, THROUGHPUT]


def sample(ttft: np.ndarray, failures: int = 0, tokens: float = 16.0, **columns) -> LevelSample:
    latency = ttft + 0.3
    frame = pd.DataFrame({"ttft": ttft, "latency": latency, "output_tokens": tokens, **columns})
    return LevelSample(frame, len(ttft), failures)


def skewed(n: int, seed: int) -> np.ndarray:
    """n TTFTs of which one is a hundred times the others: a cold start among warm requests."""
    values = 0.05 * np.random.default_rng(seed).lognormal(0.0, 0.1, n)
    values[seed % n] *= 100
    return values


def interval(compared, base: np.ndarray, run: np.ndarray, resamples: int = 1000) -> Change:
    """The change of ``compared`` between two levels' TTFTs, drawn as compare draws it."""
    sides = [sample(base), sample(run)]
    values = [own_value(compared, side) for side in sides]
    if compared is THROUGHPUT:
        values = [
            float(side.ok["output_tokens"].sum() / side.ok["latency"].sum()) for side in sides
        ]
    found = [
        draws(compared, side, v, rng(i), resamples)
        for i, (side, v) in enumerate(zip(sides, values, strict=True))
    ]
    return measure_change(compared, values[0], values[1], found[0], found[1])


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


# small and skewed samples: no bound below -100 %, and no interval of a handful


@pytest.mark.parametrize("n", range(1, MIN_FOR_INTERVAL))
@pytest.mark.parametrize("compared", RELATIVE, ids=lambda c: c.name)
def test_fewer_values_than_the_minimum_draw_no_interval(compared, n):
    assert sample_size(compared, sample(skewed(n, 1))) == n
    assert len(draws(compared, sample(skewed(n, 1)), 100.0, rng(), 100)) == 0
    assert math.isnan(interval(compared, skewed(n, 1), skewed(n, 2)).low)


def test_a_mean_s_draws_stay_positive_at_a_few_skewed_values():
    found = draws(TTFT_MEAN, sample(skewed(5, 3)), 1.0, rng(), 4000)
    assert len(found) == 4000 and (found > 0).all()  # normal draws were below 0 in 1 of 6


@pytest.mark.parametrize("n", [5, 6, 8, 12, 40])
@pytest.mark.parametrize("compared", RELATIVE, ids=lambda c: c.name)
def test_no_interval_of_a_positive_figure_lies_below_minus_100_percent(compared, n):
    for seed in range(4):
        found = interval(compared, skewed(n, seed), 0.3 * skewed(n, seed + 10))
        assert -100.0 < found.low <= found.high, (seed, found)


def test_the_interval_is_of_the_log_ratio():
    base, run = np.full(4, 10.0), np.array([5.0, 10.0, 20.0, 40.0])
    found = measure_change(TTFT_MEAN, 10.0, 20.0, base, run, confidence=0.5)
    expected = np.expm1(np.quantile(np.log(run / base), [0.25, 0.75])) * 100
    assert (found.low, found.high) == pytest.approx(tuple(expected))


def test_a_relative_change_with_a_non_positive_draw_has_no_interval():
    found = measure_change(TTFT_MEAN, 10.0, 12.0, np.array([10.0, -1.0]), np.array([12.0, 12.0]))
    assert math.isnan(found.low) and math.isnan(found.high) and not found.excludes_none


def test_a_share_is_drawn_at_any_size():
    assert sample_size(FAILURES, sample(skewed(2, 1), failures=1)) == 3
    assert len(draws(FAILURES, sample(skewed(2, 1), failures=1), 100 / 3, rng(), 10)) == 10


# a thinking model's figures


def test_the_answered_share_counts_ok_requests_that_gave_a_first_output_token_of_all_measured():
    ttft = scattered(11, n=8)
    answered = np.arange(8) < 6
    ttfo = np.where(answered, ttft + 0.5, np.nan)  # two reasoned to max_tokens
    finish = np.where(answered, "stop", "length")
    level = sample(
        ttft, failures=2, ttfo=ttfo, reasoning_tokens=np.full(8, 10.0), finish_reason=finish
    )
    assert own_value(ANSWERED, level) == pytest.approx(60.0)  # 6 of 10


def test_a_plain_run_answered_every_ok_request():
    assert own_value(ANSWERED, sample(scattered(12, n=9), failures=1)) == pytest.approx(90.0)


def test_ttfo_is_of_the_requests_that_answered():
    ttft = scattered(13, n=8)
    ttfo = np.where(np.arange(8) < 6, 0.5, np.nan)
    level = sample(ttft, ttfo=ttfo, reasoning_tokens=np.full(8, 10.0))
    assert own_value(TTFO_MEAN, level) == pytest.approx(500.0)
    assert sample_size(TTFO_MEAN, level) == 6


def test_records_without_ttfo_have_no_ttfo():
    assert math.isnan(own_value(TTFO_MEAN, sample(scattered(14))))
