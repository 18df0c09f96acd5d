"""Worker clocks over Locust's messages (plugin.worker_clocks), against stand-in runners whose
worker answers with a clock set apart by a chosen amount."""

from __future__ import annotations

import re
import time
from typing import Any

import gevent
import pytest
from locust.rpc import Message

from sparkload.clock_offsets import START
from sparkload.plugin import worker_clocks
from sparkload.plugin.worker_clocks import MSG_PING, MSG_PONG, WorkerClocks, answer_pings

NODE = "client-b_0123"


class StandInMaster:
    """Delivers each ping to a worker whose clock is ``skew`` seconds ahead, if it answers."""

    def __init__(self, skew: float = 0.0) -> None:
        self.skew = skew
        self.answering = True
        self.custom: dict[str, Any] = {}

    def register_message(self, msg_type: str, listener: Any, concurrent: bool = False) -> None:
        self.custom[msg_type] = listener

    def send_message(self, msg_type: str, data: Any = None, client_id: str | None = None) -> None:
        if msg_type == MSG_PING and self.answering:
            pong = {"seq": data["seq"], "time": time.time() + self.skew}
            gevent.spawn(self.custom[MSG_PONG], environment=None, msg=Message(MSG_PONG, pong, NODE))


def test_the_offset_is_the_workers_clock_minus_the_masters():
    runner = StandInMaster(skew=2.0)
    clocks = WorkerClocks(runner)
    clocks.measure([NODE], START, wait=True)
    assert clocks.offset(NODE) == pytest.approx(2.0, abs=0.05)
    assert clocks.entry(NODE)["clock_flags"] == []


def test_every_reading_is_kept_with_when_it_was_taken():
    clocks = WorkerClocks(StandInMaster(skew=-0.3))
    for at in (START, 0, 1):
        clocks.measure([NODE], at, wait=True)
    entry = clocks.entry(NODE)
    assert [r["at"] for r in entry["clock_readings"]] == [START, 0, 1]
    assert entry["clock_offset"] == pytest.approx(-0.3, abs=0.05) and entry["clock_rtt"] >= 0


def test_a_worker_that_does_not_answer_has_no_offset_and_is_flagged(monkeypatch):
    monkeypatch.setattr(worker_clocks, "START_ANSWER_TIMEOUT", 0.05)
    runner = StandInMaster()
    runner.answering = False
    clocks = WorkerClocks(runner)
    clocks.measure([NODE], START, wait=True)
    assert clocks.offset(NODE) is None
    assert clocks.entry(NODE)["clock_flags"] == ["no answer to the clock check at the start"]


def test_a_clock_stepped_between_two_levels_is_flagged_and_the_new_offset_applies():
    runner = StandInMaster(skew=2.0)
    clocks = WorkerClocks(runner)
    clocks.measure([NODE], 0, wait=True)
    runner.skew = 2.5
    clocks.measure([NODE], 1, wait=True)
    (flag,) = clocks.entry(NODE)["clock_flags"]
    moved = re.fullmatch(r"its clock moved by ([+-][\d.]+) ms .* between level 1 and level 2", flag)
    assert moved and float(moved.group(1)) == pytest.approx(500, abs=50)
    assert clocks.offset(NODE) == pytest.approx(2.5, abs=0.05)


def test_records_before_any_offset_are_flagged_once():
    clocks = WorkerClocks(StandInMaster())
    clocks.note_unaligned(NODE)
    clocks.note_unaligned(NODE)
    assert len(clocks.entry(NODE)["clock_flags"]) == 1


def test_a_new_run_starts_with_no_readings():
    clocks = WorkerClocks(StandInMaster(skew=1.0))
    clocks.measure([NODE], START, wait=True)
    clocks.reset()
    assert clocks.offset(NODE) is None and clocks.entry(NODE)["clock_readings"] == []


def test_a_worker_answers_a_ping_with_its_own_clock():
    sent: list[tuple[str, Any]] = []

    class StandInWorker:
        custom: dict[str, Any] = {}

        def register_message(self, msg_type: str, listener: Any, concurrent: bool = False) -> None:
            self.custom[msg_type] = listener

        def send_message(
            self, msg_type: str, data: Any = None, client_id: str | None = None
        ) -> None:
            sent.append((msg_type, data))

    worker = StandInWorker()
    answer_pings(worker)
    before = time.time()
    worker.custom[MSG_PING](environment=None, msg=Message(MSG_PING, {"seq": 7}, "master"))
    ((kind, data),) = sent
    assert kind == MSG_PONG and data["seq"] == 7 and before <= data["time"] <= time.time()


def test_a_level_reading_waits_less_for_an_answer_than_the_start_reading(monkeypatch):
    monkeypatch.setattr(worker_clocks, "ANSWER_TIMEOUT", 0.05)
    monkeypatch.setattr(worker_clocks, "START_ANSWER_TIMEOUT", 1.0)
    runner = StandInMaster()
    runner.answering = False
    clocks = WorkerClocks(runner)
    began = time.monotonic()
    clocks.measure([NODE], 0, wait=True)
    level_wait = time.monotonic() - began
    began = time.monotonic()
    clocks.measure([NODE], START, wait=True)
    assert level_wait < 1.0 <= time.monotonic() - began
