"""The report's Agents section: left out of a run without agent steps, there with its three
tables for an agent run, its sub-agents and compaction subsections only when the records hold
them; and end to end against the built-in simulator, an agent ladder whose report counts two
tool-call steps and one answer step per user turn, one sub-agent per tool step, and the cached
tokens falling at a compaction and recovering."""

from __future__ import annotations

import csv

import pytest

from analysis import report
from analysis.cli import main as analysis_main
from analysis.figures.metrics import Settings
from analysis.reading.load import load
from analysis.views.tables import Table
from tests.analysis.views import test_compaction, test_subagents
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


def agents_section(built: report.Report):
    (section,) = [s for s in built.sections if s.title.endswith(". Agents")]
    return section


def subsection_titles(built: report.Report) -> list[str]:
    return [s.title.split(" ", 1)[1] for s in agents_section(built).subsections]


def test_sub_agents_and_compaction_are_left_out_of_a_run_without_them(tmp_path):
    built = report.build(load([write_run(tmp_path, "agent", session(0))]), SETTINGS)
    assert "Sub-agents" not in subsection_titles(built)
    assert "Compaction" not in subsection_titles(built)
    assert not {"agent_subagents", "agent_compaction"} & set(built.json_tables)


def test_a_run_with_sub_agents_has_their_subsection_tables_and_summary_entries(tmp_path):
    built = report.build(load([write_run(tmp_path, "agent", test_subagents.sessions())]), SETTINGS)
    assert subsection_titles(built)[-1] == "Sub-agents"
    (spawned,) = [s for s in agents_section(built).subsections if s.title.endswith("Sub-agents")]
    keys = [b.key.split("_agent_")[1] for b in spawned.blocks if isinstance(b, Table)]
    assert keys == ["subagents", "subagent_requests"]
    assert list(built.json_tables["agent_subagents"]["Sub-agents"]) == [2]
    assert list(built.json_tables["agent_subagent_requests"]["Agent"]) == [
        "top-level",
        "fresh",
        "fork",
    ]


def test_a_run_with_compactions_has_their_subsection_table_chart_and_summary_entry(tmp_path):
    records = test_compaction.agent_session("a")
    built = report.build(load([write_run(tmp_path, "agent", records)]), SETTINGS)
    assert subsection_titles(built)[-1] == "Compaction"
    assert list(built.json_tables["agent_compaction"]["Prompt tokens compacted"]) == [1000]
    assert ("agent", "compaction_tokens") in [(c.folder, c.key) for c in built.charts]


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


def simulated_report(tmp_path, options: list[str]) -> tuple:
    """Run the agent workload on the simulator with ``options`` at C=1; its report's folder and
    the Agents section's number."""
    run = run_locust(
        [
            "--headless", "--workload", "agent", "--ladder", "1", "--sim-time-scale", "50",
            "--max-tokens", "24", "--label", "agent", "--no-server-metrics", *options,
        ],
        tmp_path / "results",
    )  # fmt: skip
    assert run.returncode == 0, run.output
    out = tmp_path / "report"
    assert analysis_main([str(run.run_dir), "--out", str(out), "--no-charts", "--quiet"]) == 0
    (title,) = [t for t in (out / "report.md").read_text().splitlines() if t.endswith(". Agents")]
    return out, f"{int(title.split()[1].rstrip('.')):02d}"


@pytest.mark.e2e  # starts Locust and the built-in simulator
def test_a_sub_agent_per_tool_step_is_counted_exactly(tmp_path):
    out, number = simulated_report(
        tmp_path,
        ["--tool-turns", "1", "--turns", "1", "--subagent-rate", "1", "--subagent-fork", "0.5",
         "--requests-per-user", "2"],
    )  # fmt: skip
    (row,) = rows(out, number, "subagents")
    # 2 sessions, each its tool step, a sub-agent's 2 steps, then its answer
    assert (row["Sessions"], row["Sub-agents"], row["Requests"], row["Sub-agent requests"]) == (
        "2", "2", "8", "4",
    )  # fmt: skip
    assert int(row["Fresh"]) + int(row["Forked"]) == 2
    assert 0 < float(row["Time share mean"]) < 1
    agents_rows = rows(out, number, "subagent_requests")
    assert sum(int(r["n"]) for r in agents_rows if r["Agent"] != "top-level") == 4


@pytest.mark.e2e  # starts Locust and the built-in simulator
def test_cached_tokens_fall_at_a_compaction_and_recover_on_the_next_request(tmp_path):
    out, number = simulated_report(
        tmp_path,
        ["--tool-turns", "4", "--turns", "2", "--compact-at", "2500", "--compact-to", "1000",
         "--sim-block-size", "16", "--requests-per-user", "1"],
    )  # fmt: skip
    (row,) = rows(out, number, "compaction")
    assert row["Compactions"] == "1"
    assert float(row["Prompt tokens compacted"]) == 1000
    before, at, after = (float(row[f"Cached tokens {p}"]) for p in ("before", "compacted", "after"))
    assert at < before and at < after
