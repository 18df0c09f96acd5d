"""A level judged over-saturated is shown beside the level's other flags: ended early where a
sweep stopped (the manifest's saturated_at), flagged where the plan ran on."""

from __future__ import annotations

import json

from analysis.cli import main
from analysis.reading.load import load
from tests.analysis_synthetic import (
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


def test_a_flagged_ladder_level_reads_flagged_beside_its_checks(tmp_path):
    rows = markdown_table(report_of(ladder(tmp_path, WHY), tmp_path), "x: performance (means)")
    saturation = rows[0].index("Over-saturated")
    assert rows[0][saturation - 2 : saturation] == ["Client check", "Stream check"]
    assert [row[saturation] for row in rows[1:]] == ["ok", f"FLAGGED: {WHY}"]


def test_without_an_over_saturated_level_there_is_no_over_saturated_column(tmp_path):
    rows = markdown_table(report_of(ladder(tmp_path), tmp_path), "x: performance (means)")
    assert "Over-saturated" not in rows[0]


def test_the_runs_notes_and_summary_name_the_flagged_level(tmp_path):
    dataset = load([ladder(tmp_path, WHY)])
    assert f"level C=2: over-saturated (flagged, the plan ran on): {WHY}" in dataset.runs[0].notes
    out = tmp_path / "out"
    assert main([str(dataset.runs[0].path), "--out", str(out), "--no-charts", "--quiet"]) == 0
    assert WHY in (out / "summary.csv").read_text()


def stopped_sweep(tmp_path):
    records = open_loop_level(4, 0, 1000.0, interval=0.5, count=10, latency=1.0)
    records += open_loop_level(4, 1, 1100.0, interval=0.1, count=30, latency=3.0)
    fields = arrival_manifest([2.0, 10.0, 20.0], 4)
    fields["levels"] = fields["levels"][:2]
    fields["levels"][1].update(saturation=WHY, unsent=12)
    fields["saturated_at"] = 1
    return write_run(tmp_path / "r", "open", records, manifest_fields=fields)


def test_the_rate_where_a_sweep_stopped_reads_ended_early_in_its_rates_table(tmp_path):
    rows = markdown_table(report_of(stopped_sweep(tmp_path), tmp_path), "open: offered vs achieved")
    column = rows[0].index("Over-saturated")
    assert [row[column] for row in rows[1:]] == ["ok", f"ENDED EARLY: {WHY}"]


def test_the_notes_say_where_the_sweep_stopped_and_how_many_arrivals_went_unsent(tmp_path):
    notes = load([stopped_sweep(tmp_path)]).runs[0].notes
    assert any(
        "its arrivals stopped early (12 unsent) and the sweep ended there" in n for n in notes
    )


def test_summary_json_gives_each_level_what_was_seen_and_whether_the_sweep_stopped(tmp_path):
    out = tmp_path / "out"
    assert main([str(stopped_sweep(tmp_path)), "--out", str(out), "--no-charts", "--quiet"]) == 0
    levels = json.loads((out / "summary.json").read_text())["levels"]
    seen = [
        (level["offered_rps"], level["saturation"], level["saturation_stop"]) for level in levels
    ]
    assert seen == [(2.0, "", False), (10.0, WHY, True)]
