"""--tolerance: each figure's default, the NAME:[+|-]PERCENT% syntax, and its one-line errors."""

from __future__ import annotations

import pytest

from analysis.compare.tolerances import BY_NAME, COMPARED, Tolerance, defaults, parse
from analysis.errors import InputError


def test_latencies_tolerate_10_percent_higher_throughputs_10_percent_lower_failures_1_point():
    found = defaults()
    assert (
        found["ttft_p90_ms"] == found["itl_mean_ms"] == found["latency_p50_s"] == Tolerance(10, "+")
    )
    assert found["tps_mean"] == found["output_tok_s"] == Tolerance(10, "-")
    assert found["failure_ratio"] == Tolerance(1, "+")


def test_the_figures_compared_are_the_issue_s():
    assert list(BY_NAME) == [
        "ttft_mean_ms", "ttft_p50_ms", "ttft_p90_ms", "itl_mean_ms", "itl_p50_ms", "itl_p90_ms",
        "latency_p50_s", "latency_p90_s", "tps_mean", "output_tok_s", "failure_ratio",
        "ttfo_mean_ms", "ttfo_p50_ms", "ttfo_p90_ms", "answered_share",
    ]  # fmt: skip


def test_only_ttfo_and_the_answered_share_wait_for_a_thinking_run():
    assert [c.name for c in COMPARED if c.thinking] == [
        "ttfo_mean_ms", "ttfo_p50_ms", "ttfo_p90_ms", "answered_share",
    ]  # fmt: skip


def test_a_fall_of_the_answered_share_beyond_1_point_is_worse_by_default():
    assert defaults()["answered_share"] == Tolerance(1, "-")
    assert defaults()["ttfo_p90_ms"] == Tolerance(10, "+")


def test_no_spec_gives_the_defaults():
    assert parse(None) == defaults()


def test_an_entry_sets_its_figure_s_limit_and_direction_and_leaves_the_others():
    found = parse("ttft_p90_ms:+5%,output_tok_s:-2.5%")
    assert found["ttft_p90_ms"] == Tolerance(5, "+")
    assert found["output_tok_s"] == Tolerance(2.5, "-")
    assert found["ttft_p50_ms"] == defaults()["ttft_p50_ms"]


def test_an_entry_without_a_sign_keeps_the_figure_s_own_direction():
    found = parse("tps_mean:20%, ttft_mean_ms:20%")
    assert found["tps_mean"] == Tolerance(20, "-") and found["ttft_mean_ms"] == Tolerance(20, "+")


def test_a_sign_may_turn_a_figure_s_direction():
    assert parse("output_tok_s:+5%")["output_tok_s"] == Tolerance(5, "+")


def test_a_family_sets_every_figure_of_it():
    found = parse("itl:+25%")
    assert {name for name, t in found.items() if t == Tolerance(25, "+")} == {
        "itl_mean_ms", "itl_p50_ms", "itl_p90_ms",
    }  # fmt: skip


@pytest.mark.parametrize("spec", ["ttft:+30%,ttft_p90_ms:+5%", "ttft_p90_ms:+5%,ttft:+30%"])
def test_a_figure_named_alone_wins_over_its_family_in_either_order(spec):
    found = parse(spec)
    assert found["ttft_p90_ms"] == Tolerance(5, "+") and found["ttft_p50_ms"] == Tolerance(30, "+")


def test_the_shares_tolerances_are_in_points():
    assert parse("failure_ratio:+0.5%")["failure_ratio"] == Tolerance(0.5, "+")
    shares = ("failure_ratio", "answered_share")
    assert not any(BY_NAME[name].relative for name in shares)
    assert all(c.relative for c in COMPARED if c.name not in shares)


@pytest.mark.parametrize(
    ("spec", "says"),
    [
        ("ttft_p90_ms=10%", "is not NAME:[+|-]PERCENT%"),
        ("ttft_p90_ms:+10", "is not NAME:[+|-]PERCENT%"),
        ("ttft_p90_ms:+-10%", "is not NAME:[+|-]PERCENT%"),
        ("ttft_p99_ms:+10%", "unknown figure 'ttft_p99_ms'"),
        ("ttft_p90_ms:+10%,ttft_p90_ms:+5%", "'ttft_p90_ms' is given twice"),
        ("", "empty"),
    ],
)
def test_a_bad_spec_is_one_line_naming_what_is_wrong(spec, says):
    with pytest.raises(InputError) as raised:
        parse(spec)
    assert says in str(raised.value) and "\n" not in str(raised.value)
    assert str(raised.value).startswith("--tolerance: ")


def test_a_tolerance_reads_as_its_syntax():
    assert Tolerance(10, "+").text == "+10%" and Tolerance(2.5, "-").text == "-2.5%"
