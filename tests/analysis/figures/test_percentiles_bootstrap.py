"""The order-statistic bootstrap draws exactly the bootstrap distribution of a percentile.

For a handful of values every resample can be listed (n^n of them, equally likely), which gives
the exact bootstrap distribution of the percentile. Asking ``bootstrap_ci`` for intervals at many
confidence levels reads off the quantiles of the distribution it drew: each must be a quantile
of the exact one, to within the Monte Carlo error of 200,000 draws.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

from analysis.figures import percentiles

DRAWS = 200_000
TOLERANCE = 0.01  # in probability; the draws' own error is about 0.001
TAILS = (0.02, 0.05, 0.1, 0.2, 0.3, 0.4, 0.45)


def exact_bootstrap(values: np.ndarray, q: float, method: str) -> np.ndarray:
    """The percentile of every possible resample (each equally likely)."""
    n = len(values)
    k, frac = percentiles.position(n, q, method)
    picks = np.array(list(itertools.product(range(n), repeat=n)))
    resamples = np.sort(values[picks], axis=1)
    upper = resamples[:, min(k + 1, n - 1)]
    return resamples[:, k] + frac * (upper - resamples[:, k])


@pytest.mark.parametrize(
    "n, q, method",
    [
        (5, 0.9, percentiles.LINEAR),  # interpolates: order statistics 4 and 5, fraction 0.6
        (6, 0.5, percentiles.LINEAR),  # fraction 0.5
        (4, 0.5, percentiles.CORDATUS),  # the mean of the two middle values
        (5, 0.9, percentiles.CORDATUS),  # the nearest rank: the resample's largest value
        (5, 0.5, percentiles.LINEAR),  # no interpolation
    ],
)
def test_the_drawn_distribution_is_the_exact_bootstrap_distribution(n, q, method):
    values = 2.0 ** np.arange(n)  # 1, 2, 4, ...: every resample's percentile tells its picks
    exact = exact_bootstrap(values, q, method)
    for tail in TAILS:
        rng = np.random.default_rng(0)
        drawn = percentiles.bootstrap_ci(values, q, method, rng, DRAWS, confidence=1 - 2 * tail)
        for probability, value in zip((tail, 1 - tail), drawn, strict=True):
            below, at_or_below = np.mean(exact < value), np.mean(exact <= value)
            assert below - TOLERANCE <= probability <= at_or_below + TOLERANCE, (tail, value)


def test_fewer_than_two_values_have_no_interval():
    interval = percentiles.bootstrap_ci(np.array([3.0]), 0.5, "linear", np.random.default_rng(0))
    assert all(math.isnan(bound) for bound in interval)


def test_two_values_have_an_interval_between_them():
    low, high = percentiles.bootstrap_ci(
        np.array([1.0, 2.0]), 0.5, "linear", np.random.default_rng(0)
    )
    assert 1.0 <= low < high <= 2.0


def test_no_resamples_means_no_interval():
    values = np.arange(10.0)
    interval = percentiles.bootstrap_ci(values, 0.5, "linear", np.random.default_rng(0), 0)
    assert all(math.isnan(bound) for bound in interval)


def test_a_single_resample_gives_a_point():
    values = np.arange(10.0)
    low, high = percentiles.bootstrap_ci(values, 0.5, "linear", np.random.default_rng(0), 1)
    assert low == high and 0.0 <= low <= 9.0


def test_the_bootstrap_draws_1000_resamples_unless_told():
    values = np.sort(np.random.default_rng(2).lognormal(size=30))
    default = percentiles.bootstrap_ci(values, 0.9, "linear", np.random.default_rng(4))
    assert default == percentiles.bootstrap_ci(
        values, 0.9, "linear", np.random.default_rng(4), 1000
    )


def test_one_value_is_every_quantile_of_itself():
    for method in percentiles.METHODS:
        assert percentiles.quantile(np.array([7.0]), 0.9, method) == 7.0


def test_no_values_have_no_quantile():
    assert math.isnan(percentiles.quantile(np.array([]), 0.5, "linear"))


def test_the_interval_is_the_percentile_interval_of_the_same_draws():
    values = np.sort(np.random.default_rng(3).lognormal(size=50))
    estimates = percentiles.bootstrap_estimates(
        values, 0.9, percentiles.LINEAR, np.random.default_rng(7), 1000
    )
    low, high = percentiles.bootstrap_ci(
        values, 0.9, percentiles.LINEAR, np.random.default_rng(7), 1000
    )
    assert (low, high) == tuple(np.quantile(estimates, [0.05, 0.95]))
