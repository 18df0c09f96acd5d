"""The report's output fidelity section: every level of a run that kept its outputs held to its
own lowest level; nothing at all for a run that kept none."""

from __future__ import annotations

from analysis.cli import main
from tests.analysis.fidelity.test_fidelity import GREEDY
from tests.analysis_synthetic import closed_loop_level, write_run

TITLE = ". Output fidelity"


def records(kept: bool) -> list[dict]:
    rows = closed_loop_level(1, 0, 0.0, ttft=0.1, itl=0.01, tps=50, latency=1.0, per_user=4)
    rows += closed_loop_level(4, 1, 10.0, ttft=0.2, itl=0.02, tps=40, latency=1.5, per_user=4)
    if kept:
        for i, row in enumerate(rows):
            changed = row["level"] == 4 and i % 4 == 0  # one reply in four differs at C=4
            row.update(
                prompt_key=f"p{i % 4}",
                output_text="ab" if not changed else "aX",
                output_chunks=[1, 1],
            )
    return rows


def report(tmp_path, kept: bool) -> str:
    fields = GREEDY if kept else {}
    run = write_run(tmp_path / "r", "run", records(kept), manifest_fields=fields)
    out = tmp_path / "out"
    assert main([str(run), "--out", str(out), "--no-charts", "--quiet"]) == 0
    return (out / "report.md").read_text()


def test_a_run_that_kept_its_outputs_gets_each_level_held_to_its_lowest(tmp_path):
    text = report(tmp_path, kept=True)
    section = text[text.index(TITLE) :]
    assert "Reference: `run C=1 (this run)`, 4 prompts." in section
    assert "| C=1 | 4 | 4 | 0 | 4 | 100.0 |" in section
    assert "| C=4 | 16 | 16 | 0 | 12 | 75.0 |" in section


def test_a_run_that_kept_no_outputs_has_no_fidelity_section(tmp_path):
    assert TITLE not in report(tmp_path, kept=False)
