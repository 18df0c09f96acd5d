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
from sparkload.records import NO_MARKS, LevelMarks, ProbeVerdict
from sparkload.run.livetable import LevelTally
from sparkload.stages import Stage

SPAWN_RATE = 100.0  # users/s: levels start at once (Locust warns above 100 per worker)
Tick = tuple[int, float] | None


class Conductor(Protocol):
    """What a shape may do to the world: the run controller's side of a tick.

    A shape calls these from its ``tick`` only (never from another greenlet). Any call may
    yield to other greenlets (records arrive, the manifest is written, /metrics are read), so a
    shape keeps no state that another tick could see half-changed (``SerialTicks`` keeps ticks
    from overlapping). Levels are numbered by ``index`` from 0 over the whole run (``--repeat``
    counts on), and each level a shape begins it also ends, in order.
    """

    distributed: bool
    """True on a master with workers: a warm-up goes to one worker (``busy_node``), an open
    loop's schedule is dealt over the workers' users (``user_shares``)."""

    def broadcast(self, stage: Stage) -> None:
        """Tell every process (this one too) what to do now: spawn, warm up, measure, run, send
        a level's arrivals or stop them, idle (``sparkload.stages``). An open-loop stage's whole
        schedule is also kept in the manifest's level entry."""
        ...

    def users_ready(self, count: int) -> bool:
        """Locust runs exactly ``count`` users, all spawned: a level's work may begin."""
        ...

    def busy_node(self) -> str:
        """A process that runs users (``"local"``, or a worker's id): who sends the warm-up."""
        ...

    def begin_level(
        self,
        index: int,
        concurrency: int,
        expected: int | None,
        arrival_rate: float | None = None,
        sessions: int | None = None,
        marks: LevelMarks = NO_MARKS,
    ) -> LevelTally:
        """Level ``index`` starts: its entry goes into the manifest, its start is scraped, the
        workers' clocks are read, and its live tally is returned (records, warm-ups, whether
        ``expected`` measured requests are in). ``expected``: the measured requests of a
        count-based level (None: time-based, open loop, or turns drawn per conversation, when
        ``sessions`` says how many conversations the tally waits for); ``arrival_rate``: an
        open-loop level's offered rate (its ``concurrency`` is then the client pool); ``marks``:
        what the level is beyond its load (a --refine-knee level, a scenario's phase, the level
        holding a capacity search's found load for --sustain)."""
        ...

    def end_level(
        self, index: int, saturation: str | None = None, stops_sweep: bool = False
    ) -> None:
        """Level ``index`` is over and all its records are in: its checks (client, stream,
        saturation) and counts go into the manifest and its end is scraped. ``saturation``:
        what showed the level over-saturated; ``stops_sweep``: no level follows it (its
        arrivals were stopped early)."""
        ...

    def in_flight(self) -> int:
        """Requests issued by every process and not yet received by the master (an open
        loop's due arrivals waiting for a user among them): a level drains until it is 0."""
        ...

    def user_shares(self) -> dict[str, int]:
        """Users per process (node id): how an open-loop schedule is dealt."""
        ...

    def judge_level(self, index: int, bounds: list[str]) -> list[ProbeVerdict] | None:
        """An ended level judged as ``--check`` judges it, under each of ``bounds`` (the
        analysis's ``--check-level`` verdicts, one per bounds, in one child process: about a
        second); None when it could not be judged (the run is then aborted)."""
        ...

    def record_capacity(self, results: list[CapacityResult]) -> None:
        """The capacity searches' answers so far (--find-capacity's one, or one per --tier):
        into the manifest, and each said once complete."""
        ...

    def record_sustain(self, value: float | None, verdict: ProbeVerdict | None) -> None:
        """--sustain's level at ``value`` judged under the search's bounds: into the manifest's
        capacity entry, said once; a capacity that did not hold fails the run as a capacity
        not found does (exit 4). ``value`` None: no capacity was found, nothing held (said)."""
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
