"""``sparkload compare``'s command line on synthetic runs: the table on stdout, the files it
writes, its exit codes (4 when a cell is worse) and its one-line errors."""

from __future__ import annotations

import json

import pytest

from analysis.compare.compare_cli import main
from sparkload.records import EXIT_BAD_INPUT, EXIT_CHECK_FAILED
from tests.analysis_synthetic import compare_run

PROG = "sparkload compare"


@pytest.fixture
def runs(tmp_path):
    """A baseline, a run of the same server, and one with twice its TTFT."""
    return (
        compare_run(tmp_path / "base", seed=1),
        compare_run(tmp_path / "same", seed=2),
        compare_run(tmp_path / "slow", ttft=0.2, seed=3),
    )


def compare_main(*args, prog: str = PROG) -> int:
    return main(["--prog", prog, *map(str, args), "--bootstrap", "300"])


def test_a_run_of_the_same_server_exits_0_with_no_regression(runs, capsys):
    base, same, _ = runs
    assert compare_main(base, same) == 0
    out = capsys.readouterr().out
    assert out.startswith("## sparkload compare: no regression") and "0 worse" in out


def test_a_slower_run_exits_4_and_the_table_names_its_worse_cells(runs, capsys):
    base, _, slow = runs
    assert compare_main(base, slow) == EXIT_CHECK_FAILED
    out = capsys.readouterr().out
    assert "REGRESSION" in out and "Worse: C=1 TTFT mean (+" in out
    rows = [line for line in out.splitlines() if line.startswith("| C=1 | TTFT p90 (ms)")]
    assert len(rows) == 1 and rows[0].endswith("| **worse** |")


def test_markdown_writes_what_stdout_shows(runs, tmp_path, capsys):
    base, _, slow = runs
    compare_main(base, slow, "--markdown", tmp_path / "compare.md")
    assert (tmp_path / "compare.md").read_text() == capsys.readouterr().out


def test_json_holds_every_cell_typed(runs, tmp_path):
    base, _, slow = runs
    compare_main(base, slow, "--json", tmp_path / "compare.json")
    document = json.loads((tmp_path / "compare.json").read_text())
    assert document["worse"] is True and document["resamples"] == 300
    level = document["levels"][0]
    assert level["level"] == "C=1" and len(level["cells"]) == 11
    cell = next(c for c in level["cells"] if c["figure"] == "ttft_p90_ms")
    assert cell["verdict"] == "worse" and cell["tolerance"] == "+10%"
    assert all(isinstance(cell[k], float) for k in ("baseline", "run", "change", "ci_low"))


def test_a_user_tolerance_changes_the_verdict(runs):
    base, _, slow = runs
    assert (
        compare_main(
            base, slow, "--tolerance", "ttft:+150%,latency:+150%,tps:-60%,output_tok_s:-60%"
        )
        == 0
    )


def one_error_line(capsys) -> str:
    captured = capsys.readouterr()
    lines = captured.err.strip().splitlines()
    assert len(lines) == 1 and captured.out == "" and "Traceback" not in captured.err
    return lines[0]


def test_a_missing_directory_is_one_line_and_exit_2(runs, tmp_path, capsys):
    assert compare_main(runs[0], tmp_path / "nowhere") == EXIT_BAD_INPUT
    assert one_error_line(capsys).startswith("sparkload compare: error: run: no such directory")


def test_a_directory_that_is_no_run_is_one_line_and_exit_2(runs, tmp_path, capsys):
    (tmp_path / "notes").mkdir()
    assert compare_main(tmp_path / "notes", runs[0]) == EXIT_BAD_INPUT
    assert "error: baseline: " in one_error_line(capsys)


def test_runs_without_a_common_level_are_one_line_and_exit_2(runs, tmp_path, capsys):
    other = compare_run(tmp_path / "other", levels=(64,), seed=4)
    assert compare_main(runs[0], other) == EXIT_BAD_INPUT
    assert "no common levels" in one_error_line(capsys)


def test_a_bad_tolerance_is_one_line_and_exit_2_before_any_run_is_read(tmp_path, capsys):
    missing = tmp_path / "nowhere"
    assert compare_main(missing, missing, "--tolerance", "ttft_p90_ms:fast") == EXIT_BAD_INPUT
    assert "--tolerance: 'ttft_p90_ms:fast' is not NAME" in one_error_line(capsys)


def test_a_missing_argument_is_one_line_and_exit_2(runs, capsys):
    assert main(["--prog", PROG, str(runs[0])]) == EXIT_BAD_INPUT
    assert "the following arguments are required: RUN_DIR" in one_error_line(capsys)


def test_help_exits_0_and_names_every_figure(capsys):
    assert main(["--prog", PROG, "--help"]) == 0
    out = capsys.readouterr().out
    assert "90% interval" in out and "ttft_p90_ms" in out and "failure_ratio" in out


def test_runs_whose_max_tokens_differ_are_one_line_naming_it_and_exit_2(tmp_path, capsys):
    fields = {"workload": {"name": "chat", "max_tokens": 128}, "sampling": {"max_tokens": 128}}
    base = compare_run(tmp_path / "base", seed=1)
    other = compare_run(tmp_path / "other", seed=2, manifest_fields=fields)
    assert compare_main(base, other) == EXIT_BAD_INPUT
    line = one_error_line(capsys)
    assert (
        "settings differ (workload.max_tokens unset vs 128; sampling.max_tokens unset vs 128)"
        in line
    )
    assert line.endswith("compare them anyway with --allow-different-settings")


def test_allow_different_settings_gives_a_verdict_and_lists_them(tmp_path, capsys):
    fields = {"sampling": {"max_tokens": 128}}
    base = compare_run(tmp_path / "base", seed=1)
    slow = compare_run(tmp_path / "slow", ttft=0.2, seed=2, manifest_fields=fields)
    assert compare_main(base, slow, "--allow-different-settings") == EXIT_CHECK_FAILED
    out = capsys.readouterr().out
    assert "\n- sampling.max_tokens unset vs 128\n" in out and "REGRESSION" in out


def test_a_run_that_never_answered_exits_4_naming_the_answered_share(tmp_path, capsys):
    base = compare_run(tmp_path / "base", levels=(1,), reasoning=4, seed=1)
    none = compare_run(tmp_path / "none", levels=(1,), reasoning=4, no_answer=40, seed=2)
    assert compare_main(base, none) == EXIT_CHECK_FAILED
    assert "Worse: C=1 Answered share (-100.0 pp)." in capsys.readouterr().out


def test_help_names_allow_different_settings(capsys):
    assert main(["--prog", PROG, "--help"]) == 0
    assert "--allow-different-settings" in capsys.readouterr().out
