"""Sub-agents and compaction end to end on the built-in simulator (issue 44, must-shows 1 and
2): one sub-agent per parent tool step, each naming its parent, no parent request in flight
while its sub-agent runs, exact counts; a compacted context's prompt at the target size, its
cached tokens falling with it and growing again."""

from __future__ import annotations

from collections import Counter, defaultdict

import pytest

from tests.conftest import run_locust

pytestmark = pytest.mark.e2e  # starts Locust and the simulator


@pytest.fixture(scope="module")
def subagent_run(tmp_path_factory):
    run = run_locust(
        [
            "--headless",
            "--workload",
            "agent",
            "--tool-turns",
            "1",
            "--turns",
            "1",
            "--subagent-rate",
            "1",
            "--subagent-depth",
            "1",
            "--subagent-turns",
            "1",
            "--ladder",
            "1,2",
            "--requests-per-user",
            "2",
            "--max-tokens",
            "24",
            "--sim-time-scale",
            "50",
        ],
        tmp_path_factory.mktemp("subagents") / "results",
    )
    assert run.returncode == 0, run.output
    return run


def measured(run) -> list[dict]:
    return [r for r in run.records if r["phase"] == "measure"]


def test_every_level_runs_its_sessions_with_one_sub_agent_per_tool_step(subagent_run):
    # a session: the parent's tool step, the sub-agent's tool step and answer, the parent's answer
    records = measured(subagent_run)
    assert Counter(r["level"] for r in records) == {1: 2 * 4, 2: 4 * 4}
    assert [(lv["expected"], lv["received"]) for lv in subagent_run.manifest["levels"]] == [
        (8, 8),
        (16, 16),
    ]
    assert all(r["status"] == "ok" for r in records)
    by_session: dict[str, list[dict]] = defaultdict(list)
    for r in records:
        by_session[r["session_id"]].append(r)
    assert len(by_session) == 6
    for session in by_session.values():
        session.sort(key=lambda r: r["turn"])
        assert [(r["depth"], r["step"]) for r in session] == [
            (0, "tool_call"),
            (1, "tool_call"),
            (1, "answer"),
            (0, "answer"),
        ]


def test_each_sub_agent_names_its_parent_and_the_parent_its_own_session(subagent_run):
    for r in measured(subagent_run):
        if r["depth"] == 0:
            assert r["agent_session"] == r["session_id"] and "parent_session" not in r
        else:
            assert r["parent_session"] == r["session_id"] != r["agent_session"]
    children = {r["agent_session"] for r in measured(subagent_run) if r["depth"] == 1}
    assert len(children) == 6  # one per parent tool step


def test_no_parent_request_is_in_flight_while_its_sub_agent_runs(subagent_run):
    by_session: dict[str, list[dict]] = defaultdict(list)
    for r in measured(subagent_run):
        by_session[r["session_id"]].append(r)
    for session in by_session.values():
        parents = [r for r in session if r["depth"] == 0]
        children = [r for r in session if r["depth"] == 1]
        child_start = min(r["start_time"] for r in children)
        child_end = max(r["start_time"] + r["latency"] for r in children)
        spawning, waiting = sorted(parents, key=lambda r: r["turn"])
        assert spawning["start_time"] + spawning["latency"] <= child_start
        assert waiting["start_time"] >= child_end


def test_a_compacted_context_drops_to_the_target_and_its_cache_recovers(tmp_path):
    run = run_locust(
        [
            "--headless",
            "--workload",
            "agent",
            "--tool-turns",
            "4",
            "--turns",
            "2",
            "--compact-at",
            "2500",
            "--compact-to",
            "1000",
            "--sim-block-size",
            "16",
            "--ladder",
            "1",
            "--requests-per-user",
            "1",
            "--max-tokens",
            "24",
            "--sim-time-scale",
            "50",
        ],
        tmp_path / "results",
    )
    assert run.returncode == 0, run.output
    steps = sorted(measured(run), key=lambda r: r["turn"])
    compacted = [i for i, r in enumerate(steps) if "compacted" in r["extra"]]
    assert compacted, [r["prompt_tokens"] for r in steps]
    for i in compacted:
        before, at = steps[i - 1], steps[i]
        assert before["prompt_tokens"] > 2500
        assert at["extra"]["compacted_from"] == before["prompt_tokens"]
        assert abs(at["prompt_tokens"] - 1000) <= 10  # the target, within the estimate's error
        assert at["cached_tokens"] < before["cached_tokens"]
        if i + 1 < len(steps):
            after = steps[i + 1]
            assert after["cached_tokens"] > at["cached_tokens"]
            assert after["cached_tokens"] >= at["prompt_tokens"] - 16  # the summary, from cache
