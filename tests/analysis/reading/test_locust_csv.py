"""Fallback to Locust's --csv output when a run left no raw records."""

from __future__ import annotations

import pandas as pd
import pytest

from analysis.cli import main
from analysis.reading.locust_csv import classify

HEADER = (
    "Type,Name,Request Count,Failure Count,Median Response Time,Average Response Time,"
    "Min Response Time,Max Response Time,Average Content Size,Requests/s,Failures/s,"
    "50%,66%,75%,80%,90%,95%,98%,99%,99.9%,99.99%,100%"
)
ROWS = [
    "TTFT,c=1,10,0,270,270.57,250,300,0,0.06,0,270,280,280,290,300,300,300,300,300,300,300",
    "ITL,c=1,10,0,120,121.87,119,125,0,0.06,0,120,121,122,123,125,125,125,125,125,125,125",
    "E2E,c=1,10,0,15000,15750.0,15000,16000,128,0.06,0,16000,16000,16000,16000,16000,16000,16000,16000,16000,16000,16000",
    "TTFT,c=2,20,0,360,357.77,330,420,0,0.12,0,360,370,380,390,400,410,420,420,420,420,420",
    "E2E,c=2,21,1,16000,15740.0,15000,16000,128,0.12,0,16000,16000,16000,16000,16000,16000,16000,16000,16000,16000,16000",
    "GET,/health,3,0,1,1,1,1,2,0,0,1,1,1,1,1,1,1,1,1,1,1",
    ",Aggregated,74,1,300,5000,1,16000,50,0.3,0,300,400,16000,16000,16000,16000,16000,16000,16000,16000,16000",
]


@pytest.fixture
def locust_run(tmp_path):
    run = tmp_path / "locust-only"
    run.mkdir()
    (run / "run_stats.csv").write_text("\n".join([HEADER, *ROWS]) + "\n")
    return run


@pytest.mark.parametrize(
    "request_type, name, expected",
    [
        ("TTFT", "c=4", ("ttft", 4)),
        ("E2E", "chat C16", ("latency", 16)),
        ("ITL", "concurrency 8", ("itl", 8)),
        ("POST", "/v1/chat/completions", (None, None)),
    ],
)
def test_rows_are_matched_to_metric_and_level_by_name(request_type, name, expected):
    assert classify(request_type, name) == expected


def test_stats_csv_becomes_summary_rows_with_exact_means(locust_run, tmp_path):
    out = tmp_path / "out"
    assert main([str(locust_run), "--out", str(out), "--no-charts", "--quiet"]) == 0
    summary = pd.read_csv(out / "summary.csv").set_index("concurrency")
    assert list(summary.index) == [1, 2]
    assert summary.loc[1, "ttft_ms_mean"] == pytest.approx(270.57)
    assert summary.loc[1, "ttft_ms_p90"] == pytest.approx(300)
    assert summary.loc[1, "latency_s_mean"] == pytest.approx(15.75)
    assert summary.loc[2, "system_rps"] == pytest.approx(2 / 15.74)
    assert (summary.loc[2, "n"], summary.loc[2, "failures"]) == (20, 1)
    assert (summary["percentile_method"] == "locust-bucketed").all()
    assert summary["tps_mean"].isna().all()  # Locust's CSV has no token counts


def test_report_says_the_percentiles_are_bucketed(locust_run, tmp_path):
    out = tmp_path / "out"
    assert main([str(locust_run), "--out", str(out), "--no-charts", "--quiet"]) == 0
    report = (out / "report.md").read_text()
    assert "**Locust CSV input**" in report and "bucketed approximations" in report
    assert "1 Locust CSV row(s) named neither a metric and a level (c=N): ignored" in report


def test_warm_up_rows_never_stand_for_their_level(tmp_path):
    """Locust names the warm-up requests of a level ``c=1 warmup``; they are not the level."""
    warmup = "TTFT,c=1 warmup,1,0,325,325.70,325,325,0,0.06,0" + ",325" * 11
    run = tmp_path / "with-warmup"
    run.mkdir()
    (run / "loc_stats.csv").write_text("\n".join([HEADER, warmup, *ROWS]) + "\n")
    out = tmp_path / "out"
    assert main([str(run), "--out", str(out), "--no-charts", "--quiet"]) == 0
    summary = pd.read_csv(out / "summary.csv").set_index("concurrency")
    assert summary.loc[1, "ttft_ms_mean"] == pytest.approx(270.57)
    assert "1 Locust CSV warm-up row(s) left out" in (out / "report.md").read_text()


def test_levels_come_out_by_concurrency_whatever_order_the_file_lists_them(tmp_path):
    run = tmp_path / "descending"
    run.mkdir()
    descending = [row for row in ROWS if ",c=2," in row] + [row for row in ROWS if ",c=1," in row]
    (run / "run_stats.csv").write_text("\n".join([HEADER, *descending]) + "\n")
    out = tmp_path / "out"
    assert main([str(run), "--out", str(out), "--no-charts", "--quiet"]) == 0
    assert list(pd.read_csv(out / "summary.csv")["concurrency"]) == [1, 2]


def test_a_stats_file_level_is_one_run_with_its_itl_samples_and_no_warm_up(locust_run, tmp_path):
    out = tmp_path / "out"
    assert main([str(locust_run), "--out", str(out), "--no-charts", "--quiet"]) == 0
    summary = pd.read_csv(out / "summary.csv").set_index("concurrency")
    assert list(summary["runs"]) == [1, 1]
    assert list(summary["itl_n"]) == [10, 0]  # c=2 has no ITL row
    assert list(summary["warmup_excluded"]) == [0, 0]
