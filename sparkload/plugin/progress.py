"""One progress line for long runs: current level, requests done of the level, time left."""

from __future__ import annotations

import time

from sparkload.config import RunOptions
from sparkload.plugin.collector import RunCollector
from sparkload.shapes import Shape
from sparkload.shapes.ladder import LadderShape

LEVEL_OVERHEAD = 2.0  # seconds a level change costs (spawn, warm-up broadcast, ticks)


def progress_line(shape: Shape | None, collector: RunCollector | None, opts: RunOptions) -> str:
    if shape is None or collector is None or not collector.tallies or shape.finished:
        return ""
    tally = collector.tallies[max(collector.tallies)]
    elapsed = time.monotonic() - collector.started
    levels = len(opts.arrival_rate) if opts.mode == "arrival" else len(opts.ladder)
    head = f"level {tally.index + 1}/{levels} (C={tally.concurrency})"
    failed = f", {tally.failures} failed" if tally.failures else ""
    if tally.expected is None:
        return f"{head}: {tally.measured} requests done{failed} · elapsed {_clock(elapsed)}"
    eta = _ladder_eta(shape, collector) if isinstance(shape, LadderShape) else None
    left = f" · about {_clock(eta)} left" if eta is not None else ""
    done = f"{tally.measured}/{tally.expected} requests{failed}"
    return f"{head}: {done} · elapsed {_clock(elapsed)}{left}"


def _ladder_eta(shape: LadderShape, collector: RunCollector) -> float | None:
    """Closed loop: a level takes about requests-per-user x mean latency (real time)."""
    latencies = [t.latency for t in collector.tallies.values() if t.latency]
    if not latencies:
        return None
    last = latencies[-1]
    mean_real = sum(last) / len(last) / collector.time_scale
    tally = collector.tallies[max(collector.tallies)]
    if tally.expected is None:
        return None
    remaining_rounds = max(tally.expected - tally.measured, 0) / max(tally.concurrency, 1)
    later_levels = len(shape.levels) - shape.index - 1
    rounds = remaining_rounds + later_levels * shape.requests_per_user
    return rounds * mean_real + (later_levels + 1) * LEVEL_OVERHEAD


def _clock(seconds: float) -> str:
    seconds = round(seconds)
    return f"{seconds // 60}:{seconds % 60:02d}"
