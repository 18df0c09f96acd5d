"""Where each definition puts a percentile: order statistic k and the fraction to k + 1, at the
ends of the range too."""

from __future__ import annotations

import math

import numpy as np
import pytest

from analysis.figures import percentiles

TEN = np.arange(10.0, 110.0, 10.0)  # 10, 20, ..., 100


@pytest.mark.parametrize("q", [0.0, 0.25, 0.5, 0.9, 0.99, 1.0])
def test_linear_position_is_the_whole_and_fractional_part_of_n_minus_one_times_q(q):
    h = 9 * q
    k, frac = percentiles.position(10, q, percentiles.LINEAR)
    assert k == math.floor(h) and frac == pytest.approx(h - math.floor(h))


@pytest.mark.parametrize("method", percentiles.METHODS)
def test_the_top_percentile_is_the_largest_value(method):
    assert percentiles.quantile(TEN, 1.0, method) == 100.0


@pytest.mark.parametrize("method", percentiles.METHODS)
def test_the_bottom_percentile_is_the_smallest_value(method):
    assert percentiles.quantile(TEN, 0.0, method) == 10.0


def test_cordatus_ranks_below_the_first_value_take_the_first():
    assert percentiles.quantile(TEN, 0.05, percentiles.CORDATUS) == 10.0  # rank ceil(0.5) = 1
    assert percentiles.quantile(TEN, 0.15, percentiles.CORDATUS) == 20.0  # rank ceil(1.5) = 2


def test_no_values_have_no_position():
    with pytest.raises(ValueError, match="^no values$"):
        percentiles.position(0, 0.5, percentiles.LINEAR)


def test_an_unknown_method_is_refused_with_the_known_ones():
    with pytest.raises(ValueError) as refused:
        percentiles.position(10, 0.9, "nearest")
    expected = "unknown percentile method 'nearest' (choose from linear, cordatus)"
    assert str(refused.value) == expected
