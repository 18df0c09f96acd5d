"""One progress line for long runs: current level, requests done of the level, time left.

A ladder's level count includes the levels --refine-knee added after its last planned one.
Time left is an estimate, never negative: the ladder's from the last level's mean latency (none
with --target-precision: a level's count depends on the spread still to come, and the line says
the precision reached instead), a time-based plan's from its clock; once the plan's last level
is done, the run is "finishing" (in-flight requests drain), whatever the estimate said. A
capacity search names its probe and how many may follow at most, and gives no time left: how
many do depends on verdicts to come.
"""

from __future__ import annotations

import time

from sparkload.config import RunOptions
from sparkload.run.collector import RunCollector
from sparkload.run.livetable import LevelTally
from sparkload.shapes import Shape
from sparkload.shapes.arrival import ArrivalShape
from sparkload.shapes.ladder import LadderShape
from sparkload.shapes.scenario import ScenarioShape
from sparkload.shapes.search import RateSearchShape, SearchShape
from sparkload.shapes.steps import StepsShape

LEVEL_OVERHEAD = 2.0  # seconds a level change costs (spawn, warm-up broadcast, ticks)


def progress_line(shape: Shape | None, collector: RunCollector | None, opts: RunOptions) -> str:
    if shape is None or collector is None or not collector.tallies or shape.finished:
        return ""
    tally = collector.tallies[max(collector.tallies)]
    now = time.monotonic()
    elapsed = now - collector.started
    level = (  # an open-loop level's users are only its client pool: its rate says what it is
        f"C={tally.concurrency}" if tally.arrival_rate is None else f"{tally.arrival_rate:g}/s"
    )
    if _sustaining(shape):
        head = f"sustain ({level})"  # --sustain's level, after the search
    elif isinstance(shape, SearchShape | RateSearchShape):
        more = shape.prober.searches.probes_left_at_most()
        head = f"capacity probe {tally.index + 1} ({level}), at most {more} more"
    elif isinstance(shape, ScenarioShape):
        name, phases = opts.scenario.scenario, len(shape.phases)
        head = f"{name} phase {tally.index + 1}/{phases} {shape.phases[tally.index].name} ({level})"
    else:
        head = f"level {tally.index + 1}/{_level_total(shape, opts)} ({level})"
    failed = f", {tally.failures} failed" if tally.failures else ""
    left = _time_left(shape, collector, now)
    until = (
        " · finishing"
        if left == 0.0
        else (f" · about {_clock(left)} left" if left is not None else "")
    )
    if isinstance(shape, LadderShape) and shape.precision is not None:
        done = f"{tally.measured} requests{_precision_note(tally)}"
    else:
        done = f"{tally.measured}" + (f"/{tally.expected}" if tally.expected is not None else "")
        done += " requests"
    return f"{head}: {done}{failed} · elapsed {_clock(elapsed)}{until}"


def _precision_note(tally: LevelTally) -> str:
    """--target-precision: the level's count is not known ahead, so the line says how far the
    least precise target is and the requests it needs by the estimate."""
    reached = tally.precision()
    unmet = [r for r in reached if not r.met]
    if not unmet:
        return ", precision met"
    worst = max(unmet, key=lambda r: r.half_width if r.half_width is not None else float("inf"))
    now = "no interval yet" if worst.half_width is None else f"±{100 * worst.half_width:.1f} %"
    left = worst.requests_left
    more = f", about {left} more" if left is not None else ""
    return f", {worst.target.name} {now} of ±{100 * worst.target.half_width:g} %{more}"


def _level_total(shape: Shape, opts: RunOptions) -> int:
    """The plan's levels: a ladder's as they stand (--refine-knee adds some after its last)."""
    if isinstance(shape, LadderShape | StepsShape):
        return len(shape.levels)
    return opts.level_count * opts.plan.repeat


def _sustaining(shape: Shape) -> bool:
    """The search is over and --sustain's level runs."""
    if isinstance(shape, SearchShape):
        return shape.sustained is not None and shape.index >= len(shape.levels)
    return isinstance(shape, RateSearchShape) and shape.index == shape.sustain_at


def _time_left(shape: Shape, collector: RunCollector, now: float) -> float | None:
    """Seconds until the plan is done (0: only the drain is left), None when unknown."""
    if isinstance(shape, SearchShape):
        if (held := shape.sustained) is not None and shape.index >= len(shape.levels):
            return _clocked_left(held, now)
        return 0.0 if shape.index >= len(shape.levels) else None
    if isinstance(shape, RateSearchShape):
        if shape.index == shape.sustain_at:
            return shape.arrivals_left(now)
        return 0.0 if shape.index >= len(shape.rates) else None
    if isinstance(shape, LadderShape):
        return _ladder_left(shape, collector)
    if isinstance(shape, StepsShape):  # a scenario's too: its phases' own lengths
        return _clocked_left(shape, now)
    if isinstance(shape, ArrivalShape):  # ``planned`` shrinks when a level is over-saturated
        if shape.index >= shape.planned:
            return 0.0
        later = shape.planned - shape.index - 1
        return shape.arrivals_left(now) + later * (shape.real_duration + LEVEL_OVERHEAD)
    return None


def _clocked_left(shape: StepsShape, now: float) -> float:
    """A plan of timed levels: the rest of this one and every later one."""
    if shape.index >= len(shape.levels):
        return 0.0
    started = shape.step_started
    current = shape.duration(shape.index) - (now - started if started is not None else 0.0)
    later = range(shape.index + 1, len(shape.levels))
    return max(current, 0.0) + sum(shape.duration(i) + LEVEL_OVERHEAD for i in later)


def _ladder_left(shape: LadderShape, collector: RunCollector) -> float | None:
    """Closed loop: a level takes about requests-per-user x mean latency (real time)."""
    if shape.index >= len(shape.levels):
        return 0.0
    if shape.precision is not None:  # each level's count depends on the spread still to come
        return None
    latencies = [t.latency.mean() for t in collector.tallies.values() if t.latency.count]
    if not latencies:
        return None
    mean_real = (latencies[-1] or 0.0) / collector.time_scale
    tally = collector.tallies[max(collector.tallies)]
    if tally.expected is None:
        return None
    remaining_rounds = max(tally.expected - tally.measured, 0) / max(tally.concurrency, 1)
    later_levels = max(len(shape.levels) - shape.index - 1, 0)
    per_session = shape.requests_per_session or tally.expected / max(tally.sessions or 1, 1)
    rounds = remaining_rounds + later_levels * shape.requests_per_user * per_session
    return max(rounds * mean_real + later_levels * LEVEL_OVERHEAD, 0.0)


def _clock(seconds: float) -> str:
    seconds = max(round(seconds), 0)
    return f"{seconds // 60}:{seconds % 60:02d}"
