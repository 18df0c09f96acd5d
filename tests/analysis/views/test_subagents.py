"""The sub-agents tables: time in sub-agents and the top-level against the sub-agents'
requests, from synthetic sessions whose every send, reply and cached token is known."""

from __future__ import annotations

import pandas as pd
import pytest

from analysis.figures.metrics import Settings
from analysis.reading.load import load
from analysis.views import agents, subagents
from tests.analysis_synthetic import make_record, write_run

SETTINGS = Settings(bootstrap_resamples=0)
T0 = 1_700_000_000.0


def request(session: str, turn: int, start: float, latency: float, **fields) -> dict:
    """One measured agent step at C=1, sent ``start`` s into the run; TTFT 100 ms."""
    return make_record(
        1, 0, ttft=0.1, itl=0.01, tps=50.0, latency=latency, start_time=T0 + start,
        session_id=session, turn=turn, turns=6, step="tool_call", **fields,
    )  # fmt: skip


def top(session: str, turn: int, start: float, prompt: int = 1000, cached: int = 500, **f):
    """A top-level agent's request (its agent session is the session)."""
    return request(
        session, turn, start, 1.0, agent_session=session, depth=0,
        prompt_tokens=prompt, cached_tokens=cached, extra={"workload": "agent"}, **f,
    )  # fmt: skip


def sub(session: str, agent: str, kind: str, turn: int, start: float, cached: int, **f):
    """A depth-1 sub-agent's request of 1,000 prompt tokens, ``cached`` of them cached."""
    return request(
        session, turn, start, 1.0, agent_session=agent, parent_session=session, depth=1,
        prompt_tokens=1000, cached_tokens=cached,
        extra={"workload": "agent", "subagent": kind}, **f,
    )  # fmt: skip


def sessions() -> list[dict]:
    """Session a: 10 s wall (0 → 10), a fresh sub-agent from 2 to 4 s and a forked one from
    5 to 8 s (5 s of 10 in sub-agents); session b: 4 s wall, none."""
    return [
        top("a", 1, 0, cached=600),
        sub("a", "a1", "fresh", 2, 2, cached=300),
        sub("a", "a1", "fresh", 3, 3, cached=800),
        top("a", 4, 4, cached=700),
        sub("a", "a2", "fork", 5, 5, cached=900),
        sub("a", "a2", "fork", 6, 6, cached=950),
        sub("a", "a2", "fork", 7, 7, cached=950),
        top("a", 8, 9),
        top("b", 1, 20),
        top("b", 2, 23),
    ]


def steps_of(root, records: list[dict]) -> pd.DataFrame:
    path = write_run(root, "agent", records, manifest_fields={"workload": {"name": "agent"}})
    return subagents.subagent_records(agents.step_records(load([path]).records))


def test_a_run_without_sub_agents_has_no_sub_agent_records(tmp_path):
    assert steps_of(tmp_path, [top("a", 1, 0), top("a", 2, 2)]).empty


def test_time_in_sub_agents_counts_sessions_sub_agents_and_requests(tmp_path):
    (row,) = subagents.time_in_subagents(steps_of(tmp_path, sessions()), "agent", SETTINGS).to_dict(
        "records"
    )
    assert (row["Sessions"], row["Sub-agents"], row["Fresh"], row["Forked"]) == (2, 2, 1, 1)
    assert (row["Requests"], row["Sub-agent requests"]) == (10, 5)
    assert row["Sub-agent share of requests"] == pytest.approx(0.5)


def test_time_in_sub_agents_is_each_sub_agents_first_send_to_last_reply_summed(tmp_path):
    (row,) = subagents.time_in_subagents(steps_of(tmp_path, sessions()), "agent", SETTINGS).to_dict(
        "records"
    )
    assert row["Session s mean"] == pytest.approx((10 + 4) / 2)
    assert row["In sub-agents s mean"] == pytest.approx((2 + 3 + 0) / 2)
    assert row["Time share mean"] == pytest.approx((0.5 + 0.0) / 2)  # b spawned none: 0
    assert row["Time share p90"] == pytest.approx(0.45)  # linear between 0 and 0.5


def test_a_sub_agents_own_sub_agent_runs_inside_it_and_is_not_counted_twice(tmp_path):
    records = [
        top("a", 1, 0),
        sub("a", "a1", "fresh", 2, 1, cached=0),
        request(
            "a",
            3,
            2,
            1.0,
            agent_session="a11",
            parent_session="a1",
            depth=2,
            prompt_tokens=1000,
            cached_tokens=0,
            extra={"subagent": "fresh"},
        ),  # fmt: skip
        sub("a", "a1", "fresh", 4, 3, cached=0),
        top("a", 5, 5),
    ]
    (row,) = subagents.time_in_subagents(steps_of(tmp_path, records), "agent", SETTINGS).to_dict(
        "records"
    )
    assert row["In sub-agents s mean"] == pytest.approx(3.0)  # a1: 1 → 4, a11 inside it
    assert row["Sub-agents"] == 2


def test_by_agent_has_top_level_fresh_and_fork_rows(tmp_path):
    frame = subagents.by_agent(steps_of(tmp_path, sessions()), "agent", SETTINGS)
    assert list(frame["Agent"]) == ["top-level", "fresh", "fork"]
    assert list(frame["n"]) == [5, 2, 3]
    assert frame.set_index("Agent").loc["fork", "TTFT ms mean"] == pytest.approx(100.0)


def test_a_sub_agents_first_request_cache_share_is_beside_its_parents_spawning_request(tmp_path):
    frame = subagents.by_agent(steps_of(tmp_path, sessions()), "agent", SETTINGS)
    rows = frame.set_index("Agent")
    # a1's first request 300 of 1,000 cached, spawned after a's turn 1 (600 of 1,000)
    assert rows.loc["fresh", "First request cached share"] == pytest.approx(0.3)
    assert rows.loc["fresh", "Spawning request cached share"] == pytest.approx(0.6)
    # a2's first request 900 of 1,000, spawned after a's turn 4 (700 of 1,000)
    assert rows.loc["fork", "First request cached share"] == pytest.approx(0.9)
    assert rows.loc["fork", "Spawning request cached share"] == pytest.approx(0.7)
    assert pd.isna(rows.loc["top-level", "First request cached share"])


def test_sub_agents_that_do_not_say_how_they_started_have_a_row_of_their_own(tmp_path):
    records = [top("a", 1, 0), *(sub("a", "a1", "", turn, turn, cached=0) for turn in (2, 3))]
    frame = subagents.by_agent(steps_of(tmp_path, records), "agent", SETTINGS)
    assert list(zip(frame["Agent"], frame["n"], strict=True)) == [
        ("top-level", 1),
        ("sub-agent", 2),
    ]
