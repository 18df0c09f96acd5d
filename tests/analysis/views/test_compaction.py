"""The compaction table and chart: the prompt and cached tokens around each compaction, from
synthetic agent sessions whose every token count is known."""

from __future__ import annotations

import pandas as pd
import pytest

from analysis.reading.load import load
from analysis.views import agents, compaction
from tests.analysis_synthetic import make_record, write_run

# (prompt, cached) tokens of a session's requests; the 4th is the first after a compaction
TOKENS = [(700, 560), (1500, 690), (2600, 1490), (1000, 570), (1400, 990), (1800, 1390)]


def agent_session(name: str, level: int = 1, compacted_at: int = 4) -> list[dict]:
    """One session's requests, ``TOKENS`` in order, the ``compacted_at``-th compacted."""
    return [
        make_record(
            level, 0, ttft=0.1, itl=0.01, tps=50.0, latency=1.0,
            start_time=1_700_000_000.0 + turn * 2 + (100 if name == "b" else 0),
            session_id=name, agent_session=name, depth=0, turn=turn, turns=len(TOKENS),
            step="tool_call", prompt_tokens=prompt, cached_tokens=cached,
            extra={"workload": "agent", **(
                {"compacted": 1, "compacted_from": 2600} if turn == compacted_at else {}
            )},
        )
        for turn, (prompt, cached) in enumerate(TOKENS, start=1)
    ]  # fmt: skip


def steps_of(root, records: list[dict]) -> pd.DataFrame:
    path = write_run(root, "agent", records, manifest_fields={"workload": {"name": "agent"}})
    return compaction.compaction_records(agents.step_records(load([path]).records))


def test_a_run_without_compactions_has_no_compaction_records(tmp_path):
    assert steps_of(tmp_path, agent_session("a", compacted_at=0)).empty


def test_around_gives_the_tokens_before_at_and_after_each_compaction(tmp_path):
    steps = steps_of(tmp_path, agent_session("a") + agent_session("b"))
    (row,) = compaction.around(steps, "agent").to_dict("records")
    assert (row["Compactions"], row["Compacted from mean"]) == (2, 2600)
    assert (row["Prompt tokens before"], row["Cached tokens before"]) == (2600, 1490)
    assert (row["Prompt tokens compacted"], row["Cached tokens compacted"]) == (1000, 570)
    assert (row["Prompt tokens after"], row["Cached tokens after"]) == (1400, 990)


def test_a_compaction_at_a_sessions_last_request_has_no_after(tmp_path):
    steps = steps_of(tmp_path, agent_session("a", compacted_at=len(TOKENS)))
    (row,) = compaction.around(steps, "agent").to_dict("records")
    assert row["Prompt tokens before"] == 1400
    assert pd.isna(row["Prompt tokens after"])


def test_the_chart_draws_prompt_and_cached_per_session_and_marks_the_compactions(tmp_path):
    steps = steps_of(tmp_path, agent_session("a") + agent_session("b"))
    chart = compaction.chart(steps, "agent")
    names = [s.name for s in chart.series]
    assert names == [
        "C=1 session 1 prompt",
        "C=1 session 1 cached",
        "C=1 session 2 prompt",
        "C=1 session 2 cached",
        "compacted",
    ]
    assert list(chart.series[1].y) == [cached for _, cached in TOKENS]
    assert list(chart.series[-1].x) == [4, 4]
    assert list(chart.series[-1].y) == pytest.approx([1000, 1000])


def test_the_chart_shows_at_most_a_few_sessions(tmp_path):
    records = [r for n in "abcde" for r in agent_session(n)]
    chart = compaction.chart(steps_of(tmp_path, records), "agent")
    assert len(chart.series) == 2 * compaction.CHART_SESSIONS + 1
