"""A user's quota of a counted level comes with the stage: --target-precision sets it and
raises it by broadcasting the level's stage again, which the user follows without dropping the
conversation under way."""

from __future__ import annotations

from sparkload.run import session as session_module
from sparkload.stages import MEASURE, LevelSignal, Stage
from tests.sparkload.workloads.test_conversation_session import conversing, level_quota


def measuring(quota: int) -> LevelSignal:
    signal = LevelSignal()
    signal.update(Stage(MEASURE, 0, 1, quota=quota))
    return signal


def test_the_stages_quota_takes_the_place_of_requests_per_user():
    with conversing("--turns", "1", "--requests-per-user", "2") as (session, _):
        sent = level_quota(session, measuring(quota=3))
    assert len(sent) == 3


def test_a_larger_quota_broadcast_for_the_same_level_sends_the_difference():
    with conversing("--turns", "2", "--requests-per-user", "10") as (session, _):
        signal = measuring(quota=1)
        first = level_quota(session, signal)
        signal.update(Stage(MEASURE, 0, 1, quota=3))
        more = level_quota(session, signal)
    assert (len(first), len(more)) == (2, 4)  # whole conversations of 2 turns each
    assert len({r["session_id"] for r in first + more}) == 3


def test_a_turn_whose_level_was_extended_during_the_think_time_is_still_sent(monkeypatch):
    signal = measuring(quota=1)
    extended = Stage(MEASURE, 0, 1, quota=2)
    monkeypatch.setattr(session_module, "sleep", lambda _: signal.update(extended))
    with conversing("--turns", "2", "--think-time", "5") as (session, server):
        first = session.send(session.next_assignment(signal), signal)
        second = session.send(session.next_assignment(signal), signal)
        sent = len(server.requests)
    assert first is not None and second is not None and sent == 2
    assert second.turn == 2
