"""``--sustain``: did the capacity a search found hold for the while it was held, and how did the
server drift over it (sustained against burst).

Per run with a sustain level (its manifest marks it; its records are set apart,
``reading/sustained.py``):

* **held**: the sustain level judged under the search's bounds by ``--check``'s own judge
  (``probe.level_verdict`` over the sustain level's records alone), so it holds exactly when
  ``--check`` would pass that level;
* **drift**: the least-squares slope of TTFT, ITL and per-request TPS against each request's
  start over the level, per minute, with its 90 % interval (Student's t on n - 2 degrees of
  freedom: a slope whose interval holds 0 is no drift the sample can tell); requests sent
  before the level's first answer ended are left out: the users start together, and that first
  round's queueing is the start's, not a drift of the server;
* **first against last**: the output tokens per second of the level's first and last windows
  (a minute each, or a quarter of the level when it is shorter than four minutes), each
  request's tokens spread evenly over its own span (send to last token), so a window counts
  the share of a request it holds; and the level as a whole against the probe at the same
  load (the burst: a count-based level of a few requests per user);
* **clocks**: where node telemetry was read (``reading/telemetry.py``), the lowest SM clock
  while busy, the hottest temperature and the throttling flag (SM clock below 90 % of its
  maximum) of the sustain level and of that probe.

Times are the target's (simulated on the simulator).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from statistics import NormalDist
from typing import Any

import numpy as np
import pandas as pd

from analysis.errors import InputError
from analysis.figures import probe, slo
from analysis.figures.metrics import Settings, summarize
from analysis.reading import telemetry
from analysis.reading.load import Dataset, Run
from sparkload.records import INTERVAL_CONFIDENCE, CapacityProbe, ProbeVerdict, level_name

EDGE_S = 60.0  # the first and last windows: a minute each ...
EDGE_SHARE = 0.25  # ... or this share of a shorter level
SECONDS_PER_MINUTE = 60.0
DRIFTS = (("ttft_ms", "ttft", 1000.0), ("itl_ms", "itl", 1000.0), ("tps", "tps", 1.0))
CLOCK_KEYS = ("sm_clock_min_mhz", "sm_clock_max_mhz", "temperature_max_c", "throttle")


@dataclass(frozen=True)
class Drift:
    """One metric's least-squares slope over the level, per minute, with its interval."""

    metric: str
    slope_per_min: float
    low: float
    high: float
    requests: int
    start: float  # the fitted line at the level's first send
    end: float  # ... and at its last

    @property
    def tells(self) -> bool:
        """The interval excludes 0: the sample shows a drift."""
        return bool(self.low > 0 or self.high < 0)


@dataclass(frozen=True)
class SustainFinding:
    """One run's sustain level: what was held, whether it held, and how the server drifted."""

    label: str
    over: str  # concurrency | rate
    value: float
    duration_s: float  # as asked (--sustain)
    bounds: str
    verdict: ProbeVerdict | None  # None: the level had no answered request
    drifts: list[Drift]
    window_s: float
    first_tok_s: float
    last_tok_s: float
    sustained_tok_s: float
    burst_tok_s: float  # the probe at the same load (NaN: none)
    clocks: dict[str, Any] = field(default_factory=dict)  # the sustain level's, where read
    burst_clocks: dict[str, Any] = field(default_factory=dict)  # the probe's

    @property
    def held(self) -> bool:
        """Met its bounds, or missed only within its sample's interval
        (``ProbeVerdict.holds_within_sample``)."""
        return self.verdict is not None and self.verdict.holds_within_sample

    @property
    def level(self) -> str:
        return level_name(self.over, self.value)

    @property
    def last_vs_first_pct(self) -> float:
        return _change_pct(self.first_tok_s, self.last_tok_s)

    @property
    def sustained_vs_burst_pct(self) -> float:
        return _change_pct(self.burst_tok_s, self.sustained_tok_s)

    def summary_entry(self) -> dict[str, Any]:
        """summary.json's ``sustain`` entry of this run."""
        verdict = self.verdict
        return {
            "label": self.label,
            "over": self.over,
            "value": self.value,
            "duration_s": self.duration_s,
            "bounds": self.bounds,
            "held": self.held,
            # the bounds met outright (held may also be a miss within the sample's interval)
            "met": bool(verdict and verdict.meets),
            "figures": verdict.figures if verdict else {},
            "breaches": verdict.breaches if verdict else ["no answered request"],
            "requests": verdict.requests if verdict else 0,
            "intervals": (verdict.intervals or {}) if verdict else {},
            # where the sample cannot settle a bound (its interval holds the threshold)
            "caveats": (verdict.caveats or []) if verdict else [],
            "drift": {
                d.metric: {
                    "slope_per_min": _number(d.slope_per_min),
                    "interval": [_number(d.low), _number(d.high)],
                    "requests": d.requests,
                    "start": _number(d.start),
                    "end": _number(d.end),
                }
                for d in self.drifts
            },
            "throughput": {
                "window_s": self.window_s,
                "first_tok_s": _number(self.first_tok_s),
                "last_tok_s": _number(self.last_tok_s),
                "last_vs_first_pct": _number(self.last_vs_first_pct),
                "sustained_tok_s": _number(self.sustained_tok_s),
                "burst_tok_s": _number(self.burst_tok_s),
                "sustained_vs_burst_pct": _number(self.sustained_vs_burst_pct),
            },
            "telemetry": {"sustained": _clean(self.clocks), "burst": _clean(self.burst_clocks)},
        }


# ----- pure arithmetic -------------------------------------------------------------------------
def t_quantile(p: float, dof: int) -> float:
    """Student's t quantile (Cornish-Fisher expansion about the normal's; within 0.01 of the
    exact value from 5 degrees of freedom at p = 0.95)."""
    z = NormalDist().inv_cdf(p)
    v = float(dof)
    return (
        z
        + (z**3 + z) / (4 * v)
        + (5 * z**5 + 16 * z**3 + 3 * z) / (96 * v**2)
        + (3 * z**7 + 19 * z**5 + 17 * z**3 - 15 * z) / (384 * v**3)
    )


def drift(metric: str, seconds: np.ndarray, values: np.ndarray) -> Drift:
    """The least-squares slope of ``values`` against ``seconds``, per minute, with its
    ``INTERVAL_CONFIDENCE`` interval (NaN with fewer than 3 points or no spread in time)."""
    keep = np.isfinite(seconds) & np.isfinite(values)
    t, y = seconds[keep], values[keep]
    n = len(t)
    nan = Drift(metric, math.nan, math.nan, math.nan, n, math.nan, math.nan)
    if n < 3:
        return nan
    t_mean, y_mean = float(t.mean()), float(y.mean())
    sxx = float(((t - t_mean) ** 2).sum())
    if sxx <= 0:
        return nan
    slope = float(((t - t_mean) * (y - y_mean)).sum()) / sxx
    residuals = y - (y_mean + slope * (t - t_mean))
    se = math.sqrt(float((residuals**2).sum()) / (n - 2) / sxx)
    half = t_quantile(0.5 + INTERVAL_CONFIDENCE / 2, n - 2) * se
    per_min = SECONDS_PER_MINUTE
    at = y_mean + slope * (np.array([t.min(), t.max()]) - t_mean)
    return Drift(
        metric,
        slope * per_min,
        (slope - half) * per_min,
        (slope + half) * per_min,
        n,
        float(at[0]),
        float(at[1]),
    )


def window_throughput(
    starts: np.ndarray, ends: np.ndarray, tokens: np.ndarray, window: tuple[float, float]
) -> float:
    """Output tokens per second in ``window``: each request's tokens spread evenly over its
    span (start to end), counted by the share of that span inside the window."""
    w0, w1 = window
    if w1 <= w0:
        return math.nan
    span = ends - starts
    overlap = np.clip(np.minimum(ends, w1) - np.maximum(starts, w0), 0.0, None)
    instant = (starts >= w0) & (starts < w1)  # a request of no span: wholly where it started
    share = np.where(span > 0, overlap / np.where(span > 0, span, 1.0), instant)
    return float((tokens * share).sum() / (w1 - w0))


def edge_window(span_s: float) -> float:
    """The first and last windows' length for a level ``span_s`` long."""
    return min(EDGE_S, EDGE_SHARE * span_s)


# ----- a run's sustain level -------------------------------------------------------------------
def alone(dataset: Dataset) -> Dataset:
    """The dataset of its sustain levels' records only, judged and summarized as any level."""
    return replace(dataset, records=dataset.sustained, sustained=dataset.sustained.iloc[0:0])


def is_sustain_level(dataset: Dataset, index: int) -> bool:
    """Whether level ``index`` of the dataset's (one) run is a sustain level."""
    return any(
        level.index == index and level.sustain is not None
        for run in dataset.runs
        for level in run.manifest.levels
    )


def findings(dataset: Dataset, settings: Settings) -> list[SustainFinding]:
    """One finding per run whose manifest has a sustain level with records."""
    out = []
    for run_index, run in enumerate(dataset.runs):
        capacity = run.manifest.capacity
        level = next((lv for lv in run.manifest.levels if lv.sustain is not None), None)
        if capacity is None or level is None or dataset.sustained.empty:
            continue
        mine = dataset.sustained[
            (dataset.sustained["run"] == run_index)
            & (dataset.sustained["level_index"] == level.index)
        ]
        if mine.empty:
            continue
        value = level.arrival_rate if capacity.over == "rate" else level.concurrency
        value = float(value or 0.0)
        out.append(_finding(dataset, settings, run_index, run, mine, level.index, value))
    return out


def _finding(
    dataset: Dataset,
    settings: Settings,
    run_index: int,
    run: Run,
    mine: pd.DataFrame,
    index: int,
    value: float,
) -> SustainFinding:
    capacity = run.manifest.capacity
    assert capacity is not None
    sustain = next(lv.sustain for lv in run.manifest.levels if lv.index == index)
    verdict = _verdict(dataset, settings, run, mine, capacity.bounds, index)
    done = mine[mine["measure"].to_numpy() & mine["ok"].to_numpy()]
    starts = done["start_time"].to_numpy(float)
    ends = starts + done["latency"].to_numpy(float)
    tokens = done["output_tokens"].to_numpy(float)
    steady = starts >= ends.min() if len(ends) else starts > 0  # after the users' first round
    drifts = [
        drift(name, starts[steady], done[column].to_numpy(float)[steady] * factor)
        for name, column, factor in DRIFTS
    ]
    first, last = (float(starts.min()), float(ends.max())) if len(starts) else (0.0, 0.0)
    window = edge_window(last - first)
    burst = _probe_records(dataset, run_index, capacity.probes, value)
    return SustainFinding(
        run.label,
        capacity.over,
        value,
        float(sustain or 0.0),
        capacity.bounds,
        verdict,
        drifts,
        window,
        window_throughput(starts, ends, tokens, (first, first + window)),
        window_throughput(starts, ends, tokens, (last - window, last)),
        window_throughput(starts, ends, tokens, (first, last)),
        _level_throughput(burst),
        _clocks(run, run_index, mine, index, sustained=True),
        _clocks(run, run_index, dataset.records, _probe_index(capacity.probes, value), False),
    )


def _verdict(
    dataset: Dataset, settings: Settings, run: Run, mine: pd.DataFrame, bounds: str, index: int
) -> ProbeVerdict | None:
    """``--check``'s verdict on the sustain level, over its records alone."""
    judged = replace(
        dataset, records=mine.assign(run=np.int32(0)), runs=[run], sustained=mine.iloc[0:0]
    )
    plain = replace(settings, bootstrap_resamples=0)
    parsed = slo.parse(bounds, "--check")
    levels = slo.evaluate(judged.records, summarize(judged, plain), parsed, plain)
    try:
        return probe.level_verdict(judged, levels, parsed, index, plain)
    except InputError:  # no answered request: no verdict, said as not held
        return None


def _probe_index(probes: list[CapacityProbe], value: float) -> int | None:
    found = next((p for p in probes if p.value == value), None)
    return None if found is None else found.verdict.level_index


def _probe_records(
    dataset: Dataset, run_index: int, probes: list[CapacityProbe], value: float
) -> pd.DataFrame:
    index = _probe_index(probes, value)
    records = dataset.records
    if index is None or records.empty:
        return records.iloc[0:0]
    return records[(records["run"] == run_index) & (records["level_index"] == index)]


def _level_throughput(records: pd.DataFrame) -> float:
    """Output tokens per second of a level's measured, answered requests over their span."""
    done = records[records["measure"].to_numpy() & records["ok"].to_numpy()]
    if done.empty:
        return math.nan
    starts = done["start_time"].to_numpy(float)
    ends = starts + done["latency"].to_numpy(float)
    return window_throughput(
        starts, ends, done["output_tokens"].to_numpy(float), (starts.min(), ends.max())
    )


def _clocks(
    run: Run, run_index: int, records: pd.DataFrame, index: int | None, sustained: bool
) -> dict[str, Any]:
    """The node telemetry of level ``index``: the lowest SM clock while busy, its maximum, the
    hottest temperature and the throttling flag, the first node that shows any ({}: none)."""
    if index is None or run.server_metrics_path is None or records.empty:
        return {}
    requests = telemetry.level_requests(records, run, run_index)
    for row in telemetry.run_rows(run, requests, sustained):
        if row["level_index"] != index:
            continue
        clocks = {key: row[key] for key in CLOCK_KEYS}
        if any(_shown(v) for v in clocks.values()):
            return {"node": row["node"], **clocks}
    return {}


def summary_entries(dataset: Dataset, settings: Settings) -> dict[str, Any]:
    """summary.json's ``sustain``: one entry per run with a sustain level (absent: none)."""
    found = findings(dataset, settings)
    return {"sustain": [f.summary_entry() for f in found]} if found else {}


def _change_pct(before: float, after: float) -> float:
    return 100.0 * (after - before) / before if before > 0 else math.nan


def _number(value: float) -> float | None:
    return float(value) if isinstance(value, float | int) and math.isfinite(value) else None


def _shown(value: object) -> bool:
    return bool(value) if isinstance(value, str) else _number(value) is not None  # type: ignore[arg-type]


def _clean(values: dict[str, Any]) -> dict[str, Any]:
    return {k: v if isinstance(v, str) else _number(v) for k, v in values.items()}
