"""The report numbers the sections it holds 1..N, and every "§N" in it names one of them."""

from __future__ import annotations

import re

from analysis import report
from analysis.cli import main
from analysis.figures.metrics import Settings
from analysis.reading.load import load
from tests.analysis.views.test_agents import session
from tests.analysis_synthetic import closed_loop_level, write_run

REFERENCE = re.compile(r"§(\d+(?:\.\d+)*)")
HEADING = re.compile(r"^#{2,} (\d+(?:\.\d+)*)\.? ", re.M)


def dangling_references(text: str) -> list[str]:
    """The "§N" of report.md that name no heading of it."""
    held = set(HEADING.findall(text))
    return [number for number in REFERENCE.findall(text) if number not in held]


def test_every_section_reference_names_a_section_the_report_holds(report_tables):
    text = (report_tables / "report.md").read_text()
    assert REFERENCE.search(text)  # the report does refer to its sections
    assert dangling_references(text) == []


def test_a_reference_to_a_section_left_out_is_left_out_too(report_tables):
    text = (report_tables / "report.md").read_text()
    assert "Prefill throughput" not in text  # no prefill probe among these runs
    assert "Prefill probes: agreement per prompt size" not in text


def test_the_sections_present_are_numbered_without_gaps(tp_matrix_tables):
    text = (tp_matrix_tables / "report.md").read_text()
    numbers = [int(n) for n in re.findall(r"^## (\d+)\. ", text, re.M)]
    assert numbers == list(range(1, len(numbers) + 1))
    assert dangling_references(text) == []


def test_a_section_refers_to_the_number_the_report_gives_its_target(tmp_path):
    """Sections left out before it shift the target's number; the reference follows."""
    records = closed_loop_level(1, 0, 1_700_000_000.0, ttft=0.1, itl=0.01, tps=50, latency=1)
    built = report.build(load([write_run(tmp_path, "chat", records)]), Settings())
    titles = {s.title.split(". ", 1)[1]: s.title.split(".")[0] for s in built.sections}
    text = "\n".join(
        b for s in built.sections for p, _ in s.walk() for b in p.blocks if isinstance(b, str)
    )
    assert f"see §{titles['Concurrency effect']} for system-wide RPS" in text


def test_an_agent_runs_report_has_no_conversations_section(tmp_path):
    out = tmp_path / "report"
    run = write_run(tmp_path, "agent", session(0))
    assert main([str(run), "--out", str(out), "--no-charts", "--quiet"]) == 0
    text = (out / "report.md").read_text()
    assert re.search(r"^## \d+\. Agents$", text, re.M)
    assert "Conversations" not in text and "--workload conversation" not in text
    assert list((out / "tables").glob("*_agent_by_turn.csv"))  # the agents section has it
    assert not [p for p in (out / "tables").glob("*_by_turn.csv") if "_agent_" not in p.name]
