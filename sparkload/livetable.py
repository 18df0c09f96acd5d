"""The per-level table shown live (web UI tab, console) and at the end of a run.

Exact, from the records the master holds (not Locust's bucketed statistics): measured requests
only, warm-up excluded, failures counted and left out of the figures. Percentiles interpolate
linearly, the default of ``analysis``; the full report with every definition is ``analysis``'s.
"""

from __future__ import annotations

import statistics
from collections import Counter
from dataclasses import dataclass, field

from sparkload.records import PHASE_MEASURE, STATUS_OK, linear_percentile

COLUMNS = (
    ("level", "C / rate"),
    ("n", "n"),
    ("failures", "fail"),
    ("ttft_ms_mean", "TTFT ms mean"),
    ("ttft_ms_p50", "p50"),
    ("ttft_ms_p90", "p90"),
    ("itl_ms_mean", "ITL ms mean"),
    ("itl_ms_p50", "p50"),
    ("itl_ms_p90", "p90"),
    ("tps_mean", "TPS mean"),
    ("latency_s_mean", "latency s mean"),
    ("system_rps", "system RPS"),
    ("total_tps", "total tok/s"),
    ("client", "client check"),
    ("stream", "stream check"),
)


def _p(values: list[float], q: float) -> float | None:
    return linear_percentile(sorted(values), q) if values else None


def _mean(values: list[float]) -> float | None:
    return statistics.fmean(values) if values else None


@dataclass
class LevelTally:
    index: int
    concurrency: int
    expected: int | None  # measured requests the level needs (None: time-based or open loop)
    arrival_rate: float | None = None  # open loop: the offered rate; C (the pool) means nothing
    time_scale: float = 1.0  # records arrive in simulated time; their start times do not
    ttft: list[float] = field(default_factory=list)
    itl: list[float] = field(default_factory=list)
    tps: list[float] = field(default_factory=list)
    latency: list[float] = field(default_factory=list)
    measured: int = 0
    output_tokens: int = 0
    first_start: float | None = None  # epoch seconds (real time)
    last_end: float | None = None
    warmups: int = 0
    failures: int = 0
    error_kinds: Counter = field(default_factory=Counter)

    def add(self, record: dict) -> None:
        """Take one record (already in simulated time when the target is time-scaled)."""
        if record["phase"] != PHASE_MEASURE:
            self.warmups += 1
            return
        self.measured += 1
        start, latency = record.get("start_time"), record.get("latency")
        if start is not None and latency is not None:
            end = start + latency / self.time_scale
            self.first_start = start if self.first_start is None else min(self.first_start, start)
            self.last_end = end if self.last_end is None else max(self.last_end, end)
        if record["status"] != STATUS_OK:
            self.failures += 1
            self.error_kinds[record.get("error_kind") or "unknown"] += 1
            return
        for name in ("ttft", "itl", "tps", "latency"):
            value = record.get(name)
            if value is not None:
                getattr(self, name).append(value)
        self.output_tokens += record.get("output_tokens") or 0

    @property
    def complete(self) -> bool:
        return self.expected is not None and self.measured >= self.expected

    @property
    def wall_time(self) -> float | None:
        """First send to last end of the level's measured requests, in simulated time."""
        if self.first_start is None or self.last_end is None:
            return None
        return (self.last_end - self.first_start) * self.time_scale

    def row(self) -> dict:
        """The live table's row. Closed loop: the reports' C-based figures. Open loop: C is only
        the pool size, so the rate columns are what was achieved over the level's wall time."""
        ms = 1000.0
        mean_latency = _mean(self.latency)
        mean_tps = _mean(self.tps)
        if self.arrival_rate is not None:
            wall = self.wall_time
            system_rps = (self.measured - self.failures) / wall if wall else None
            total_tps = self.output_tokens / wall if wall else None
            level: int | str = f"{self.arrival_rate:g}/s"
        else:
            system_rps = self.concurrency / mean_latency if mean_latency else None
            total_tps = mean_tps * self.concurrency if mean_tps is not None else None
            level = self.concurrency
        return {
            "level": level,
            "n": self.measured - self.failures,
            "failures": self.failures,
            "ttft_ms_mean": _scaled(_mean(self.ttft), ms),
            "ttft_ms_p50": _scaled(_p(self.ttft, 0.5), ms),
            "ttft_ms_p90": _scaled(_p(self.ttft, 0.9), ms),
            "itl_ms_mean": _scaled(_mean(self.itl), ms),
            "itl_ms_p50": _scaled(_p(self.itl, 0.5), ms),
            "itl_ms_p90": _scaled(_p(self.itl, 0.9), ms),
            "tps_mean": mean_tps,
            "latency_s_mean": mean_latency,
            "system_rps": system_rps,
            "total_tps": total_tps,
        }


def _scaled(value: float | None, factor: float) -> float | None:
    return None if value is None else value * factor


def format_table(rows: list[dict]) -> str:
    """A fixed-width text table of ``rows`` (dicts keyed like COLUMNS)."""
    headers = [title for _, title in COLUMNS]
    cells = [[_fmt(row.get(key)) for key, _ in COLUMNS] for row in rows]
    widths = [
        max(len(h), *(len(c[i]) for c in cells)) if cells else len(h) for i, h in enumerate(headers)
    ]
    lines = ["  ".join(h.rjust(w) for h, w in zip(headers, widths, strict=False))]
    lines += ["  ".join(c.rjust(w) for c, w in zip(row, widths, strict=False)) for row in cells]
    return "\n".join(lines)


def _fmt(value: object) -> str:
    if value is None:
        return "-"
    if isinstance(value, float):
        return f"{value:.2f}"
    return str(value)
