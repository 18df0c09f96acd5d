"""TTFO bounds (a thinking model's time to answer) in --slo, --check and --find-capacity's
probes: one table of bound names, and a request that never answered cannot meet a TTFO bound."""

from __future__ import annotations

import math

import pytest

from analysis.cli import main
from analysis.figures import probe, slo
from analysis.figures.metrics import Settings, summarize
from analysis.reading.load import load
from sparkload.records import EXIT_CHECK_FAILED
from tests.analysis_synthetic import make_record, write_run

SETTINGS = Settings(bootstrap_resamples=0)


@pytest.mark.parametrize(
    ("text", "stat", "threshold"),
    [
        ("ttfo_p90_ms<=800", "p90", 800.0),
        ("ttfo_p50_ms<=800", "p50", 800.0),
        ("ttfo_p99_ms<800", "p99", 800.0),
        ("ttfo_mean_ms<=800", "mean", 800.0),
        ("ttfo_p90<=800", "p90", 800.0),  # ms by default, as TTFT
        ("ttfo_p90_s<=0.8", "p90", 800.0),
    ],
)
def test_ttfo_bounds_read_like_ttft_bounds(text, stat, threshold):
    (bound,) = slo.parse(text)
    assert (bound.field, bound.stat, bound.threshold, bound.per_request) == (
        "ttfo",
        stat,
        pytest.approx(threshold),
        True,
    )
    assert bound.name == f"ttfo_{stat}_ms"


def test_the_bound_names_are_one_table():
    assert list(slo.BOUND_METRICS) == [
        "ttft",
        "itl",
        "tps",
        "latency",
        "ttfo",
        "server_queue",
        "server_ttft",
        "server_itl",
        "acceptance_length",
        "acceptance_rate",
    ]
    with pytest.raises(slo.InputError, match="tps takes no unit"):
        slo.parse("tps_p10_ms>=15")


def thinking_level(level: int, index: int, t0: float, ttfos: list[float | None]) -> list[dict]:
    """Requests of one level with TTFT 100 ms and the given TTFOs (None: it reasoned until
    max_tokens and never answered)."""
    return [
        make_record(
            level,
            index,
            ttft=0.1,
            itl=0.01,
            tps=50.0,
            latency=2.0,
            start_time=t0 + i,
            user=i % level,
            ttfo=ttfo,
            reasoning_tokens=64,
            answer_tokens=64 if ttfo is not None else 0,
            reasoning_counted_by="usage",
            finish_reason="stop" if ttfo is not None else "length",
        )
        for i, ttfo in enumerate(ttfos)
    ]


@pytest.fixture
def thinking_run(tmp_path):
    """C=1: TTFO 0.5-0.95 s, all answered; C=2: the same but two of ten never answered."""
    answered = [0.5 + 0.05 * i for i in range(10)]
    records = thinking_level(1, 0, 1000.0, answered)
    records += thinking_level(2, 1, 2000.0, [*answered[:8], None, None])
    levels = [
        {"index": i, "concurrency": c, "expected": 10, "started_at": "2026-01-01T00:00:00Z"}
        for i, c in enumerate((1, 2))
    ]
    return write_run(
        tmp_path / "results", "qwen-think", records, manifest_fields={"levels": levels}
    )


def evaluated(run, spec: str):
    dataset = load([run])
    bounds = slo.parse(spec)
    return slo.evaluate(dataset.records, summarize(dataset, SETTINGS), bounds, SETTINGS), bounds


def test_a_request_that_never_answered_is_not_good_under_a_ttfo_bound(thinking_run):
    levels, _ = evaluated(thinking_run, "ttfo_p50_ms<=2000")
    assert list(levels["good"]) == [10, 8]
    assert list(levels["goodput_pct"]) == pytest.approx([100.0, 80.0])
    assert list(levels["meets_slo"]) == [True, True]  # the p50 is still an answered request's


def test_a_level_where_more_than_a_tenth_never_answered_has_an_infinite_ttfo_p90(thinking_run):
    levels, _ = evaluated(thinking_run, "ttfo_p90_ms<=5000")
    assert levels["ttfo_p90_ms<=5000"].iloc[0] == pytest.approx(905.0)
    assert math.isinf(levels["ttfo_p90_ms<=5000"].iloc[1])
    assert list(levels["meets_slo"]) == [True, False]
    means, _ = evaluated(thinking_run, "ttfo_mean_ms<=5000")
    assert math.isinf(means["ttfo_mean_ms<=5000"].iloc[1])


def test_the_reports_ttfo_is_over_the_requests_that_answered(thinking_run):
    row = summarize(load([thinking_run]), SETTINGS).iloc[1]
    assert (row["no_answer"], row["ttfo_ms_p90"]) == (2, pytest.approx(0.5e3 + 0.05e3 * 6.3))


def check(capsys, *argv) -> tuple[int, list[str]]:
    code = main([*map(str, argv), "--quiet"])
    return code, capsys.readouterr().out.splitlines()


def test_check_fails_on_ttfo_where_ttft_alone_passes(thinking_run, capsys):
    assert check(capsys, thinking_run, "--check", "ttft_p90_ms<=200") == (
        0,
        ["check passed: 1 bound holds at every level (2 levels)"],
    )
    code, lines = check(capsys, thinking_run, "--check", "ttft_p90_ms<=200,ttfo_p90_ms<=800")
    assert code == EXIT_CHECK_FAILED
    assert lines == [
        "check failed: qwen-think C=1: ttfo_p90_ms = 905 > 800",
        "check failed: qwen-think C=2: ttfo_p90_ms: 2 of 10 requests never answered (infinite); "
        "the bound is <= 800",
    ]


def test_check_says_no_request_answered_where_none_did(tmp_path, capsys):
    records = thinking_level(1, 0, 1000.0, [None] * 4)
    levels = [{"index": 0, "concurrency": 1, "expected": 4, "started_at": "2026-01-01T00:00:00Z"}]
    run = write_run(tmp_path, "mute", records, manifest_fields={"levels": levels})
    code, lines = check(capsys, run, "--check", "ttfo_p90_ms<=3000")
    assert code == EXIT_CHECK_FAILED
    assert lines == [
        "check failed: mute C=1: ttfo_p90_ms: no request answered (0 of 4); the bound is <= 3000"
    ]


def test_a_ttfo_bound_on_records_without_ttfo_says_so(tmp_path, capsys):
    old = [
        make_record(1, 0, ttft=0.1, itl=0.01, tps=50.0, latency=2.0, start_time=i) for i in range(3)
    ]
    code, lines = check(capsys, write_run(tmp_path, "old", old), "--check", "ttfo_p90_ms<=800")
    assert code == EXIT_CHECK_FAILED
    assert lines == ["check failed: old C=1: ttfo_p90_ms = nan (no ok request records ttfo) > 800"]


def test_a_capacity_probe_is_judged_on_ttfo_as_check_judges_it(thinking_run):
    levels, bounds = evaluated(thinking_run, "ttfo_p90_ms<=1000")
    dataset = load([thinking_run])
    first, second = (probe.level_verdict(dataset, levels, bounds, i) for i in (0, 1))
    assert first.meets and first.figures == {"ttfo_p90_ms<=1000": pytest.approx(905.0)}
    assert not second.meets and second.figures == {"ttfo_p90_ms<=1000": None}
    assert second.breaches == [
        "ttfo_p90_ms: 2 of 10 requests never answered (infinite); the bound is <= 1000"
    ]


def test_check_options_accept_a_ttfo_bound(capsys):
    assert main(["--check-options", "--check", "ttfo_p90_ms<=3000"]) == 0
    assert main(["--check-options", "--slo", "ttfo_p99_ms<=3000,ttft_p90_ms<=500"]) == 0
