"""Open-loop runs: levels by offered rate, offered vs achieved, and no figure built on the pool."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from analysis.cli import main
from analysis.figures.metrics import Settings, in_flight, summarize
from analysis.reading.load import load
from tests.analysis_synthetic import (
    arrival_manifest,
    closed_loop_level,
    markdown_table,
    open_loop_level,
    write_run,
)
from tests.report_files import section_number

C_FIGURES = ["throughput_rps", "system_rps", "total_tps", "saturation_pct"]


def _report(tmp_path, *runs) -> tuple[pd.DataFrame, str]:
    out = tmp_path / "out"
    assert main([str(r) for r in runs] + ["--out", str(out), "--no-charts", "--quiet"]) == 0
    return pd.read_csv(out / "summary.csv"), (out / "report.md").read_text()


def _issue_run(tmp_path):
    """The issue's run: a pool of 512 users, 150 req/s offered; 2,213 requests sent over 15 s,
    1.4 s each, so the level's wall time is 16.39 s and 135 req/s were achieved."""
    records = open_loop_level(
        512, 0, 1000.0, interval=15 / 2213, count=2213, latency=1.4, queue_wait=0.0025
    )
    return write_run(tmp_path / "r", "arr", records, manifest_fields=arrival_manifest([150], 512))


def test_the_issues_run_shows_150_offered_135_achieved_and_nothing_built_on_the_pool(tmp_path):
    summary, report = _report(tmp_path, _issue_run(tmp_path))
    row = summary.iloc[0]
    wall = 15 * 2212 / 2213 + 1.4
    assert (row["loop"], row["offered_rps"], row["n"]) == ("open", 150, 2213)
    assert row["measured_rps"] == pytest.approx(2213 / wall) == pytest.approx(135.0, abs=0.1)
    assert row["measured_total_tps"] == pytest.approx(2213 * 128 / wall)
    assert pd.isna(row["concurrency"]) and row[C_FIGURES].isna().all()
    assert 512 not in set(row[summary.select_dtypes("number").columns])
    table = markdown_table(report, "arr: offered vs achieved")
    assert table[1][:3] == ["150", "134.99", "90.0%"]
    assert section_number(report, "Open loop: offered vs achieved")
    assert "C=512" not in report and "Concurrency effect" not in report


def test_each_offered_rate_of_a_run_is_a_level_of_its_own(tmp_path):
    rates = [2.0, 4.0, 8.0, 16.0]
    records = []
    for index, rate in enumerate(rates):
        records += open_loop_level(
            64, index, 1000.0 + 100 * index, interval=1 / rate, count=int(10 * rate), latency=0.5
        )
    run = write_run(tmp_path / "r", "sweep", records, manifest_fields=arrival_manifest(rates, 64))
    summary = summarize(load([run]), Settings(bootstrap_resamples=0))
    assert list(summary["offered_rps"]) == rates
    assert list(summary["n"]) == [20, 40, 80, 160]
    # achieved = n / (last send + latency − first send)
    expected = [
        n / ((n - 1) / rate + 0.5) for n, rate in zip([20, 40, 80, 160], rates, strict=True)
    ]
    assert list(summary["measured_rps"]) == pytest.approx(expected)


def test_in_flight_is_a_sweep_over_sends_and_completions():
    # [0, 2], [1, 3], [2, 4]: the first ends as the third starts, so at most two overlap
    sweep = in_flight(np.array([0.0, 1.0, 2.0]), np.array([2.0, 3.0, 4.0]))
    assert (sweep.peak, sweep.wall_s, sweep.request_seconds) == (2, 4.0, 6.0)


def test_in_flight_and_send_lateness_of_a_level(tmp_path):
    records = open_loop_level(8, 0, 1000.0, interval=0.5, count=40, latency=1.2)
    for i, record in enumerate(records):
        record["queue_wait"] = 0.001 * (i + 1)  # 1 … 40 ms
    run = write_run(tmp_path / "r", "arr", records, manifest_fields=arrival_manifest([2.0], 8))
    row = summarize(load([run]), Settings(bootstrap_resamples=0)).iloc[0]
    # every 0.5 s a request starts that lasts 1.2 s: three overlap at once, at most
    assert row["inflight_peak"] == 3
    assert row["inflight_mean"] == pytest.approx(40 * 1.2 / (39 * 0.5 + 1.2))
    assert row["send_lateness_ms_p50"] == pytest.approx(20.5)
    assert row["send_lateness_ms_p99"] == pytest.approx(np.quantile(np.arange(1, 41), 0.99))


def test_a_manifest_from_before_per_level_rates_gives_its_single_rate(tmp_path):
    records = open_loop_level(16, 0, 1000.0, interval=0.25, count=20, latency=1.0)
    manifest = {"mode": "arrival", "arrival": {"rate": 4, "users": 16, "duration": 5}}
    run = write_run(tmp_path / "r", "old", records, manifest_fields=manifest)
    row = summarize(load([run]), Settings(bootstrap_resamples=0)).iloc[0]
    assert (row["loop"], row["offered_rps"]) == ("open", 4.0)


def test_a_time_scaled_run_states_offered_and_achieved_in_simulated_time(tmp_path):
    records = open_loop_level(16, 0, 1000.0, interval=0.25, count=20, latency=1.0)
    run = write_run(
        tmp_path / "r", "sim", records, time_scale=10.0, manifest_fields=arrival_manifest([4], 16)
    )
    row = summarize(load([run]), Settings(bootstrap_resamples=0)).iloc[0]
    assert row["offered_rps"] == pytest.approx(0.4)
    assert row["measured_rps"] == pytest.approx(20 / ((19 * 0.25 + 1.0) * 10))


def test_level_flags_and_notes_name_open_loop_levels_by_rate(tmp_path):
    records = open_loop_level(8, 0, 1000.0, interval=0.5, count=10, latency=1.0)
    records += open_loop_level(8, 1, 1100.0, interval=0.25, count=20, latency=1.0)
    manifest = arrival_manifest([2.0, 4.0], 8)
    manifest["levels"][1]["client_flags"] = ["client CPU 95 %"]
    run = write_run(tmp_path / "r", "arr", records, manifest_fields=manifest)
    dataset = load([run])
    summary = summarize(dataset, Settings(bootstrap_resamples=0))
    assert list(summary["client_flags"]) == ["", "client CPU 95 %"]
    assert "level offered 4 req/s: client flag client CPU 95 %" in dataset.runs[0].notes


def test_a_mixed_report_keeps_each_label_in_its_own_sections(tmp_path):
    closed = write_run(
        tmp_path / "r",
        "fp8",
        closed_loop_level(1, 0, 1000.0, ttft=0.1, itl=0.05, tps=20, latency=6.0)
        + closed_loop_level(4, 1, 2000.0, ttft=0.2, itl=0.06, tps=15, latency=8.0),
        stamp="20260101T000001Z",
    )
    summary, report = _report(tmp_path, closed, _issue_run(tmp_path))
    assert list(zip(summary["label"], summary["loop"], strict=True)) == [
        ("fp8", "closed"),
        ("fp8", "closed"),
        ("arr", "open"),
    ]
    assert list(summary["concurrency"].iloc[:2]) == [1, 4]
    saturation = markdown_table(report, "Saturation index")
    assert saturation[0] == ["Concurrency", "fp8"]  # the open-loop label is not a column
    assert [row[0] for row in markdown_table(report, "Mean TPS per stream (tok/s)")[1:]] == ["fp8"]
    assert "**arr: offered vs achieved**" in report and "**fp8: offered vs achieved**" not in report
    assert "`20260101T000000Z-arr`: **open loop**" in report


def test_a_level_stopped_early_takes_its_arrival_cv_and_count_from_the_whole_schedule(tmp_path):
    records = open_loop_level(64, 0, 1000.0, interval=0.02, count=100, latency=0.5)
    fields = arrival_manifest([50.0], 64)
    fields["levels"][0]["schedule"] = {"arrivals": 2000, "gap_cv": 2.04}
    summary, report = _report(
        tmp_path, write_run(tmp_path / "r", "cut", records, manifest_fields=fields)
    )
    row = summary.iloc[0]
    assert (row["n"], row["scheduled"]) == (100, 2000)
    assert row["arrival_cv"] == pytest.approx(2.04)
    header, first = markdown_table(report, "cut: offered vs achieved")[:2]
    assert first[header.index("Scheduled")] == "2000"
