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

import itertools
import random
import statistics
import time
from collections.abc import Callable, Iterable, Iterator, Mapping
from typing import TypeVar

import gevent

from sparkload.config import CONSTANT, GAMMA
from sparkload.records import LevelMarks, Schedule
from sparkload.run.context import RunContext
from sparkload.run.livetable import LevelTally
from sparkload.saturation import LevelWatch, judge_open_loop
from sparkload.shapes import SPAWN_RATE, Conductor, Tick, after
from sparkload.shapes.drain import Drain
from sparkload.stages import ARRIVAL, ARRIVALS_STOPPED, Arrival, LevelSignal, Stage
from sparkload.workloads.trace import TraceWorkload

T = TypeVar("T")
SCHEDULE_GRACE = 1.0  # real seconds after a level's last due time before its drain begins
LOOKS_PER_LEVEL = 100  # the over-saturation watch's looks over a level's arrivals, at most
MIN_LOOK_INTERVAL = 0.2  # real seconds between two looks, at least
Due = tuple[float, int | None]  # (target seconds from the level's start, index in the schedule)


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
    """A rate level's schedule, the same on every process for the same ``seed``: each arrival's
    offset and its index in the schedule."""
    rng = random.Random(seed)
    return (
        (t, index)
        for index, t in enumerate(offsets(gaps(process, rate, burstiness, rng), duration))
    )


def trace_schedule(timestamps: Iterable[float], speedup: float) -> Iterator[Due]:
    """A trace's schedule: line i at its timestamp (seconds from the first line) / speedup."""
    return ((t / speedup, line) for line, t in enumerate(timestamps))


def schedule_summary(schedule: Iterable[Due]) -> Schedule:
    """A level's whole schedule as the manifest keeps it: how many arrivals it held and the
    coefficient of variation of their gaps (target seconds). A level stopped as over-saturated
    sends only part of its schedule, so its records alone would misstate how bursty it was."""
    times = [offset for offset, _ in schedule]
    gap_list = [later - earlier for earlier, later in itertools.pairwise(times)]
    mean = statistics.fmean(gap_list) if gap_list else 0.0
    cv = statistics.pstdev(gap_list) / mean if mean > 0 else None
    return Schedule(arrivals=len(times), gap_cv=cv)


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


class Feed:
    """This process's arrivals of one level, fed into ``signal.arrivals`` at their due times
    (target seconds divided by ``time_scale``) by a greenlet of its own.

    ``on_arrival`` counts each one as issued the moment it is due, so requests still waiting
    for a free user keep the run from ending before they are served. ``stop`` ends the feed
    early (an over-saturated level) and says how many arrivals it never issued.
    """

    def __init__(
        self,
        signal: LevelSignal,
        schedule: Iterable[Due],
        time_scale: float,
        on_arrival: Callable[[], None],
        stage: Stage | None = None,
    ) -> None:
        self._due = iter(schedule)
        self._holding = False  # an arrival taken from the schedule, its due time not yet come
        self._greenlet = gevent.spawn(self._feed, signal, time_scale, on_arrival, stage)

    def _feed(
        self,
        signal: LevelSignal,
        time_scale: float,
        on_arrival: Callable[[], None],
        stage: Stage | None,
    ) -> None:
        start, start_wall = time.perf_counter(), time.time()
        for offset, line in self._due:
            self._holding = True
            real = offset / time_scale
            delay = start + real - time.perf_counter()
            if delay > 0:
                gevent.sleep(delay)
            self._holding = False
            on_arrival()  # no switch between the count and the put
            signal.arrivals.put(Arrival(start_wall + real, start + real, line, stage))

    def join(self, timeout: float | None = None) -> None:
        """Wait until the whole schedule is issued (or ``timeout`` seconds passed)."""
        self._greenlet.join(timeout)

    def stop(self) -> int:
        """Stop feeding; the arrivals of the schedule that were never issued."""
        self._greenlet.kill(block=True)
        return int(self._holding) + sum(1 for _ in self._due)


class ArrivalShape:
    """Open loop over one or more offered rates, one level each, the same client pool for all.

    A level's arrivals run for ``duration`` (target seconds; a trace's level lasts as long as
    the trace); the next rate starts once the previous level's queued and in-flight requests
    are done (or their timeout passed), so each level's records are its own rate's.

    While a level runs, its backlog (arrivals due and not yet answered) and its answers' TTFTs
    are watched (``sparkload.saturation``). A level judged over-saturated has its arrivals
    stopped (the rest of its schedule, and the due ones still waiting for a free user, are not
    sent), drains, and is the sweep's last; with ``saturation_stop`` off it is only flagged.
    """

    def __init__(
        self,
        rates: tuple[float, ...],
        users: int,
        duration: float,
        request_timeout: float,
        time_scale: float = 1.0,
        saturation_stop: bool = True,
    ) -> None:
        self.rates = rates
        self.users = users
        self.duration = duration
        self.time_scale = time_scale
        self.request_timeout = request_timeout
        self.saturation_stop = saturation_stop
        self.planned = len(rates)  # levels the sweep runs: fewer once one is over-saturated
        # the level holding a capacity search's found rate for --sustain (``search.py``): its
        # manifest entry is marked with ``duration``
        self.sustain_at: int | None = None
        self.index = 0
        self.started: float | None = None
        self.drain = Drain(timeout=request_timeout + 5.0)
        self.finished = False
        # the lowest p90 latency of a level that was not over-saturated (target seconds)
        self.kept_up_latency: float | None = None
        self.saturation: str | None = None  # what showed the level under way over-saturated
        self._tally: LevelTally | None = None
        self._watch = self._new_watch()
        self._ttfts_seen = 0

    @classmethod
    def for_run(cls, context: RunContext) -> ArrivalShape:
        """A rate sweep: one level per --arrival-rate."""
        plan = context.options.plan
        return cls(
            plan.arrival_rate * plan.repeat,
            plan.arrival_users,
            plan.arrival_duration,
            context.options.request.request_timeout,
            context.time_scale,
            saturation_stop=not plan.no_saturation_stop,
        )

    @classmethod
    def for_trace(cls, context: RunContext) -> ArrivalShape:
        """One level: the trace, as fast as asked. A trace is replayed whole (it is a recording,
        not a sweep): over-saturation is flagged, the replay is never cut short."""
        workload = context.workload
        assert isinstance(workload, TraceWorkload)
        plan = context.options.plan
        return cls(
            (workload.trace.offered_rate * workload.speedup,) * plan.repeat,
            plan.arrival_users,
            workload.trace.span_s / workload.speedup,
            context.options.request.request_timeout,
            context.time_scale,
            saturation_stop=False,
        )

    @property
    def real_duration(self) -> float:
        """Real seconds of a level's arrivals."""
        return self.duration / self.time_scale

    def arrivals_left(self, now: float) -> float:
        """Real seconds of the current level's arrivals still to come (0 once it drains)."""
        if self.started is None:
            return self.real_duration
        if self.drain.started is not None:
            return 0.0
        return max(self.real_duration - (now - self.started), 0.0)

    def tick(self, conductor: Conductor, now: float) -> Tick:
        if self.index >= self.planned:
            self.finished = self.drain.done(conductor, now)
            return None if self.finished else (self.users, SPAWN_RATE)
        if self.started is None:
            if not conductor.users_ready(self.users):
                return (self.users, SPAWN_RATE)
            rate = self.rates[self.index]
            sustain = self.duration if self.index == self.sustain_at else None
            self._tally = conductor.begin_level(
                self.index, self.users, None, arrival_rate=rate, marks=LevelMarks(sustain=sustain)
            )
            conductor.broadcast(self._stage(ARRIVAL, conductor))
            self.started = now
            return (self.users, SPAWN_RATE)
        self._watch_level(conductor, now)
        if now - self.started >= self.real_duration + SCHEDULE_GRACE and self.drain.started is None:
            self.drain.done(conductor, now)  # arrivals are over; queued ones are still served
        elif self.drain.started is not None and self._served(conductor, now):
            return self.tick(conductor, after(now, lambda: self._end_level(conductor)))
        return (self.users, SPAWN_RATE)

    def _stage(self, kind: str, conductor: Conductor) -> Stage:
        return Stage(
            kind,
            self.index,
            self.users,
            arrival_rate=self.rates[self.index],
            arrival_duration=self.duration,
            shares=conductor.user_shares(),
        )

    def _new_watch(self) -> LevelWatch:
        interval = max(self.duration / LOOKS_PER_LEVEL, MIN_LOOK_INTERVAL * self.time_scale)
        return LevelWatch(interval)

    def _watch_level(self, conductor: Conductor, now: float) -> None:
        """Look at the level; once judged over-saturated, stop its arrivals (unless only
        flagging) and drain it: it is the sweep's last."""
        tally = self._tally
        if self.saturation is not None or tally is None or self.started is None:
            return
        new = tally.ttft.count - self._ttfts_seen
        self._ttfts_seen = tally.ttft.count
        recent = list(tally.recent_ttfts)[-new:] if new else []
        elapsed = (now - self.started) * self.time_scale  # target seconds
        if not self._watch.look(elapsed, conductor.in_flight(), recent):
            return
        self.saturation = judge_open_loop(
            self._watch.looks,
            self.rates[self.index],
            self.duration,
            tally.latency.quantile(0.9),
            self.kept_up_latency,
        )
        if self.saturation is None or not self.saturation_stop:
            return
        self.planned = self.index + 1
        conductor.broadcast(self._stage(ARRIVALS_STOPPED, conductor))
        if self.drain.started is None:
            self.drain.done(conductor, now)

    def _end_level(self, conductor: Conductor) -> None:
        """End the level with every record of its rate (or what its timeout let in)."""
        stops = self.saturation is not None and self.saturation_stop
        conductor.end_level(self.index, self.saturation, stops)
        latency = self._tally.latency.quantile(0.9) if self._tally is not None else None
        if self.saturation is None and latency is not None:
            known = self.kept_up_latency
            self.kept_up_latency = latency if known is None else min(known, latency)
        self.level_ended(conductor)
        self.index += 1
        self.started = None
        self.drain = Drain(timeout=self.request_timeout + 5.0)
        self.saturation, self._tally = None, None
        self._watch, self._ttfts_seen = self._new_watch(), 0
        if self.index >= self.planned:
            conductor.broadcast(Stage())

    def level_ended(self, conductor: Conductor) -> None:
        """After a level's end, before the next: a sweep's rates are all known from the start
        (a capacity search over rates, ``shapes/search.py``, chooses its next one here)."""

    def _served(self, conductor: Conductor, now: float) -> bool:
        """The level's queue and in-flight requests are done (or waited for long enough)."""
        return conductor.in_flight() <= 0 or now - (self.drain.started or now) > self.drain.timeout


def level_schedule(context: RunContext, stage: Stage) -> Iterator[Due]:
    """The open-loop level's whole schedule, the same on every process: the trace's lines, or
    arrivals of the run's process at the stage's rate (seeded by the run's seed and the level)."""
    workload, opts = context.workload, context.options
    if isinstance(workload, TraceWorkload):
        return trace_schedule((line.time_s for line in workload.trace.lines), workload.speedup)
    return rate_schedule(
        opts.plan.arrival_process,
        stage.arrival_rate,
        opts.plan.burstiness,
        stage.arrival_duration,
        f"{opts.plan.seed}:arrivals:{stage.index}",
    )
