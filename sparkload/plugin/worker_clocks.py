"""Worker clocks, measured over Locust's own messaging (the arithmetic: ``clock_offsets``).

The master asks each worker for its wall clock ``TRIPS`` times in a row, at the run's start and
at every level's start, and keeps the shortest round trip's offset. The records a worker ships
are put on the master's clock with its latest offset (``records.on_master_clock``). A worker
whose offset is unknown when its records arrive, or moves between readings by more than
``clocks.MOVE_LIMIT`` beyond the round trips' uncertainty, is flagged in the manifest and on the
console.
"""

from __future__ import annotations

import itertools
import logging
import time
from typing import Any

import gevent
from gevent.event import AsyncResult

from sparkload.clock_offsets import START, Reading, RoundTrip, moved, reading

logger = logging.getLogger("sparkload")

MSG_PING = "sparkload_clock_ping"  # master -> worker: {"seq"}
MSG_PONG = "sparkload_clock_pong"  # worker -> master: {"seq", "time": its wall clock}
TRIPS = 5  # round trips per reading
ANSWER_TIMEOUT = 2.0  # seconds a round trip may take; a worker that does not answer is skipped
# ... at the run's start: nothing waits on it yet, and a worker that has just connected may still
# be busy starting (a loaded client host); without this reading its first records are unaligned
START_ANSWER_TIMEOUT = 10.0


def answer_pings(runner: Any) -> None:
    """A worker's side: answer every ping with its wall clock at once."""

    def on_ping(environment: Any, msg: Any, **_kwargs: Any) -> None:
        runner.send_message(MSG_PONG, {"seq": msg.data["seq"], "time": time.time()})

    runner.register_message(MSG_PING, on_ping)


class WorkerClocks:
    """The master's side: readings per worker, the offset to apply, and the flags."""

    def __init__(self, runner: Any) -> None:
        self.runner = runner
        self.readings: dict[str, list[Reading]] = {}
        self.flags: dict[str, list[str]] = {}
        self._answers: dict[int, AsyncResult] = {}
        self._seq = itertools.count()
        runner.register_message(MSG_PONG, self._on_pong)

    def measure(self, nodes: list[str], at: str | int, wait: bool) -> None:
        """Take a reading of every node in ``nodes``, in parallel; ``wait`` until they are in
        (bounded: TRIPS x ANSWER_TIMEOUT)."""
        readings = [gevent.spawn(self._measure, node, at) for node in nodes]
        if wait:
            gevent.joinall(readings)

    def offset(self, node: str) -> float | None:
        """The latest offset of ``node`` (None: none measured yet)."""
        taken = self.readings.get(node)
        return taken[-1].offset if taken else None

    def note_unaligned(self, node: str) -> None:
        """Records of ``node`` arrived with no offset known: they keep the worker's clock."""
        self._flag(
            node,
            "records arrived before its clock offset was known: their wall-clock "
            "times are the worker's own",
        )

    def entry(self, node: str) -> dict[str, Any]:
        """The manifest's clock fields of ``node`` (``records.WorkerEntry``)."""
        taken = self.readings.get(node, [])
        latest = taken[-1] if taken else None
        return {
            "clock_offset": round(latest.offset, 6) if latest else None,
            "clock_rtt": round(latest.rtt, 6) if latest else None,
            "clock_readings": [r.to_dict() for r in taken],
            "clock_flags": list(self.flags.get(node, [])),
        }

    def reset(self) -> None:
        self.readings.clear()
        self.flags.clear()

    def _measure(self, node: str, at: str | int) -> None:
        trips = []
        timeout = START_ANSWER_TIMEOUT if at == START else ANSWER_TIMEOUT
        for _ in range(TRIPS):
            seq = next(self._seq)
            answer = self._answers[seq] = AsyncResult()
            sent = time.time()
            try:
                self.runner.send_message(MSG_PING, {"seq": seq}, client_id=node)
                worker, back = answer.get(timeout=timeout)
            except gevent.Timeout:
                break
            finally:
                del self._answers[seq]
            trips.append(RoundTrip(sent, worker, back))
        taken = reading(at, trips)
        if taken is None:
            self._flag(node, f"no answer to the clock check at {_when(at)}")
            return
        before = self.readings.get(node, [])
        change = moved(before[-1], taken) if before else None
        if change is not None:
            self._flag(
                node,
                f"its clock moved by {change * 1000:+.1f} ms against the master's between "
                f"{_when(before[-1].at)} and {_when(at)}",
            )
        self.readings.setdefault(node, []).append(taken)

    def _on_pong(self, environment: Any, msg: Any, **_kwargs: Any) -> None:
        back = time.time()
        answer = self._answers.get(msg.data.get("seq"))
        if answer is not None:
            answer.set((float(msg.data["time"]), back))

    def _flag(self, node: str, text: str) -> None:
        flags = self.flags.setdefault(node, [])
        if text not in flags:
            flags.append(text)
            logger.warning("sparkload: worker %s: %s", node, text)


def _when(at: str | int) -> str:
    return "the start" if isinstance(at, str) else f"level {at + 1}"
