"""The throughput–latency picture: a point per level, its SLO verdict, the capacity point."""

from __future__ import annotations

import json

import pytest

from analysis.cli import main
from analysis.figures import slo
from analysis.figures.metrics import Settings, summarize
from analysis.figures.operating_points import capacity_findings, of_dataset
from analysis.reading.load import load
from analysis.views.charts import throughput_latency_charts
from tests.analysis_synthetic import (
    arrival_manifest,
    closed_loop_level,
    open_loop_level,
    write_run,
)

SETTINGS = Settings(bootstrap_resamples=0)
# per-stream TPS falls and TTFT rises with C, as on a Spark
LEVELS = {1: (0.2, 50.0, 2.6), 2: (0.3, 45.0, 2.9), 4: (0.5, 35.0, 3.7), 8: (0.9, 20.0, 6.5)}
CAPACITY = {
    "bounds": "ttft_p90_ms<=800",
    "over": "concurrency",
    "capacity": 4,
    "probes": [
        {"level_index": 0, "value": 1, "meets": True},
        {"level_index": 1, "value": 2, "meets": True},
        {"level_index": 2, "value": 4, "meets": True},
        {"level_index": 3, "value": 8, "meets": False},
    ],
    "limit": {"level_index": 3, "value": 8, "meets": False},
}


def ladder_run(root, label="x", capacity=None):
    records, t0 = [], 1000.0
    for index, (c, (ttft, tps, latency)) in enumerate(LEVELS.items()):
        records += closed_loop_level(
            c, index, t0, ttft=ttft, itl=0.02, tps=tps, latency=latency, per_user=4
        )
        t0 += 4 * latency + 5
    levels = [
        {"index": i, "concurrency": c, "expected": 4 * c, "started_at": ""}
        for i, c in enumerate(LEVELS)
    ]
    fields = {"levels": levels, "capacity": capacity}
    return write_run(root, label, records, manifest_fields=fields)


def points_of(runs, bounds=None):
    dataset = load(runs)
    found, _ = of_dataset(dataset, summarize(dataset, SETTINGS), SETTINGS, bounds)
    return found


def test_each_level_is_a_point_of_aggregate_against_per_stream_tokens_and_ttft(tmp_path):
    found = points_of([ladder_run(tmp_path)])
    assert list(found["level"]) == ["C=1", "C=2", "C=4", "C=8"]
    assert list(found["per_stream_tps"]) == pytest.approx([50, 45, 35, 20])
    assert list(found["ttft_ms_p90"]) == pytest.approx([200, 300, 500, 900])
    # Σ output tokens / wall time: C users × 4 requests × 128 tokens / (4 × latency)
    assert list(found["aggregate_tps"]) == pytest.approx(
        [c * 128 / latency for c, (_, _, latency) in LEVELS.items()]
    )


def test_a_level_is_marked_by_whether_it_meets_the_slo(tmp_path):
    found = points_of([ladder_run(tmp_path)], slo.parse("ttft_p90_ms<=600"))
    assert list(found["meets_slo"]) == [True, True, True, False]


def test_without_an_slo_no_level_carries_a_verdict(tmp_path):
    assert points_of([ladder_run(tmp_path)])["meets_slo"].isna().all()


def test_the_capacity_search_marks_the_level_of_its_capacity(tmp_path):
    found = points_of([ladder_run(tmp_path, capacity=CAPACITY)])
    assert list(found["capacity"]) == [False, False, True, False]
    (finding,) = capacity_findings(load([ladder_run(tmp_path / "b", "b", CAPACITY)]).runs[0])
    assert finding.describe() == (
        "**b**: capacity search (`ttft_p90_ms<=800`, over concurrency): capacity **C=4**; "
        "first failing probe: C=8"
    )


def test_a_search_that_found_no_capacity_marks_nothing_and_says_so(tmp_path):
    run = ladder_run(tmp_path, capacity={**CAPACITY, "capacity": None, "limit": None})
    assert not points_of([run])["capacity"].any()
    (finding,) = capacity_findings(load([run]).runs[0])
    assert "no probed level met the bounds" in finding.describe()


@pytest.mark.parametrize(
    "entry",
    [
        {"capacity": "lots", "probes": "none", "limit": 3},
        {"capacity": 4, "over": "rate", "probes": 7},
        {"capacity": 4, "over": "rate", "probes": [{"level_index": [2], "value": 4}]},
    ],
)
def test_a_malformed_capacity_entry_marks_nothing(tmp_path, entry):
    assert not points_of([ladder_run(tmp_path, capacity=entry)])["capacity"].any()


def test_an_open_loop_capacity_marks_the_offered_rate_of_its_probe(tmp_path):
    records = open_loop_level(4, 0, 1000.0, interval=1.0, count=10, latency=1.0)
    records += open_loop_level(4, 1, 1100.0, interval=0.25, count=40, latency=1.5)
    capacity = {
        "bounds": "ttft_p90_ms<=800",
        "over": "rate",
        "capacity": 1.0,
        "probes": [
            {"level_index": 0, "value": 1.0, "meets": True},
            {"level_index": 1, "value": 4.0, "meets": False},
        ],
        "limit": {"level_index": 1, "value": 4.0, "meets": False},
    }
    fields = {**arrival_manifest([1.0, 4.0], 4), "capacity": capacity}
    found = points_of([write_run(tmp_path / "r", "open", records, manifest_fields=fields)])
    assert list(found["level"]) == ["offered 1 req/s", "offered 4 req/s"]
    assert list(found["capacity"]) == [True, False]


def test_the_charts_draw_a_line_per_label_and_mark_slo_and_capacity(tmp_path):
    runs = [ladder_run(tmp_path / "a", "a", CAPACITY), ladder_run(tmp_path / "b", "b")]
    found = points_of(runs, slo.parse("ttft_p90_ms<=600"))
    by_tps, by_ttft = throughput_latency_charts(found)
    assert [s.name for s in by_tps.series] == [
        "a",
        "b",
        "meets the SLO",
        "misses the SLO",
        "capacity (capacity search)",
    ]
    line = by_tps.series[0]
    assert list(line.x) == pytest.approx([50, 45, 35, 20])
    assert line.texts == ["C=1", "C=2", "C=4", "C=8"]
    misses, capacity = by_tps.series[3], by_tps.series[4]
    assert (len(misses.x), misses.style, misses.marker) == (2, "none", "cross")
    assert list(capacity.x) == [35] and capacity.marker == "star"
    assert list(by_ttft.series[0].x) == pytest.approx([200, 300, 500, 900])
    assert by_tps.x_axis == "linear"


def test_the_report_shows_the_points_and_summary_json_holds_them(tmp_path):
    run = ladder_run(tmp_path, capacity=CAPACITY)
    out = tmp_path / "out"
    assert main([str(run), "--out", str(out), "--slo", "ttft_p90_ms<=600", "--quiet"]) == 0
    for name in ("throughput_vs_tps", "throughput_vs_ttft"):
        assert (out / "comparison" / f"{name}.png").stat().st_size > 1000
        assert "Plotly.newPlot" in (out / "comparison" / f"{name}.html").read_text()
    report = (out / "report.md").read_text()
    assert "| x | C=4 | 35.00 |" in report and "| no | capacity |" not in report
    assert "| yes | capacity |" in report
    document = json.loads((out / "summary.json").read_text())
    assert [p["capacity"] for p in document["operating_points"]] == [False, False, True, False]
    assert document["capacity_searches"][0]["value"] == 4


def test_the_capacity_is_described_with_its_goodput_and_what_broke_the_next_probe(tmp_path):
    limit = {"level_index": 3, "value": 8, "meets": False, "breaches": ["ttft_p90_ms = 900 > 800"]}
    dataset = load([ladder_run(tmp_path, "b", {**CAPACITY, "limit": limit})])
    _, (finding,) = of_dataset(dataset, summarize(dataset, SETTINGS), SETTINGS, None)
    assert finding.describe() == (
        "**b**: capacity search (`ttft_p90_ms<=800`, over concurrency): capacity **C=4**, "
        f"goodput 100.0 % ({finding.goodput_rps:.3g} good req/s); first failing probe: C=8 "
        "(ttft_p90_ms = 900 > 800)"
    )
    assert finding.goodput_rps == pytest.approx(4 * 4 / (4 * 3.7), rel=0.05)
