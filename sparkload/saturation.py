"""Over-saturation: is the server falling further behind within a level? (pure; no I/O)

Open loop, arrivals keep coming whatever the server does, so a server that cannot keep up
shows as a backlog (arrivals due and not yet answered: waiting for a free user, or in flight)
that grows for as long as the arrivals last. A healthy level's backlog rises too, but only to
what Little's law says it holds, rate x latency, and empties within a latency or two of the
last arrival (the p90 latency: a level of mixed lengths has a long tail of answers).
``judge_open_loop`` names a level over-saturated in either of two cases:

- *rising*: during the arrivals, from a latency after the first answers on (until then every
  level's backlog ramps) and for a latency at least, the backlog rose through every quarter, by
  a quarter of the arrivals at least (the server answered three in four or fewer), and the
  answers' TTFT rose with it (a level that outlasts its requests' latency shows it while it
  runs);
- *not draining*: the arrivals are over, and two latencies later at least half the backlog's
  peak is still unanswered (a level shorter than its requests' latency cannot show the first
  case: its backlog only ever ramps).

The latency is the lowest known of the level's answers' p90 and that of an earlier level that
kept up: over-saturation stretches the latency of the answers along with the backlog, so
rate x latency (Little's law) is no yardstick once it sets in.

Closed loop, the users wait for their answers, so no backlog grows at the client; the server's
waiting queue (vLLM's ``vllm:num_requests_waiting``) rising through every quarter of the level
says it admits fewer than it is sent. ``judge_closed_loop`` says so; the ladder only flags it.

Every rule asks for a minimum of looks and a margin, so noise in a healthy level does not trip
it; the capacity search can call the same functions with what its probe saw.
"""

from __future__ import annotations

import statistics
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TypeVar

T = TypeVar("T")

WINDOWS = 4  # quarters of the level so far: the trend must hold in each
MIN_LOOKS = 8  # looks before the rising rules judge (two a window)
MIN_BACKLOG = 8  # requests: a backlog below this is never over-saturation
BEHIND_SHARE = 0.25  # the backlog's rise over what is judged, at least, x the arrivals then
TTFT_RISE = 1.2  # the answers' TTFT p50 must rise by this factor with the backlog
DRAIN_LATENCIES = 2.0  # a level that keeps up is answered within this many latencies
UNANSWERED_SHARE = 0.5  # ... so half the peak still unanswered then is falling behind
MIN_QUEUE_RISE = 4.0  # closed loop: the waiting queue's rise from first to last quarter


@dataclass(frozen=True)
class Look:
    """One look at an open-loop level, ``time`` in target seconds from its start."""

    time: float
    backlog: int  # arrivals due and not yet answered (waiting for a free user, or in flight)
    ttft_p50: float | None = None  # median TTFT (s) of the answers since the previous look


@dataclass(frozen=True)
class QueueSample:
    """The server's waiting queue at ``time`` (seconds, any origin), summed over its nodes."""

    time: float
    waiting: float


@dataclass
class LevelWatch:
    """The looks of one open-loop level as it runs, one per ``interval`` target seconds at
    most (a long level keeps a bounded list); the TTFTs of answers between looks are pooled
    into the next look's median."""

    interval: float
    looks: list[Look] = field(default_factory=list)
    _ttfts: list[float] = field(default_factory=list)

    def look(self, time: float, backlog: int, ttfts: Sequence[float] = ()) -> bool:
        """Take a look unless the last one is under ``interval`` old; True when taken."""
        self._ttfts.extend(ttfts)
        if self.looks and time - self.looks[-1].time < self.interval:
            return False
        ttft = statistics.median(self._ttfts) if self._ttfts else None
        self.looks.append(Look(time, backlog, ttft))
        self._ttfts = []
        return True


def judge_open_loop(
    looks: Sequence[Look],
    rate: float,
    duration: float,
    latency_p90: float | None,
    kept_up_latency: float | None = None,
) -> str | None:
    """What shows an open-loop level over-saturated, as a sentence, or None.

    ``rate``: offered requests per second; ``duration``: seconds of arrivals; ``latency_p90``:
    the p90 latency of the level's answers so far (None: none yet); ``kept_up_latency``: the
    p90 latency of an earlier level that was not over-saturated (the run's lowest), the
    yardstick for how soon a level that keeps up is answered. Times are target seconds.
    """
    known = [x for x in (latency_p90, kept_up_latency) if x is not None]
    if not known:
        return None
    # the yardstick: over-saturation stretches the latency of the answers with the backlog
    latency = min(known)
    return _rising(looks, rate, duration, latency) or _not_draining(looks, duration, latency)


def _rising(looks: Sequence[Look], rate: float, duration: float, latency: float) -> str | None:
    during = [look for look in looks if look.time <= duration]
    answered = [i for i, look in enumerate(during) if look.ttft_p50 is not None]
    if not answered:
        return None
    # a healthy level's backlog ramps until a latency after its first answers: judge what
    # follows, over a latency at least
    settled = during[answered[0]].time + latency
    since = [look for look in during if look.time >= settled]
    if not since or since[-1].time - settled < latency:
        return None
    parts = _windows(since, lambda look: look.time)
    if parts is None:
        return None
    backlogs = [statistics.fmean(look.backlog for look in part) for part in parts]
    first, last = since[0], since[-1]
    span = last.time - first.time
    grew = last.backlog - first.backlog
    if not _strictly_rising(backlogs) or grew < max(MIN_BACKLOG, BEHIND_SHARE * rate * span):
        return None
    ttfts = [ttft for ttft in (_median_ttft(part) for part in parts) if ttft is not None]
    if len(ttfts) < 2 or ttfts[-1] < TTFT_RISE * ttfts[0]:
        return None
    return (
        f"backlog rose from {first.backlog} to {last.backlog} over {span:.0f} s (about "
        f"{rate - grew / span:.2g}/s of {rate:g}/s answered) while TTFT p50 rose from "
        f"{ttfts[0]:.2f} s to {ttfts[-1]:.2f} s"
    )


def _not_draining(looks: Sequence[Look], duration: float, latency: float) -> str | None:
    if len(looks) < 3:
        return None
    wait = DRAIN_LATENCIES * latency
    last = looks[-1]
    if last.time < duration + wait:
        return None
    peak = max(look.backlog for look in looks)
    if last.backlog < max(MIN_BACKLOG, UNANSWERED_SHARE * peak):
        return None
    return (
        f"backlog rose to {peak} in {duration:g} s of arrivals, and {last.time - duration:.0f} s "
        f"after they stopped ({DRAIN_LATENCIES:g}x the {latency:.1f} s p90 latency) "
        f"{last.backlog} were still unanswered"
    )


def judge_closed_loop(samples: Sequence[QueueSample]) -> str | None:
    """The server's waiting queue rising through every quarter of a closed-loop level, as a
    sentence, or None (a flag: the users wait for their answers, so the level runs on)."""
    parts = _windows(samples, lambda sample: sample.time)
    if parts is None:
        return None
    means = [statistics.fmean(sample.waiting for sample in part) for part in parts]
    if not _strictly_rising(means) or means[-1] - means[0] < MIN_QUEUE_RISE:
        return None
    span = samples[-1].time - samples[0].time
    return (
        f"the server's waiting queue rose from {means[0]:.0f} to {means[-1]:.0f} "
        f"(quarter means) over {span:.0f} s"
    )


def _windows(items: Sequence[T], time_of: Callable[[T], float]) -> list[list[T]] | None:
    """``items`` in ``WINDOWS`` equal spans of time, or None when there are too few looks
    (fewer than ``MIN_LOOKS``, or a window without one)."""
    if len(items) < MIN_LOOKS:
        return None
    start, end = time_of(items[0]), time_of(items[-1])
    if end <= start:
        return None
    parts: list[list[T]] = [[] for _ in range(WINDOWS)]
    for item in items:
        share = (time_of(item) - start) / (end - start)
        parts[min(int(share * WINDOWS), WINDOWS - 1)].append(item)
    return parts if all(parts) else None


def _strictly_rising(values: Sequence[float]) -> bool:
    return all(later > earlier for earlier, later in zip(values, values[1:], strict=False))


def _median_ttft(looks: Sequence[Look]) -> float | None:
    values = [look.ttft_p50 for look in looks if look.ttft_p50 is not None]
    return statistics.median(values) if values else None
