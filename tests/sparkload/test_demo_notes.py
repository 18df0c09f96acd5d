"""``sparkload demo --notes --quick``: the notes' matrix on the simulator, its section in the
report, the report's path first and last on the console."""

from __future__ import annotations

import pytest

from sparkload.demo import QUICK_NOTES_TARGETS
from tests.matrix_helpers import run_sparkload, summary

pytestmark = pytest.mark.e2e  # starts Locust and simulator processes


@pytest.fixture(scope="module")
def demo(tmp_path_factory):
    out = tmp_path_factory.mktemp("demo-notes") / "results"
    return run_sparkload("demo", "--notes", "--quick", "--out", str(out), timeout=110), out


def test_the_notes_demo_finishes_by_itself_with_every_target_complete(demo):
    finished, out = demo
    assert finished.returncode == 0, finished.stdout + finished.stderr
    assert {label: row["status"] for label, row in summary(out).items()} == dict.fromkeys(
        QUICK_NOTES_TARGETS, "complete"
    )


def test_the_console_opens_and_ends_with_the_reports_path(demo):
    finished, out = demo
    lines = finished.stdout.strip().splitlines()
    report = str(out / "report" / "report.md")
    assert report in lines[0]
    assert lines[-1] == f"report: {report}"


def test_the_report_holds_the_notes_section_with_repeated_runs_as_a_over_b(demo):
    _, out = demo
    text = (out / "report" / "report.md").read_text()
    notes = text.split("Single-Spark notes", 1)[1]
    assert "Quantization gain, drafting held constant" in notes
    assert " / " in notes.split("| FP8 |", 1)[1].splitlines()[0]  # the FP8 row: "run1 / run2"
