"""Agent ladders end to end through Locust against a scripted tool-calling server (issue 26,
must-show 2, before the simulator calls tools): exact level counts, two tool-call steps and an
answer per user turn, every request after a session's first carrying the earlier calls and their
results; a replayed trace is one record per turn; bad tools files and traces are one line and
exit 2 before anything is sent."""

from __future__ import annotations

import json
from collections import Counter, defaultdict
from pathlib import Path

import pytest

from tests.conftest import run_locust
from tests.sparkload.run.test_setup_bad_input import assert_clean_failure
from tests.sparkload.workloads.agent_servers import ToolScript, tool_server
from tests.sparkload.workloads.test_conversation_runs import sessions

pytestmark = pytest.mark.e2e  # starts Locust

ID_PREFIX = "[conversation "


def against(server, tmp_path, *args: str):
    return run_locust(
        ["--headless", "-H", server.url, "--no-server-metrics", "--max-tokens", "64", *args],
        tmp_path / "results",
        timeout=120,
    )


def bodies_by_session(bodies: list[dict]) -> dict[str, list[dict]]:
    """What the server received, by the session id line of each body's first user message."""
    out: dict[str, list[dict]] = defaultdict(list)
    for body in bodies:
        first = next(m["content"] for m in body["messages"] if m["role"] == "user")
        assert first.startswith(ID_PREFIX)
        out[first[len(ID_PREFIX) : first.index("]")]].append(body)
    return out


def test_an_agent_ladder_has_exact_counts_and_every_step_carries_the_earlier_calls(tmp_path):
    with tool_server() as server:
        run = against(
            server,
            tmp_path,
            "--workload",
            "agent",
            "--tool-turns",
            "2",
            "--ladder",
            "1,2",
            "--requests-per-user",
            "2",
        )
        bodies = list(server.bodies)
    assert run.returncode == 0, run.output
    records = run.records
    assert Counter((r["level"], r["phase"]) for r in records) == {
        (1, "measure"): 12,  # 1 user x 2 sessions x 2 user turns x (2 tool steps + 1 answer)
        (2, "measure"): 24,
        (1, "warmup"): 1,
        (2, "warmup"): 1,
    }
    assert [(lv["expected"], lv["received"]) for lv in run.manifest["levels"]] == [
        (12, 12),
        (24, 24),
    ]
    assert all(r["status"] == "ok" for r in records)
    by_session = sessions(records)
    assert len(by_session) == 2 + 4
    for steps in by_session.values():
        assert [r["turn"] for r in steps] == list(range(1, 7))
        assert [r["step"] for r in steps] == ["tool_call", "tool_call", "answer"] * 2
        assert [r["extra"]["replied"] for r in steps] == ["tool_call", "tool_call", "text"] * 2
    sent = bodies_by_session(bodies)
    assert sorted(len(b) for b in sent.values()) == [1, 1] + [6] * 6  # warm-ups: one each
    for session in sent.values():
        for k, body in enumerate(session[1:], 1):
            earlier = session[k - 1]["messages"]
            assert body["messages"][: len(earlier)] == earlier
            calls = [
                c
                for m in body["messages"]
                if m["role"] == "assistant"
                for c in m.get("tool_calls") or ()
            ]
            results = [m["tool_call_id"] for m in body["messages"] if m["role"] == "tool"]
            tool_steps_before = sum(1 for b in session[:k] if b["tool_choice"] != "none")
            assert len(calls) == tool_steps_before == len(results)
            assert results == [c["id"] for c in calls]
            assert all(isinstance(json.loads(c["function"]["arguments"]), dict) for c in calls)
    assert run.manifest["workload"]["name"] == "agent"


def test_sessions_that_stop_on_a_text_reply_still_end_each_level_exactly(tmp_path):
    def text_every_fifth(body: dict, number: int) -> bool:
        return number % 5 == 4

    with tool_server(ToolScript(text_when=text_every_fifth)) as server:
        run = against(
            server,
            tmp_path,
            "--workload",
            "agent",
            "--tool-turns",
            "2",
            "--on-text-reply",
            "stop",
            "--ladder",
            "1,2",
            "--requests-per-user",
            "2",
        )
    assert run.returncode == 0, run.output
    measured = [r for r in run.records if r["phase"] == "measure"]
    levels = run.manifest["levels"]
    for level in levels:
        its = [r for r in measured if r["level"] == level["concurrency"]]
        assert level["expected"] == level["received"] == len(its)
        unsent = sum(r["extra"].get("turns_unsent", 0) for r in its)
        assert len(its) + unsent == level["concurrency"] * 2 * 6
    stopped = [r for r in measured if "turns_unsent" in r["extra"]]
    assert stopped and all(r["extra"]["text_reply"] == "stop" for r in stopped)
    for turns in sessions(measured).values():
        assert [r["turn"] for r in turns] == list(range(1, turns[0]["turns"] + 1))


def test_a_replayed_trace_is_one_record_per_turn_in_order_with_growing_prompts(tmp_path):
    task = {"role": "system", "content": "You are a coding agent."}
    conversations = [
        [{"messages": [task, {"role": "user", "content": f"Task {n}"}], "prompt_tokens": 900}]
        + [{"messages": [{"role": "user", "content": f"Observation {n}.{k}"}]} for k in range(n)]
        for n in (1, 2, 3)
    ]
    path = tmp_path / "agentic.json"
    path.write_text(json.dumps({"metadata": {"source": "test"}, "conversations": conversations}))
    with tool_server() as server:
        run = against(
            server,
            tmp_path,
            "--agent-trace",
            str(path),
            "--ladder",
            "1",
            "--requests-per-user",
            "3",
        )
    assert run.returncode == 0, run.output
    measured = [r for r in run.records if r["phase"] == "measure"]
    assert len(measured) == 2 + 3 + 4  # every recorded turn once
    for turns in sessions(measured).values():
        assert [r["turn"] for r in turns] == list(range(1, turns[0]["turns"] + 1))
        prompts = [r["prompt_tokens"] for r in turns]
        assert prompts == sorted(set(prompts))
    assert run.manifest["levels"][0]["expected"] == 9


HELD_OUT = Path(__file__).parent / "data" / "coding_agent_trace.json"


def test_a_held_out_coding_agent_trace_replays_every_turn_once_in_order(tmp_path):
    """Issue 26, must-show 4, on a trace no other test wrote: three OpenHands-style sessions
    (a task, then the observations of its tool runs) of 2, 4 and 5 turns."""
    recorded = [len(c) for c in json.loads(HELD_OUT.read_text())["conversations"]]
    with tool_server() as server:
        run = against(
            server, tmp_path, "--agent-trace", str(HELD_OUT), "--ladder", "1",
            "--requests-per-user", str(len(recorded)),
        )  # fmt: skip
    assert run.returncode == 0, run.output
    measured = [r for r in run.records if r["phase"] == "measure"]
    assert len(measured) == sum(recorded) == run.manifest["levels"][0]["expected"]
    replayed = {turns[0]["extra"]["trace_session"]: turns for turns in sessions(measured).values()}
    assert {n: len(turns) for n, turns in replayed.items()} == dict(enumerate(recorded, 1))
    for n, turns in replayed.items():
        assert {r["extra"]["trace_session"] for r in turns} == {n}
        assert [r["turn"] for r in turns] == list(range(1, len(turns) + 1))
        prompts = [r["prompt_tokens"] for r in turns]
        assert prompts == sorted(set(prompts))  # each turn's context holds the one before


@pytest.mark.parametrize(
    ("name", "text", "expected"),
    [
        (
            "tools.json",
            '[{"type": "function", "function": {"name": "has space"}}]',
            "'function.name'",
        ),
        ("tools.json", "[{", "line 1: not JSON"),
    ],
)
def test_a_malformed_tools_file_is_one_line_and_exit_2_before_anything_is_sent(
    tmp_path, name, text, expected
):
    path = tmp_path / name
    path.write_text(text)
    with tool_server() as server:
        run = against(server, tmp_path, "--workload", "agent", "--tools", str(path))
        assert server.bodies == []
    assert_clean_failure(run, expected)


def test_a_malformed_agent_trace_is_one_line_and_exit_2_before_anything_is_sent(tmp_path):
    path = tmp_path / "bad.json"
    path.write_text(
        json.dumps({"conversations": [[{"messages": [{"role": "robot", "content": "x"}]}]]})
    )
    with tool_server() as server:
        run = against(server, tmp_path, "--agent-trace", str(path))
        assert server.bodies == []
    assert_clean_failure(run, "conversation 1 turn 1: message 1: needs a role")
