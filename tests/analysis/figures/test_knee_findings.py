"""The knee per label in the report and summary.json: the report's own ladders, a saturating
ladder with the operating points around its knee, a level --refine-knee added, an open-loop
sweep."""

from __future__ import annotations

import json

import pytest

from analysis.cli import main
from analysis.figures.knee import findings
from analysis.figures.metrics import Settings, summarize
from analysis.reading.load import load
from tests.analysis_synthetic import (
    arrival_manifest,
    closed_loop_level,
    open_loop_level,
    write_report_runs,
    write_run,
)

SETTINGS = Settings(bootstrap_resamples=0)
# per-stream TPS at each C: total tok/s 40, 80, 160, 320, 400, 416 (growth 1.25x at 16: knee 8)
SATURATING = {1: 40.0, 2: 40.0, 4: 40.0, 8: 40.0, 16: 25.0, 32: 13.0}


def saturating_run(root, label="sat", refined=(), per_user=3):
    records, t0, levels = [], 1000.0, []
    for index, (c, tps) in enumerate(SATURATING.items()):
        ttft = 0.1 * c
        records += closed_loop_level(
            c, index, t0, ttft=ttft, itl=1 / tps, tps=tps, latency=128 / tps, per_user=per_user
        )
        entry = {"index": index, "concurrency": c, "expected": per_user * c, "started_at": ""}
        if c in refined:
            entry["refines_knee"] = True
        levels.append(entry)
        t0 += per_user * 128 / tps + 5
    return write_run(root, label, records, manifest_fields={"levels": levels})


def test_the_reports_variants_have_the_knee_a_reader_of_its_tables_sees(tmp_path):
    dataset = load(write_report_runs(tmp_path))
    found = {f.label: f for f in findings(summarize(dataset, SETTINGS), dataset)}
    assert found["AWQ-MTP"].knee == 8  # total tok/s growth 2.00, 1.82, 1.74, 1.49
    assert found["FP8"].knee is None and "in proportion" in found["FP8"].reason


def test_the_knee_comes_with_the_operating_points_on_either_side(tmp_path):
    dataset = load([saturating_run(tmp_path)])
    (found,) = findings(summarize(dataset, SETTINGS), dataset)
    assert (found.below.key, found.at.key, found.above.key) == (4, 8, 16)
    assert found.at.level == "C=8" and found.at.throughput_tps == pytest.approx(320.0)
    assert found.above.ttft_ms_p90 == pytest.approx(1600.0)
    assert found.above.itl_ms_p50 == pytest.approx(40.0)
    assert found.slope_before > 0.9 > 0.585 > found.slope_after


def test_a_level_refine_knee_added_is_named_as_such(tmp_path):
    dataset = load([saturating_run(tmp_path, refined=(32,))])
    (found,) = findings(summarize(dataset, SETTINGS), dataset)
    assert found.refined == (32.0,)


def test_an_open_loop_sweep_has_its_knee_over_the_offered_rate(tmp_path):
    rates = [0.5, 1.0, 2.0, 4.0, 8.0]
    records = []
    for index, rate in enumerate(rates):
        # achieved tokens follow the offered rate up to 2/s, then the server holds 2/s
        served = min(rate, 2.0)
        records += open_loop_level(
            32, index, 1000.0 + 100 * index, interval=1 / served, count=20, latency=2.0
        )
    run = write_run(tmp_path, "open", records, manifest_fields=arrival_manifest(rates, 32))
    dataset = load([run])
    (found,) = findings(summarize(dataset, SETTINGS), dataset)
    assert found.loop == "open" and found.knee == 2.0 and found.at.level.endswith("req/s")


def test_summary_json_and_the_report_name_the_knee(tmp_path):
    run = saturating_run(tmp_path, refined=(32,))
    out = tmp_path / "report"
    assert main([str(run), "--out", str(out), "--no-charts", "--bootstrap", "0"]) == 0
    (knee,) = json.loads((out / "summary.json").read_text())["knees"]
    assert (knee["label"], knee["knee"], knee["at"]["level"]) == ("sat", 8.0, "C=8")
    report = (out / "report.md").read_text()
    assert "Throughput knee" in report and "knee at **C=8**" in report
    assert "refined by --refine-knee, which added C=32" in report
