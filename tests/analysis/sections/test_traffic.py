"""Shaped traffic in the report: rates in the target's time, the arrivals' coefficient of
variation, the lengths each level achieved, and the expected beside the served prefix cache."""

from __future__ import annotations

import warnings

import pandas as pd
import pytest

from analysis.cli import main
from analysis.figures.metrics import Settings, summarize
from analysis.reading.load import load
from tests.analysis_synthetic import (
    arrival_manifest,
    closed_loop_level,
    make_record,
    markdown_table,
    open_loop_level,
    write_run,
)

SETTINGS = Settings(bootstrap_resamples=0)
SECTION = "Request lengths and the prefix cache"


def report(tmp_path, *runs) -> str:
    out = tmp_path / "out"
    assert main([str(r) for r in runs] + ["--out", str(out), "--no-charts", "--quiet"]) == 0
    return (out / "report.md").read_text()


def target_time_manifest(rates: list[float], pool: int) -> dict:
    fields = arrival_manifest(rates, pool)
    fields["arrival"] = {**fields["arrival"], "time": "target", "process": "gamma"}
    return fields


def test_rates_in_target_time_are_taken_as_they_are(tmp_path):
    records = open_loop_level(16, 0, 1000.0, interval=0.025, count=40, latency=0.1)
    run = write_run(
        tmp_path / "r",
        "sim",
        records,
        time_scale=10.0,
        manifest_fields=target_time_manifest([4], 16),
    )
    row = summarize(load([run]), SETTINGS).iloc[0]
    assert row["offered_rps"] == 4.0  # per simulated second, as asked
    assert row["measured_rps"] == pytest.approx(40 / ((39 * 0.025 + 0.1) * 10))


def test_the_arrival_cv_is_that_of_the_scheduled_gaps(tmp_path):
    even = open_loop_level(8, 0, 1000.0, interval=0.1, count=30, latency=0.1)
    uneven = open_loop_level(8, 1, 2000.0, interval=0.1, count=30, latency=0.1)
    for i, record in enumerate(uneven):  # gaps alternate 0.05 and 0.15 s: CV 0.5
        record["scheduled_time"] = 2000.0 + 0.2 * (i // 2) + 0.05 * (i % 2)
    run = write_run(
        tmp_path / "r", "arr", even + uneven, manifest_fields=target_time_manifest([10, 20], 8)
    )
    cvs = summarize(load([run]), SETTINGS).set_index("offered_rps")["arrival_cv"]
    assert cvs[10.0] == pytest.approx(0.0, abs=1e-6)
    assert cvs[20.0] == pytest.approx(0.5, abs=0.02)
    assert "Arrival CV" in report(tmp_path, run)


def arrival_cvs(tmp_path, schedules: list[list[float]]) -> list[float]:
    """The arrival CV of one open-loop level per schedule (offsets in seconds)."""
    records = []
    for index, offsets in enumerate(schedules):
        level = open_loop_level(
            4, index, 1000.0 * (index + 1), interval=0.5, count=len(offsets), latency=0.1
        )
        for record, offset in zip(level, offsets, strict=True):
            record["scheduled_time"] = 1000.0 * (index + 1) + offset
        records += level
    rates = [float(i + 1) for i in range(len(schedules))]
    run = write_run(tmp_path / "r", "arr", records, manifest_fields=target_time_manifest(rates, 4))
    return list(summarize(load([run]), SETTINGS)["arrival_cv"])


def test_the_arrival_cv_of_two_gaps_is_their_sd_over_their_mean(tmp_path):
    (cv,) = arrival_cvs(tmp_path, [[0.0, 0.1, 0.4]])  # gaps 0.1 and 0.3 s: sd 0.1, mean 0.2
    assert cv == pytest.approx(0.5)


def test_one_gap_or_none_has_no_arrival_cv(tmp_path):
    assert all(pd.isna(cv) for cv in arrival_cvs(tmp_path, [[0.0, 0.3], [0.0]]))


def test_arrivals_all_scheduled_at_once_have_no_arrival_cv(tmp_path):
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # not 0 / 0
        (cv,) = arrival_cvs(tmp_path, [[2.0, 2.0, 2.0]])
    assert pd.isna(cv)


def prefix_run(tmp_path):
    """C=2 with two shared prefixes of 200 tokens: the warm-up and the first request of the
    other prefix are cold, every later request could be served its prefix."""
    records = closed_loop_level(2, 0, 1000.0, ttft=0.1, itl=0.01, tps=50, latency=1.0, per_user=3)
    warmup = make_record(2, 0, ttft=0.1, itl=0.01, tps=50, latency=1.0, start_time=900.0)
    records.insert(0, {**warmup, "phase": "warmup"})
    for i, record in enumerate(records):
        record["start_time"] = 1000.0 + i
        record["prompt_tokens"] = 250 + i  # 250..256
        record["cached_tokens"] = 0 if i < 2 else 192
        record["extra"] = {"prefix": i % 2, "prefix_tokens": 200}
    prompts = {
        "input_tokens": 50,
        "count": 16,
        "token_count": {"method": "server:/tokenize", "exact": True},
        "prefix": {"tokens": 200, "count": 2, "counted": [200, 200]},
    }
    return write_run(tmp_path / "r", "pre", records, manifest_fields={"prompts": prompts})


def test_expected_cache_counts_a_prefix_after_its_first_request_in_the_run(tmp_path):
    row = summarize(load([prefix_run(tmp_path)]), SETTINGS).iloc[0]
    measured_prompts = sum(250 + i for i in range(1, 7))
    assert row["expected_cached_pct"] == pytest.approx(5 * 200 / measured_prompts * 100)
    assert row["cached_prompt_pct"] == pytest.approx(5 * 192 / measured_prompts * 100)


def test_the_section_sets_lengths_and_expected_beside_served_cache(tmp_path):
    text = report(tmp_path, prefix_run(tmp_path))
    assert SECTION in text
    assert "synthetic prompts, 50 tokens in, after one of 2 shared prefixes of 200 tokens" in text
    lengths = markdown_table(text, "pre: lengths")
    assert lengths[0][:4] == ["Level", "n", "Prompt mean", "Prompt sd"]
    assert lengths[1][:3] == ["C=2", "6", "253.5"]
    cache = markdown_table(text, "pre: expected and served cache")
    assert cache[0] == ["Level", "n", "Expected cached", "Served (usage)", "Server hit rate"]
    assert cache[1][2:4] == ["65.7%", "63.1%"]


def test_runs_with_prompts_not_made_to_measure_have_no_such_section(tmp_path):
    records = closed_loop_level(1, 0, 1000.0, ttft=0.1, itl=0.01, tps=50, latency=1.0)
    assert SECTION not in report(tmp_path, write_run(tmp_path / "r", "plain", records))


def test_a_trace_lines_own_expected_cache_is_read_from_its_record(tmp_path):
    records = open_loop_level(64, 0, 1000.0, interval=0.1, count=4, latency=0.5)
    for record, reused in zip(records, [0, 1, 2, 1], strict=True):
        record.update(prompt_tokens=1100, cached_tokens=512 * reused)
        record["extra"] = {"expected_cached_tokens": 512 * reused, "trace_line": 1}
    fields = target_time_manifest([10], 64)
    fields["prompts"] = {
        "trace": {"path": "t.jsonl", "format": "mooncake", "lines": 4, "span_s": 0.3},
        "token_count": {},
    }
    run = write_run(tmp_path / "r", "tr", records, manifest_fields=fields)
    row = summarize(load([run]), SETTINGS).iloc[0]
    assert row["expected_cached_pct"] == pytest.approx(4 * 512 / 4400 * 100)
    text = report(tmp_path, run)
    assert "replayed trace `t.jsonl` (mooncake, 4 lines" in text
    assert not pd.isna(row["prompt_tokens_sd"])


def shares_of(tmp_path, figures: list[tuple[float | None, float | None, float | None]]) -> dict:
    """The cache shares of one C=1 level whose requests have these (prompt, cached, expected)
    token counts (None: the record does not say)."""
    records = closed_loop_level(
        1, 0, 1000.0, ttft=0.1, itl=0.01, tps=50, latency=1.0, per_user=len(figures)
    )
    for record, (prompt, cached, expected) in zip(records, figures, strict=True):
        record.update(prompt_tokens=prompt, cached_tokens=cached)
        if expected is not None:
            record["extra"] = {"expected_cached_tokens": expected, "trace_line": 1}
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)  # no 0 / 0 on the way
        row = summarize(load([write_run(tmp_path / "r", "c", records)]), SETTINGS).iloc[0]
    return {"served": row["cached_prompt_pct"], "expected": row["expected_cached_pct"]}


def test_cache_shares_count_only_requests_that_report_both_figures(tmp_path):
    # the second request's prompt has no cached or expected figure: it is left out of both
    shares = shares_of(tmp_path, [(1000, 500, 250), (1000, None, None), (None, 300, 300)])
    assert shares == {"served": pytest.approx(50.0), "expected": pytest.approx(25.0)}


def test_a_level_whose_requests_report_no_cache_figures_has_no_shares(tmp_path):
    shares = shares_of(tmp_path, [(1000, None, None), (None, 300, 300)])
    assert pd.isna(shares["served"]) and pd.isna(shares["expected"])
