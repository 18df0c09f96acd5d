"""A level judged over-saturated and ended early is shown beside the level's other flags."""

from __future__ import annotations

from analysis.cli import main
from analysis.load import load
from tests.analysis.analysis_synthetic import (
    arrival_manifest,
    closed_loop_level,
    markdown_table,
    open_loop_level,
    write_run,
)

WHY = "TTFT p90 rose 4.0x over the level's first minute"


def levels(saturation=None):
    return [
        {"index": 0, "concurrency": 1, "expected": 10, "started_at": ""},
        {"index": 1, "concurrency": 2, "expected": 20, "started_at": "", "saturation": saturation},
    ]


def ladder(tmp_path, saturation=None):
    records = closed_loop_level(1, 0, 1000.0, ttft=0.2, itl=0.02, tps=40, latency=3.0)
    records += closed_loop_level(2, 1, 1040.0, ttft=0.8, itl=0.03, tps=30, latency=4.6)
    return write_run(tmp_path / "r", "x", records, manifest_fields={"levels": levels(saturation)})


def report_of(run, tmp_path) -> str:
    out = tmp_path / "out"
    assert main([str(run), "--out", str(out), "--no-charts", "--quiet"]) == 0
    return (out / "report.md").read_text()


def test_an_over_saturated_level_reads_ended_early_beside_its_checks(tmp_path):
    rows = markdown_table(report_of(ladder(tmp_path, WHY), tmp_path), "x: performance (means)")
    saturation = rows[0].index("Saturation")
    assert rows[0][saturation - 2 : saturation] == ["Client check", "Stream check"]
    assert [row[saturation] for row in rows[1:]] == ["ok", f"ENDED EARLY: {WHY}"]


def test_without_an_over_saturated_level_there_is_no_saturation_column(tmp_path):
    rows = markdown_table(report_of(ladder(tmp_path), tmp_path), "x: performance (means)")
    assert "Saturation" not in rows[0]


def test_the_runs_notes_and_summary_name_the_over_saturated_level(tmp_path):
    dataset = load([ladder(tmp_path, WHY)])
    assert f"level C=2: over-saturated, ended early: {WHY}" in dataset.runs[0].notes
    out = tmp_path / "out"
    assert main([str(dataset.runs[0].path), "--out", str(out), "--no-charts", "--quiet"]) == 0
    assert WHY in (out / "summary.csv").read_text()


def test_an_open_loop_rate_ended_early_is_flagged_in_its_rates_table(tmp_path):
    records = open_loop_level(4, 0, 1000.0, interval=0.5, count=10, latency=1.0)
    records += open_loop_level(4, 1, 1100.0, interval=0.1, count=30, latency=3.0)
    fields = arrival_manifest([2.0, 10.0], 4)
    fields["levels"][1]["saturation"] = WHY
    run = write_run(tmp_path / "r", "open", records, manifest_fields=fields)
    rows = markdown_table(report_of(run, tmp_path), "open: offered vs achieved")
    column = rows[0].index("Saturation")
    assert [row[column] for row in rows[1:]] == ["ok", f"ENDED EARLY: {WHY}"]
