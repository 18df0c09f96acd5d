"""Load shapes, one file each: how many users, and what they are told to do, over a run.

A shape runs on the master only. Each ``tick`` (about once a second, and after every batch of
records) returns Locust's ``(users, spawn_rate)`` or None when the run is over; it acts on the
world only through a ``Conductor``.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Protocol

import gevent.lock

from sparkload.capacity import CapacityResult
from sparkload.records import ProbeVerdict
from sparkload.run.livetable import LevelTally
from sparkload.stages import Stage

SPAWN_RATE = 100.0  # users/s: levels start at once (Locust warns above 100 per worker)
Tick = tuple[int, float] | None


class Conductor(Protocol):
    distributed: bool

    def broadcast(self, stage: Stage) -> None: ...
    def users_ready(self, count: int) -> bool: ...
    def busy_node(self) -> str: ...
    def begin_level(
        self,
        index: int,
        concurrency: int,
        expected: int | None,
        arrival_rate: float | None = None,
        sessions: int | None = None,
    ) -> LevelTally: ...
    def end_level(
        self, index: int, saturation: str | None = None, stops_sweep: bool = False
    ) -> None:
        """``saturation``: what showed the level over-saturated; ``stops_sweep``: no level
        follows it (its arrivals were stopped early)."""
        ...

    def in_flight(self) -> int: ...
    def user_shares(self) -> dict[str, int]:
        """Users per process (node id): how an open-loop schedule is dealt."""
        ...

    def judge_level(self, index: int) -> ProbeVerdict | None:
        """An ended level judged as ``--check`` judges it (the analysis's ``--check-level``
        verdict); None when it could not be judged (the run is then aborted)."""
        ...

    def record_capacity(self, result: CapacityResult) -> None:
        """A capacity search's answer so far: into the manifest, and said once complete."""
        ...


class Shape(Protocol):
    """A load plan. ``tick`` returns Locust's ``(users, spawn_rate)``, or None once the plan is
    over (``finished`` is then True); it may begin and end levels and broadcast stages through the
    conductor, whose calls may yield to other greenlets (a level's end writes the manifest and
    reads the server's /metrics). Callers never re-enter it (``SerialTicks``)."""

    finished: bool

    def tick(self, conductor: Conductor, now: float) -> Tick: ...


def after(now: float, act: Callable[[], object]) -> float:
    """``act()``, then ``now`` moved on by the real time it took. A shape that ends a level
    starts the next in the same tick; ending one writes the manifest, scrapes /metrics and may
    judge the level (a capacity search's verdict takes about a second), so the next level must
    not be dated as if it began before all that (an open-loop level would then end its arrivals,
    and judge its backlog, that much too soon)."""
    began = time.monotonic()
    act()
    return now + (time.monotonic() - began)


class SerialTicks:
    """One tick of a shape at a time. The master ticks its shape on Locust's schedule and again
    the moment records arrive; a second tick entering while the first waits inside ``end_level``
    would see the same finished level, end it twice and skip the next one."""

    def __init__(self, shape: Shape) -> None:
        self.shape = shape
        self._lock = gevent.lock.Semaphore()
        self._last: Tick = None

    def tick(self, conductor: Conductor, now: float, wait: bool = True) -> Tick:
        """The shape's tick; without ``wait``, a tick under way makes this one a no-op (its
        result is the last one)."""
        if not self._lock.acquire(blocking=wait):
            return self._last
        try:
            self._last = self.shape.tick(conductor, now)
            return self._last
        finally:
            self._lock.release()
