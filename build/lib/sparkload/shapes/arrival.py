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
    def __init__(self, rate: float, users: int, duration: float, request_timeout: float) -> None:
        self.rate = rate
        self.users = users
        self.duration = duration
        self.started: float | None = None
        self.drain = Drain(timeout=request_timeout + 5.0)
        self.finished = False

    def tick(self, conductor: Conductor, now: float) -> Tick:
        if self.started is None:
            if not conductor.users_ready(self.users):
                return (self.users, SPAWN_RATE)
            conductor.begin_level(0, self.users, None)
            conductor.broadcast(
                Stage(
                    ARRIVAL, 0, self.users, arrival_rate=self.rate, arrival_duration=self.duration
                )
            )
            self.started = now
        elif now - self.started >= self.duration:
            if self.drain.started is None:
                conductor.end_level(0)  # arrivals are over; queued ones are still served
            self.finished = self.drain.done(conductor, now)
            if self.finished:
                return None
        return (self.users, SPAWN_RATE)
