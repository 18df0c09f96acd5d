"""A user's session with the agent workload against a scripted tool-calling server: its quota of
a level is whole agent sessions, what the server receives carries every earlier call and its
results, ``--on-text-reply`` ends or keeps a session, and a recorded gap is waited from the send
before."""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Iterator
from contextlib import contextmanager

import pytest
from locust.argument_parser import LocustArgumentParser

from sparkload.inputs.prompts import PromptOrder
from sparkload.plugin.options import register
from sparkload.run import session as session_module
from sparkload.run.context import RunContext
from sparkload.run.session import UserSession
from tests.sparkload.workloads.agent_servers import ToolScript, ToolServer, tool_server
from tests.sparkload.workloads.test_contract import Shipped
from tests.sparkload.workloads.test_conversation_session import level_quota, measuring


@contextmanager
def agent(*args: str, script: ToolScript | None = None) -> Iterator[tuple[UserSession, ToolServer]]:
    """One user's session of ``--workload agent ARGS`` against a tool-calling server."""
    parser = LocustArgumentParser()
    register(parser)
    parsed = parser.parse_args(["--workload", "agent", *args])
    with tool_server(script) as server:
        context = RunContext.from_options(parsed, server.url)
        session = UserSession(
            context=dataclasses.replace(context, model="m"),
            ordinal=0,
            endpoint=context.endpoints[0],
            node_id="local",
            worker_label="local",
            prompt_order=PromptOrder(context.workload.prompt_count, 0),
            shipper=Shipped(),
            next_request_id=lambda: "r",
        )
        try:
            yield session, server
        finally:
            session.close()


def test_a_users_quota_of_a_level_is_whole_agent_sessions_of_tool_steps_and_answers():
    with agent("--tool-turns", "2", "--turns", "2", "--requests-per-user", "2") as (session, _):
        sent = level_quota(session, measuring())
    assert [(r["turn"], r["turns"]) for r in sent] == [(t, 6) for t in range(1, 7)] * 2
    assert [r["step"] for r in sent] == ["tool_call", "tool_call", "answer"] * 4
    assert [r["extra"]["replied"] for r in sent] == ["tool_call", "tool_call", "text"] * 4
    assert len({r["session_id"] for r in sent}) == 2


def test_the_server_receives_every_earlier_call_with_its_results_by_id():
    with agent("--tool-turns", "2", "--turns", "2", "--requests-per-user", "1") as (
        session,
        server,
    ):
        level_quota(session, measuring())
        bodies = server.bodies
    assert [b["tool_choice"] for b in bodies] == ["auto", "auto", "none"] * 2
    assert all(b["tools"] and b["tools"][0]["function"]["name"] == "read_file" for b in bodies)
    for before, after in zip(bodies, bodies[1:], strict=False):
        assert after["messages"][: len(before["messages"])] == before["messages"]
    last = bodies[-1]["messages"]
    calls = [c for m in last if m["role"] == "assistant" for c in m.get("tool_calls") or ()]
    results = [m for m in last if m["role"] == "tool"]
    assert len(calls) == 4 and [r["tool_call_id"] for r in results] == [c["id"] for c in calls]
    assert all(json.loads(c["function"]["arguments"]) for c in calls)


def test_under_stop_a_text_reply_ends_the_session_and_the_quota_goes_on_with_the_next():
    script = ToolScript(text_when=lambda _body, number: number == 1)  # the second request
    with agent(
        "--tool-turns",
        "2",
        "--turns",
        "2",
        "--requests-per-user",
        "2",
        "--on-text-reply",
        "stop",
        script=script,
    ) as (session, _):
        level_quota(session, measuring())
        shipped = list(session.shipper)
    assert [(r["turn"], r["turns"]) for r in shipped] == [(1, 2), (2, 2)] + [
        (t, 6) for t in range(1, 7)
    ]
    assert shipped[1]["extra"]["turns_unsent"] == 4 and shipped[1]["extra"]["text_reply"] == "stop"


def test_a_session_that_may_end_early_ships_its_records_when_it_ends():
    with agent("--tool-turns", "1", "--turns", "1", "--on-text-reply", "stop") as (session, _):
        signal = measuring()
        session.send(session.next_assignment(signal), signal)
        held = len(session.shipper)
        session.send(session.next_assignment(signal), signal)
        assert (held, len(session.shipper)) == (0, 2)


def test_under_continue_a_text_reply_keeps_the_session_whole():
    script = ToolScript(text_when=lambda _body, number: number == 1)
    with agent("--tool-turns", "2", "--turns", "2", "--requests-per-user", "1", script=script) as (
        session,
        server,
    ):
        sent = level_quota(session, measuring())
        third = server.bodies[2]["messages"]
    assert len(sent) == 6 and sent[1]["extra"]["text_reply"] == "continue"
    assert [m["role"] for m in third[-2:]] == ["assistant", "user"]


def test_a_recorded_gap_is_waited_from_the_send_before(tmp_path, monkeypatch):
    timed = [
        {"role": "user", "content": "Fix it.", "timestamp": 100.0},
        {"role": "assistant", "content": "Done."},
        {"role": "user", "content": "And the docs.", "timestamp": 104.5},
    ]
    path = tmp_path / "timed.jsonl"
    path.write_text(json.dumps(timed) + "\n")
    waits: list[float] = []
    monkeypatch.setattr(session_module, "sleep", waits.append)
    with agent("--agent-trace", str(path), "--requests-per-user", "1") as (session, server):
        level_quota(session, measuring())
        sent = len(server.bodies)
    assert sent == 2 and len(waits) == 1
    assert 4.0 < waits[0] < 4.5  # the gap less the time since the first turn's send


@pytest.mark.parametrize("history", ["model", "dataset"])
def test_a_replayed_session_sends_one_request_per_recorded_turn(tmp_path, history):
    line = [
        {"role": "user", "content": "List the files."},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {"id": "r1", "type": "function", "function": {"name": "ls", "arguments": "{}"}}
            ],
        },
        {"role": "tool", "tool_call_id": "r1", "content": "a.py b.py"},
        {"role": "assistant", "content": "Two files."},
    ]
    path = tmp_path / "one.jsonl"
    path.write_text(json.dumps(line) + "\n")
    with agent("--agent-trace", str(path), "--history", history) as (session, server):
        sent = level_quota(session, measuring())
        second = server.bodies[1]["messages"]
    assert len(sent) == 10 * 2  # --requests-per-user's default sessions of two turns
    assert [m["role"] for m in second] == ["user", "assistant", "tool"]
    ids = second[1]["tool_calls"][0]["id"], second[2]["tool_call_id"]
    assert ids == (("r1", "r1") if history == "dataset" else ("chatcmpl-tool-0-0",) * 2)


def test_a_sub_agent_that_stops_shrinks_its_session_and_the_records_carry_the_count_sent():
    script = ToolScript(text_when=lambda _body, number: number == 1)  # the sub-agent's first
    with agent(
        "--tool-turns",
        "1",
        "--turns",
        "1",
        "--subagent-rate",
        "1",
        "--requests-per-user",
        "2",
        "--on-text-reply",
        "stop",
        script=script,
    ) as (session, _):
        level_quota(session, measuring())
        shipped = list(session.shipper)
    # session 1: the parent's tool step, the sub-agent's stopped step, the parent's answer;
    # session 2: whole (4 requests)
    assert [(r["turn"], r["turns"], r["depth"]) for r in shipped] == [
        (1, 3, 0),
        (2, 3, 1),
        (3, 3, 0),
        (1, 4, 0),
        (2, 4, 1),
        (3, 4, 1),
        (4, 4, 0),
    ]
    assert shipped[1]["extra"]["turns_unsent"] == 1
