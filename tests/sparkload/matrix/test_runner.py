"""The matrix's verdict from its targets' outcomes (no processes)."""

from __future__ import annotations

from pathlib import Path

from sparkload.matrix import runner, spec

TARGET = spec.parse(
    {"targets": [{"label": "a", "variant": "fp8", "endpoints": "http://a:1", "teardown": "x"}]},
    "m.yaml",
).targets[0]


def result_of(outcome: runner.Outcome) -> runner.MatrixResult:
    return runner.MatrixResult(Path("r"), [outcome], report=Path("r/report/report.md"))


def test_a_complete_target_that_was_torn_down_makes_the_matrix_exit_0():
    assert result_of(runner.Outcome(TARGET, runner.COMPLETE)).exit_code == 0


def test_a_complete_target_whose_teardown_failed_makes_the_matrix_exit_1():
    outcome = runner.Outcome(TARGET, runner.COMPLETE, teardown_problem="teardown command failed")
    assert result_of(outcome).exit_code == 1
