"""Open loop: requests start on a seeded schedule whatever the server does.

A level's schedule is one for the whole run: arrivals at the level's rate with Poisson
(exponential), constant or gamma gaps (``--arrival-process``, ``--burstiness``: vLLM's gamma of
shape B and mean 1/rate), or a trace's lines at their timestamps (``--trace``). Every process
computes the same schedule from the seed and keeps its share, dealt in proportion to its users
(``my_share``): the processes together send the schedule exactly once. So a gamma schedule stays
as bursty as asked however many processes send it (processes that drew their own would add up to
something nearer Poisson), a constant one stays evenly spaced, and a trace line is sent once.

Rates, durations and trace timestamps are in the target's time (simulated seconds on the
built-in simulator); the feed divides them by the time scale. A request that finds no free user
waits, and that wait is recorded as ``queue_wait``.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Iterable, Iterator, Mapping
from typing import TypeVar

import gevent

from sparkload.config import CONSTANT, GAMMA
from sparkload.shapes import SPAWN_RATE, Conductor, Tick
from sparkload.shapes.drain import Drain
from sparkload.stages import ARRIVAL, Arrival, LevelSignal, Stage

T = TypeVar("T")
SCHEDULE_GRACE = 1.0  # real seconds after a level's last due time before its drain begins
Due = tuple[float, int | None]  # (target seconds from the level's start, trace line or None)


def gaps(process: str, rate: float, burstiness: float, rng: random.Random) -> Iterator[float]:
    """Endless inter-arrival gaps of ``process`` at ``rate`` per second (mean 1/rate)."""
    if process == CONSTANT:
        while True:
            yield 1.0 / rate
    if process == GAMMA:  # shape B, scale 1/(rate B): mean 1/rate, coefficient of variation 1/√B
        scale = 1.0 / (rate * burstiness)
        while True:
            yield rng.gammavariate(burstiness, scale)
    while True:
        yield rng.expovariate(rate)


def offsets(gap_seq: Iterable[float], duration: float) -> Iterator[float]:
    """Arrival times from the start: the running sums of the gaps that fall before ``duration``."""
    t = 0.0
    for gap in gap_seq:
        t += gap
        if t >= duration:
            return
        yield t


def rate_schedule(
    process: str, rate: float, burstiness: float, duration: float, seed: str
) -> Iterator[Due]:
    """A rate level's schedule, the same on every process for the same ``seed``."""
    rng = random.Random(seed)
    return ((t, None) for t in offsets(gaps(process, rate, burstiness, rng), duration))


def trace_schedule(timestamps: Iterable[float], speedup: float) -> Iterator[Due]:
    """A trace's schedule: line i at its timestamp (seconds from the first line) / speedup."""
    return ((t / speedup, line) for line, t in enumerate(timestamps))


def my_share(items: Iterable[T], shares: Mapping[str, int], node: str) -> Iterator[T]:
    """The items ``node`` sends when they are dealt in proportion to ``shares`` (users per
    process): smooth weighted round robin, each item to the process furthest behind its share
    (ties to the first in node order). Every process computes the same deal, so the shares are
    disjoint and together hold every item."""
    nodes = sorted(name for name, users in shares.items() if users > 0)
    if node not in nodes:
        return
    weights = [shares[name] for name in nodes]
    total, mine = sum(weights), nodes.index(node)
    behind = [0] * len(nodes)
    for item in items:
        for i, weight in enumerate(weights):
            behind[i] += weight
        pick = max(range(len(nodes)), key=behind.__getitem__)
        behind[pick] -= total
        if pick == mine:
            yield item


def start_schedule(
    signal: LevelSignal,
    schedule: Iterable[Due],
    time_scale: float,
    on_arrival: Callable[[], None],
    stage: Stage | None = None,
) -> gevent.Greenlet:
    """Feed this process's arrivals of ``stage`` into ``signal.arrivals`` at their due times
    (target seconds divided by ``time_scale``).

    ``on_arrival`` counts each one as issued the moment it is due, so requests still waiting
    for a free user keep the run from ending before they are served.
    """

    def feed() -> None:
        start, start_wall = time.perf_counter(), time.time()
        for offset, line in schedule:
            real = offset / time_scale
            delay = start + real - time.perf_counter()
            if delay > 0:
                gevent.sleep(delay)
            on_arrival()
            signal.arrivals.put(Arrival(start_wall + real, start + real, line, stage))

    return gevent.spawn(feed)


class ArrivalShape:
    """Open loop over one or more offered rates, one level each, the same client pool for all.

    A level's arrivals run for ``duration`` (target seconds; a trace's level lasts as long as
    the trace); the next rate starts once the previous level's queued and in-flight requests
    are done (or their timeout passed), so each level's records are its own rate's.
    """

    def __init__(
        self,
        rates: tuple[float, ...],
        users: int,
        duration: float,
        request_timeout: float,
        time_scale: float = 1.0,
    ) -> None:
        self.rates = rates
        self.users = users
        self.duration = duration
        self.time_scale = time_scale
        self.request_timeout = request_timeout
        self.index = 0
        self.started: float | None = None
        self.drain = Drain(timeout=request_timeout + 5.0)
        self.finished = False

    @property
    def real_duration(self) -> float:
        """Real seconds of a level's arrivals."""
        return self.duration / self.time_scale

    def tick(self, conductor: Conductor, now: float) -> Tick:
        if self.index >= len(self.rates):
            self.finished = self.drain.done(conductor, now)
            return None if self.finished else (self.users, SPAWN_RATE)
        if self.started is None:
            if not conductor.users_ready(self.users):
                return (self.users, SPAWN_RATE)
            rate = self.rates[self.index]
            conductor.begin_level(self.index, self.users, None, arrival_rate=rate)
            conductor.broadcast(
                Stage(
                    ARRIVAL,
                    self.index,
                    self.users,
                    arrival_rate=rate,
                    arrival_duration=self.duration,
                    shares=conductor.user_shares(),
                )
            )
            self.started = now
        elif (
            now - self.started >= self.real_duration + SCHEDULE_GRACE and self.drain.started is None
        ):
            self.drain.done(conductor, now)  # arrivals are over; queued ones are still served
        elif self.drain.started is not None and self._served(conductor, now):
            conductor.end_level(self.index)  # with every record of its rate
            self.level_ended(conductor)
            self.index += 1
            self.started = None
            self.drain = Drain(timeout=self.request_timeout + 5.0)
            if self.index >= len(self.rates):
                conductor.broadcast(Stage())
            return self.tick(conductor, now)
        return (self.users, SPAWN_RATE)

    def level_ended(self, conductor: Conductor) -> None:
        """After a level's end, before the next: a sweep's rates are all known from the start
        (a capacity search over rates, ``shapes/search.py``, chooses its next one here)."""

    def _served(self, conductor: Conductor, now: float) -> bool:
        """The level's queue and in-flight requests are done (or waited for long enough)."""
        return conductor.in_flight() <= 0 or now - (self.drain.started or now) > self.drain.timeout
