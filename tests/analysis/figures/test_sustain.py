"""--sustain's figures: the drift's least-squares slope and its interval, the windows'
throughput, the first and last windows' length."""

from __future__ import annotations

import math

import numpy as np
import pytest

from analysis.figures import sustain


@pytest.mark.parametrize(
    "dof, exact",  # Student's t at 0.95 (tables)
    [(5, 2.015), (10, 1.812), (30, 1.697), (1000, 1.646)],
)
def test_the_t_quantile_matches_the_tables_to_a_hundredth(dof, exact):
    assert sustain.t_quantile(0.95, dof) == pytest.approx(exact, abs=0.01)


def test_a_noiseless_line_gives_its_slope_per_minute_and_a_zero_width_interval():
    seconds = np.arange(0.0, 120.0, 2.0)
    found = sustain.drift("ttft_ms", seconds, 800.0 + 0.5 * seconds)  # +0.5 ms a second
    assert found.slope_per_min == pytest.approx(30.0)
    assert found.low == pytest.approx(30.0) and found.high == pytest.approx(30.0)
    assert (found.start, found.end) == (pytest.approx(800.0), pytest.approx(859.0))
    assert found.tells


def test_the_interval_covers_the_true_slope_about_nine_times_in_ten():
    rng = np.random.default_rng(7)
    seconds = np.linspace(0, 300, 80)
    covered = 0
    for _ in range(400):
        values = 1000.0 + 0.2 * seconds + rng.normal(0, 50, len(seconds))
        found = sustain.drift("ttft_ms", seconds, values)
        covered += found.low <= 12.0 <= found.high
    assert 0.85 <= covered / 400 <= 0.95


def test_a_flat_level_shows_no_drift():
    seconds = np.linspace(0, 60, 50)
    found = sustain.drift("tps", seconds, np.full(50, 14.0))
    assert found.slope_per_min == pytest.approx(0.0, abs=1e-9) and not found.tells


def test_too_few_points_or_no_spread_in_time_give_no_slope():
    assert math.isnan(sustain.drift("itl_ms", np.array([1.0, 2.0]), np.array([3.0, 4.0])).low)
    same = sustain.drift("itl_ms", np.array([5.0, 5.0, 5.0]), np.array([1.0, 2.0, 3.0]))
    assert math.isnan(same.slope_per_min)


def test_a_window_counts_the_share_of_each_requests_span_it_holds():
    starts, ends = np.array([0.0, 5.0]), np.array([10.0, 15.0])
    tokens = np.array([100.0, 100.0])
    # the first request half inside [5, 10], the second half: 100 tokens over 5 s
    assert sustain.window_throughput(starts, ends, tokens, (5.0, 10.0)) == pytest.approx(20.0)


def test_the_whole_span_counts_every_token_once():
    starts, ends = np.array([0.0, 2.0, 4.0]), np.array([6.0, 8.0, 10.0])
    tokens = np.array([60.0, 60.0, 60.0])
    assert sustain.window_throughput(starts, ends, tokens, (0.0, 10.0)) == pytest.approx(18.0)


def test_the_edge_windows_are_a_minute_or_a_quarter_of_a_shorter_level():
    assert sustain.edge_window(600.0) == 60.0
    assert sustain.edge_window(60.0) == 15.0
