"""The report's Scenarios section: each phase a row of its own, the scenario's figure in words,
and no section for a run that was not a scenario."""

from __future__ import annotations

from analysis import report
from analysis.figures.metrics import Settings
from analysis.outputs import markdown
from analysis.reading.load import load
from tests.analysis_synthetic import closed_loop_level, make_record, markdown_table, write_run
from tests.report_files import section_text

SETTINGS = Settings(bootstrap_resamples=0)
PHASES = [("baseline", 2, 20.0), ("overload", 16, 10.0), ("after", 2, 40.0)]


def recovery_run(tmp_path, after_ttft: float):
    records = []
    for index, ((_, c, _), ttft, start) in enumerate(
        zip(PHASES, (0.1, 0.8, after_ttft), (1000.0, 1020.0, 1030.0), strict=True)
    ):
        records += [
            make_record(c, index, ttft=ttft, itl=0.01, tps=100.0, latency=1.0, start_time=start + i)
            for i in range(20)
        ]
    fields = {
        "mode": "scenario",
        "scenario": {
            "name": "recovery",
            "phases": [{"name": n, "concurrency": c, "duration": d} for n, c, d in PHASES],
        },
        "levels": [
            {"index": i, "concurrency": c, "expected": None, "started_at": "", "phase": n}
            for i, (n, c, _) in enumerate(PHASES)
        ],
    }
    write_run(tmp_path, "scn", records, manifest_fields=fields)
    return markdown.render(report.build(load([tmp_path]), SETTINGS), with_images=False)


def test_each_phase_is_a_row_even_two_of_one_concurrency(tmp_path):
    text = recovery_run(tmp_path, after_ttft=0.1)
    _, *rows = markdown_table(text, "scn (20260101T000000Z-scn): recovery, by phase")
    assert [(row[0], row[1]) for row in rows] == [("baseline", "2"), ("overload", "16"),
                                                  ("after", "2")]  # fmt: skip
    assert "Recovery time: " in section_text(text, "Scenarios")


def test_a_recovery_that_never_came_is_said(tmp_path):
    text = recovery_run(tmp_path, after_ttft=0.5)
    assert "Recovery time: **not recovered**" in section_text(text, "Scenarios")


def test_a_ladder_run_has_no_scenarios_section(tmp_path):
    records = closed_loop_level(1, 0, 1_700_000_000.0, ttft=0.1, itl=0.01, tps=50, latency=1)
    write_run(tmp_path, "plain", records)
    text = markdown.render(report.build(load([tmp_path]), SETTINGS), with_images=False)
    assert "Scenarios" not in text
