"""The confidence intervals both sides compute: a percentile's between two order statistics,
a mean's normal one; plain Python, the same bits whatever the order of the values."""

from __future__ import annotations

import random

import pytest

from sparkload.records import interval_needs, mean_interval, order_statistic_interval


def test_a_p90_needs_29_values_for_a_90_percent_interval_and_a_median_5():
    assert (interval_needs(0.9), interval_needs(0.5)) == (29, 5)
    assert order_statistic_interval([float(v) for v in range(1, 29)], 0.9) is None  # 28 values
    assert order_statistic_interval([float(v) for v in range(1, 30)], 0.9) == (23.0, 29.0)


def test_the_median_of_five_values_lies_between_the_least_and_the_most():
    """P(B <= 0) = P(B >= 5) = 1/32 for B ~ Binomial(5, 1/2), each within the 5 % tail."""
    assert order_statistic_interval([1.0, 2.0, 3.0, 4.0, 5.0], 0.5) == (1.0, 5.0)


def test_the_interval_covers_the_true_quantile_as_often_as_it_says():
    rng = random.Random(0)
    true_p90 = 0.9 * 100.0  # of a uniform distribution on [0, 100)
    hits = 0
    for _ in range(1000):
        values = sorted(rng.uniform(0.0, 100.0) for _ in range(60))
        interval = order_statistic_interval(values, 0.9)
        assert interval is not None
        hits += interval[0] <= true_p90 <= interval[1]
    assert hits >= 890  # at least the confidence (0.90), sampling error aside


def test_a_hundred_thousand_values_neither_overflow_nor_lose_the_interval():
    values = [float(v) for v in range(100_000)]
    low, high = order_statistic_interval(values, 0.99)
    assert 98_900 < low < 99_000 < high < 99_100


def test_a_means_interval_is_mean_plus_or_minus_z_s_over_root_n():
    """1..5: mean 3, s = √2.5, z(95 %) = 1.6449: ± 1.6449 · 1.5811 / √5 = ± 1.1631."""
    low, high = mean_interval([1.0, 2.0, 3.0, 4.0, 5.0])
    assert (low, high) == pytest.approx((3 - 1.16309, 3 + 1.16309), abs=1e-5)


def test_a_means_interval_does_not_depend_on_the_order_of_the_values():
    values = [random.Random(1).lognormvariate(0, 1) for _ in range(500)]
    assert mean_interval(values) == mean_interval(sorted(values)) == mean_interval(values[::-1])


def test_one_value_has_no_mean_interval():
    assert mean_interval([4.0]) is None
