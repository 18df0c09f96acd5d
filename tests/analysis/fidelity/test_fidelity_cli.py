"""``sparkload fidelity``'s command line on synthetic runs: the Markdown on stdout, the files it
writes, and exit 2 with one line for a run that kept no outputs."""

from __future__ import annotations

import json

from analysis.fidelity.fidelity_cli import main
from sparkload.records import EXIT_BAD_INPUT
from tests.analysis.fidelity.test_fidelity import GREEDY, record
from tests.analysis_synthetic import write_run

PROG = "sparkload fidelity"


def test_the_table_goes_to_stdout_and_the_figures_to_the_json_file(tmp_path, capsys):
    records = [record(1, "p", "ab"), record(16, "p", "ab"), record(16, "p", "aX", [1, 1])]
    run = write_run(tmp_path, "r", records, manifest_fields=GREEDY)
    assert main(["--prog", PROG, str(run), "--json", str(tmp_path / "f.json")]) == 0
    out = capsys.readouterr().out
    assert "| C=16 | 2 | 2 | 0 | 1 | 50.0 |" in out
    levels = json.loads((tmp_path / "f.json").read_text())["levels"]
    assert levels[1]["first_difference_chunks"] == [1] and levels[1]["exact_share"] == 0.5


def test_a_run_without_kept_outputs_exits_2_with_one_line(tmp_path, capsys):
    run = write_run(tmp_path, "r", [record(1, "p", "a")])
    assert main(["--prog", PROG, str(run)]) == EXIT_BAD_INPUT
    err = capsys.readouterr().err
    assert err.startswith(f"{PROG}: error: ") and "--keep-outputs" in err
    assert err.count("\n") == 1
