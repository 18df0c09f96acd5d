"""--target-precision's targets: what the option takes, what it refuses in one line, and what a
sample reaches of a target (half-width, met, the requests still needed)."""

from __future__ import annotations

import pytest

from sparkload.records import PrecisionTarget, parse_target, reach


def test_a_target_names_a_metric_a_statistic_and_a_share():
    assert parse_target("ttft_p90:5%") == PrecisionTarget("ttft", "p90", 0.05)
    assert parse_target("latency_mean:2.5%") == PrecisionTarget("latency", "mean", 0.025)


def test_the_summarys_column_stem_names_the_same_metric():
    assert parse_target("ttft_ms_p90:5%") == parse_target("ttft_p90:5%")


def test_a_target_says_itself_as_the_option_takes_it():
    assert parse_target("itl_ms_p99:10%").text == "itl_p99:10%"


@pytest.mark.parametrize(
    ("given", "said"),
    [
        ("ttft_p90:0%", "the precision 0% must be more than 0 % and at most 100 %"),
        ("ttft_p90:150%", "the precision 150% must be more than 0 % and at most 100 %"),
        ("ttft_p90:5", "give the precision in percent after a colon, e.g. 'ttft_p90:5%'"),
        ("ttft_p90", "give the precision in percent after a colon, e.g. 'ttft_p90:5%'"),
        ("ttft_p90:five%", "'five%' is not a percentage, e.g. 'ttft_p90:5%'"),
    ],
)
def test_a_share_that_is_not_a_percentage_above_0_and_at_most_100_is_refused(given, said):
    with pytest.raises(ValueError) as refused:
        parse_target(given)
    assert str(refused.value) == said


def test_an_unknown_statistic_is_refused_with_the_statistics_allowed():
    for given in ("bogus:5%", "ttft_p95:5%"):
        with pytest.raises(ValueError, match="is not a statistic: .* one of mean, p50, p90, p99"):
            parse_target(given)


def test_an_unknown_metric_is_refused_with_the_metrics_allowed():
    with pytest.raises(ValueError, match=r"unknown metric 'ttfx': give one of ttft, ttfo, itl"):
        parse_target("ttfx_p90:5%")


def test_a_p90s_half_width_is_half_its_interval_over_the_p90():
    """1..29: p90 at 26.2 (linear), interval x(23)–x(29) = 23–29: ±3 / 26.2 = 11.45 %."""
    reached = reach(parse_target("ttft_p90:10%"), [float(v) for v in range(1, 30)])
    assert (reached.value, reached.low, reached.high) == pytest.approx((26.2, 23.0, 29.0))
    assert reached.half_width == pytest.approx(3 / 26.2)
    assert not reached.met


def test_the_requests_left_follow_the_square_of_the_precision_ratio():
    """29 values at ±11.45 % against 10 %: 29 · 1.1450² = 38.02 in all, 10 more."""
    reached = reach(parse_target("ttft_p90:10%"), [float(v) for v in range(1, 30)])
    assert reached.requests_left == 10


def test_a_target_within_reach_is_met_and_needs_no_more():
    reached = reach(parse_target("ttft_p90:12%"), [float(v) for v in range(1, 30)])
    assert reached.met and reached.requests_left == 0


def test_too_few_values_for_an_interval_need_as_many_as_give_one():
    reached = reach(parse_target("ttft_p90:5%"), [1.0] * 10)
    assert reached.half_width is None and not reached.met
    assert reached.requests_left == 19  # a p90's interval needs 29


def test_a_means_precision_is_its_normal_interval():
    reached = reach(parse_target("tps_mean:50%"), [1.0, 2.0, 3.0, 4.0, 5.0])
    assert reached.value == 3.0
    assert reached.half_width == pytest.approx(1.16309 / 3, abs=1e-5)
    assert reached.met


def test_no_values_reach_nothing():
    reached = reach(parse_target("ttft_p90:5%"), [])
    assert (reached.requests, reached.value, reached.met) == (0, None, False)
