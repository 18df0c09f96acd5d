"""A user's session with the conversation workload: its quota of a ladder level is whole
conversations, its think time is waited before the send, and a stage that moves on during the
wait keeps the request from going."""

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
from sparkload.stages import MEASURE, RUN, LevelSignal, Stage
from tests.servers import Script, ScriptedServer, scripted
from tests.sparkload.workloads.test_contract import Shipped


@contextmanager
def conversing(*args: str, time_scale: float = 1.0) -> Iterator[tuple[UserSession, ScriptedServer]]:
    """One user's session of ``--workload conversation ARGS`` against a scripted server."""
    parser = LocustArgumentParser()
    register(parser)
    parsed = parser.parse_args(["--workload", "conversation", *args])
    with scripted(Script(tokens=3)) as server:
        context = RunContext.from_options(parsed, server.url)
        session = UserSession(
            context=dataclasses.replace(context, model="m", time_scale=time_scale),
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


def level_quota(session: UserSession, signal: LevelSignal) -> list[dict]:
    """Everything the user sends in the current measured level, until its quota is done."""
    sent = []
    while (assignment := session.next_assignment(signal)) is not None:
        record = session.send(assignment, signal)
        assert record is not None
        sent.append(record.to_dict())
    return sent


def measuring(level: int = 0) -> LevelSignal:
    signal = LevelSignal()
    signal.update(Stage(MEASURE, level, 1))
    return signal


def test_a_users_quota_of_a_level_is_whole_conversations():
    with conversing("--turns", "3", "--requests-per-user", "2") as (session, _):
        sent = level_quota(session, measuring())
    assert [(r["turn"], r["turns"]) for r in sent] == [(1, 3), (2, 3), (3, 3)] * 2
    assert len({r["session_id"] for r in sent}) == 2


def test_with_drawn_turns_every_conversation_of_the_quota_is_sent_whole():
    with conversing("--turns", "2", "--turns-stddev", "2", "--requests-per-user", "5") as (
        session,
        _,
    ):
        sent = level_quota(session, measuring())
    firsts = [r for r in sent if r["turn"] == 1]
    assert len(firsts) == 5
    assert len(sent) == sum(r["turns"] for r in firsts)
    assert len({r["turns"] for r in firsts}) > 1  # the draws differ (fixed by the seed)


def test_each_turn_sends_what_the_server_streamed_before_as_the_assistant_message():
    with conversing("--turns", "2", "--requests-per-user", "1") as (session, server):
        level_quota(session, measuring())
        bodies = [json.loads(body) for _, body in server.requests]
    assert bodies[1]["messages"][:2] == [
        bodies[0]["messages"][0],
        {"role": "assistant", "content": " t0 t1 t2"},
    ]


def test_the_think_time_is_waited_in_real_seconds_before_the_send(monkeypatch):
    waits: list[float] = []
    monkeypatch.setattr(session_module, "sleep", waits.append)
    with conversing(
        "--turns", "3", "--think-time", "5", "--requests-per-user", "1", time_scale=10
    ) as (
        session,
        _,
    ):
        sent = level_quota(session, measuring())
    think = [r["extra"].get("think_s", 0.0) for r in sent]
    assert think[0] == 0.0 and all(t > 0 for t in think[1:])
    assert waits == pytest.approx([t / 10 for t in think[1:]])


def test_a_turn_whose_step_ended_during_the_think_time_is_not_sent(monkeypatch):
    signal = LevelSignal()
    signal.update(Stage(RUN, 0, 1))
    monkeypatch.setattr(session_module, "sleep", lambda _: signal.update(Stage(RUN, 1, 2)))
    with conversing("--turns", "3", "--think-time", "5") as (session, server):
        first = session.send(session.next_assignment(signal), signal)
        second = session.send(session.next_assignment(signal), signal)
        sent = len(server.requests)
    assert first is not None and first.turn == 1
    assert second is None and sent == 1
