"""Command line: bad input gives one line on stderr and exit code 2, never a traceback."""

from __future__ import annotations

import subprocess
import sys

import pytest

from analysis.cli import build_parser, main
from tests.analysis_synthetic import closed_loop_level, write_run


@pytest.fixture
def run_dir(tmp_path):
    return write_run(
        tmp_path / "results",
        "x",
        closed_loop_level(1, 0, 1000.0, ttft=0.1, itl=0.05, tps=20, latency=6.0),
    )


@pytest.mark.parametrize(
    "argv_tail, says",
    [
        (["/no/such/dir"], "no such directory: /no/such/dir"),
        (["{empty}"], "no requests.parquet, requests.jsonl, manifest.json or Locust *_stats.csv"),
        (["{run}", "--slo", "ttft<=5"], "--slo: cannot read 'ttft<=5'"),
        (["{run}", "--frobnicate"], "unrecognized arguments: --frobnicate"),
        (["{run}", "--percentile-method", "nearest"], "invalid choice: 'nearest'"),
        ([], "the following arguments are required: RUN_DIR"),
    ],
)
def test_bad_input_prints_one_line_and_exits_2(tmp_path, run_dir, capsys, argv_tail, says):
    (tmp_path / "empty").mkdir()
    argv = [a.format(empty=tmp_path / "empty", run=run_dir) for a in argv_tail]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("python -m analysis: error: ")
    assert says in err


def test_a_single_run_reports_into_its_own_report_folder(run_dir, capsys):
    assert main([str(run_dir), "--no-charts", "--quiet"]) == 0
    assert (run_dir / "report" / "summary.csv").is_file()
    assert capsys.readouterr().out.strip() == str(run_dir / "report" / "report.md")


def test_progress_goes_to_stderr_one_line_per_stage(run_dir, capsys):
    assert main([str(run_dir), "--no-charts"]) == 0
    lines = capsys.readouterr().err.splitlines()
    assert len(lines) >= 4 and all(line.startswith("[analysis") for line in lines)


def test_module_entry_point_runs_without_traceback(tmp_path):
    result = subprocess.run(
        [sys.executable, "-m", "analysis", str(tmp_path / "missing")],
        capture_output=True,
        text=True,
    )
    assert result.returncode == 2
    assert "Traceback" not in result.stderr and result.stderr.count("\n") == 1


def test_parser_can_be_reused_under_another_program_name():
    parser = build_parser(prog="sparkload report")
    assert parser.prog == "sparkload report"
    assert parser.parse_args(["r1", "r2", "--out", "o"]).runs == ["r1", "r2"]
