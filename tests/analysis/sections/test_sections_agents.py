"""The report's Agents section: left out of a run without agent steps, there with its three
tables for an agent run; and once end to end, an agent ladder against the built-in simulator
whose report counts two tool-call steps and one answer step per user turn."""

from __future__ import annotations

import csv

import pytest

from analysis import report
from analysis.cli import main as analysis_main
from analysis.figures.metrics import Settings
from analysis.reading.load import load
from analysis.views.tables import Table
from tests.analysis.views.test_agents import session
from tests.analysis_synthetic import closed_loop_level, write_run
from tests.conftest import run_locust

SETTINGS = Settings(bootstrap_resamples=0)


def titles(built: report.Report) -> list[str]:
    return [s.title for s in built.sections]


def test_a_run_without_agent_steps_has_no_agents_section(tmp_path):
    records = closed_loop_level(1, 0, 1_700_000_000.0, ttft=0.1, itl=0.01, tps=50, latency=1)
    built = report.build(load([write_run(tmp_path, "chat", records)]), SETTINGS)
    assert not any(t.endswith(". Agents") for t in titles(built))
    assert not any(key.startswith("agent_") for key in built.json_tables)


def test_an_agent_run_has_the_section_its_three_tables_and_its_chart(tmp_path):
    built = report.build(load([write_run(tmp_path, "agent", session(0))]), SETTINGS)
    (agents,) = [s for s in built.sections if s.title.endswith(". Agents")]
    assert [s.title.split(" ", 1)[1] for s in agents.subsections] == [
        "By step kind",
        "By turn",
        "TTFO against context length",
    ]
    keys = [b.key for s, _ in agents.walk() for b in s.blocks if isinstance(b, Table)]
    assert [k.split("_agent_")[1] for k in keys] == ["by_step", "by_turn", "by_context"]
    assert ("agent", "ttfo_vs_context") in [(c.folder, c.key) for c in built.charts]


def rows(out, number: str, name: str) -> list[dict]:
    """The rows of the Agents section's (numbered ``number``) table ``name``."""
    (path,) = (out / "tables").glob(f"{number}_*_agent_{name}.csv")
    with path.open() as handle:
        return list(csv.DictReader(handle))


@pytest.mark.e2e  # starts Locust and the built-in simulator
def test_an_agent_ladders_report_counts_two_tool_steps_and_an_answer_per_user_turn(tmp_path):
    run = run_locust(
        [
            "--headless", "--workload", "agent", "--tool-turns", "2", "--ladder", "1,2",
            "--requests-per-user", "2", "--sim-profile", "fp8", "--sim-time-scale", "50",
            "--max-tokens", "32", "--label", "agent", "--no-server-metrics",
        ],
        tmp_path / "results",
    )  # fmt: skip
    assert run.returncode == 0, run.output
    out = tmp_path / "report"
    assert analysis_main([str(run.run_dir), "--out", str(out), "--no-charts", "--quiet"]) == 0
    (title,) = [t for t in (out / "report.md").read_text().splitlines() if t.endswith(". Agents")]
    number = f"{int(title.split()[1].rstrip('.')):02d}"
    by_step = {(r["Concurrency"], r["Step"]): int(r["n"]) for r in rows(out, number, "by_step")}
    # C users x 2 sessions x 2 user turns, each turn 2 tool steps and 1 answer step
    assert by_step == {
        ("1", "tool_call"): 8,
        ("1", "answer"): 4,
        ("2", "tool_call"): 16,
        ("2", "answer"): 8,
    }
    by_turn = [(r["Concurrency"], r["User turn"], r["Step index"], r["Step"], r["n"])
               for r in rows(out, number, "by_turn")]  # fmt: skip
    assert by_turn == [
        (level, turn, index, "answer" if index == "3" else "tool_call", str(2 * int(level)))
        for level in ("1", "2")
        for turn in ("1", "2")
        for index in ("1", "2", "3")
    ]
