"""Open loop: requests start on a seeded Poisson schedule whatever the server does.

Each process draws its share of the arrivals (rate x its users / all users) and queues them;
a request that finds no free user waits, and that wait is recorded as ``queue_wait``.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable

import gevent

from sparkload.shapes import SPAWN_RATE, Conductor, Tick
from sparkload.shapes.drain import Drain
from sparkload.stages import ARRIVAL, Arrival, LevelSignal, Stage


def poisson_offsets(rate: float, duration: float, rng: random.Random) -> list[float]:
    """Arrival times (seconds from start) of a Poisson process of ``rate`` over ``duration``."""
    offsets: list[float] = []
    t = rng.expovariate(rate) if rate > 0 else duration
    while t < duration:
        offsets.append(t)
        t += rng.expovariate(rate)
    return offsets


def start_schedule(
    signal: LevelSignal, rate: float, duration: float, seed: str, on_arrival: Callable[[], None]
) -> gevent.Greenlet:
    """Feed this process's arrivals into ``signal.arrivals`` at their due times.

    ``on_arrival`` counts each one as issued the moment it is due, so requests still waiting
    for a free user keep the run from ending before they are served.
    """
    offsets = poisson_offsets(rate, duration, random.Random(seed))

    def feed() -> None:
        start, start_wall = time.perf_counter(), time.time()
        for offset in offsets:
            delay = start + offset - time.perf_counter()
            if delay > 0:
                gevent.sleep(delay)
            on_arrival()
            signal.arrivals.put(Arrival(start_wall + offset, start + offset))

    return gevent.spawn(feed)


class ArrivalShape:
    """Open loop over one or more offered rates, one level each, the same client pool for all.

    A level's arrivals run for ``duration``; the next rate starts once the previous level's
    queued and in-flight requests are done (or their timeout passed), so each level's records
    are its own rate's.
    """

    def __init__(
        self, rates: tuple[float, ...], users: int, duration: float, request_timeout: float
    ) -> None:
        self.rates = rates
        self.users = users
        self.duration = duration
        self.request_timeout = request_timeout
        self.index = 0
        self.started: float | None = None
        self.drain = Drain(timeout=request_timeout + 5.0)
        self.finished = False

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
                )
            )
            self.started = now
        elif now - self.started >= self.duration and self.drain.started is None:
            self.drain.done(conductor, now)  # arrivals are over; queued ones are still served
        elif self.drain.started is not None and self._served(conductor, now):
            conductor.end_level(self.index)  # with every record of its rate
            self.index += 1
            self.started = None
            self.drain = Drain(timeout=self.request_timeout + 5.0)
            if self.index >= len(self.rates):
                conductor.broadcast(Stage())
            return self.tick(conductor, now)
        return (self.users, SPAWN_RATE)

    def _served(self, conductor: Conductor, now: float) -> bool:
        """The level's queue and in-flight requests are done (or waited for long enough)."""
        return conductor.in_flight() <= 0 or now - (self.drain.started or now) > self.drain.timeout
