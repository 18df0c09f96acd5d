"""Time slices: every level cut into windows of S seconds, and the throughput drift between the
first and the last steady windows (thermal throttling in a long run).

Definitions (all times in the target's time, like every figure of the analysis: a simulator
run's records are scaled to simulated time by ``analysis.reading.load``, so S is simulated
seconds there):

- A level's windows are [t0 + k·S, t0 + (k+1)·S), t0 = the level's first measured send, until
  the level's last completion; the last window is closed on the right and usually shorter
  (``length_s``). Each (run, level) is sliced on its own: repeated runs are not pooled in time.
- A request belongs to the window in which it completed (send + latency): ``completed`` (ok
  requests), ``failures``, and the TTFT / ITL p50 and p90 of the ok requests completed there.
- Output tokens/s of a window = the output tokens the server delivered inside the window / its
  length, each ok request's first token at its TTFT and the others spread evenly over its decode
  span (first → last token). Counting a request's tokens where it completes would put a whole
  request's tokens into one window and none into the windows it was decoding in: with windows
  shorter than a request (2 s windows, 5 s requests) the series would only show when requests
  happen to end. Summed over the windows, the tokens are the level's output tokens exactly.
- In flight = the time mean, over the window, of the requests sent and not yet complete
  (measured requests, failures included: they were sent). A mean rather than a sample at the
  window's middle, so a short dip or burst counts for the time it lasted.

Drift: the steady windows are the full-length windows that end by the level's last send (after
it the level only drains), without the level's first window (every stream's prefill at once,
ramp-up). With at least ``MIN_STEADY_WINDOWS`` of them, the mean output tokens/s of the first
quarter of steady windows (at least one) is compared with the last quarter's; a fall of more than
the threshold (default 10 %) is flagged. In a count-based ladder users finish a few requests
apart, so its last steady windows may run with fewer streams: endurance runs use
``--step-duration``.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from analysis.errors import InputError
from analysis.figures import percentiles
from analysis.figures.metrics import Settings
from analysis.reading.load import Dataset, Run, describe_level

DEFAULT_DRIFT_THRESHOLD_PCT = 10.0
MIN_STEADY_WINDOWS = 4  # fewer steady windows say nothing about a trend
MAX_WINDOWS_PER_LEVEL = 100_000  # beyond this a window is too short to mean anything
WINDOW_COLUMNS = [
    "window",
    "start_s",
    "length_s",
    "completed",
    "failures",
    "ttft_ms_p50",
    "ttft_ms_p90",
    "itl_ms_p50",
    "itl_ms_p90",
    "output_tps",
    "inflight_mean",
    "steady",
]


@dataclass(frozen=True)
class Slicing:
    """The report's slicing options: S (None: each run's ``--slice-duration`` from its manifest;
    0: no windows) and the drift threshold in percent."""

    duration_s: float | None = None
    drift_threshold_pct: float = DEFAULT_DRIFT_THRESHOLD_PCT

    def duration_of(self, run: Run) -> float:
        """S for one run (0: not sliced)."""
        if self.duration_s is not None:
            return self.duration_s
        return run.manifest.slice_duration or 0.0


# a level's requests as ``LevelRequests`` reads them, its fields in order
REQUEST_COLUMNS = ("start_time", "latency", "ok", "ttft", "t_last_token", "itl", "output_tokens")


@dataclass(frozen=True)
class LevelRequests:
    """One level's measured requests, times in target seconds on the run's time line."""

    sent: np.ndarray
    latency: np.ndarray  # NaN for a failure that never completed: its end is its send
    ok: np.ndarray
    ttft: np.ndarray
    t_last_token: np.ndarray
    itl: np.ndarray
    output_tokens: np.ndarray

    @property
    def ends(self) -> np.ndarray:
        return self.sent + np.nan_to_num(self.latency)

    @classmethod
    def at(cls, records: pd.DataFrame, positions: np.ndarray) -> LevelRequests:
        """The requests at ``positions`` of ``records``, in that order."""
        return cls(
            *(
                values_at(records, name, positions, bool if name == "ok" else np.float64)
                for name in REQUEST_COLUMNS
            )
        )


def values_at(
    records: pd.DataFrame, name: str, positions: np.ndarray, dtype: type = np.float64
) -> np.ndarray:
    """A column's values at ``positions``: a copy of those only (a sparse column is not made
    dense, a dense one not copied whole)."""
    return np.asarray(records[name].array.take(positions), dtype)


@dataclass(frozen=True)
class Drift:
    """The level's throughput trend from its first to its last steady windows."""

    steady_windows: int
    first_tps: float = math.nan  # mean output tokens/s of the first quarter of steady windows
    last_tps: float = math.nan  # ... and of the last quarter
    threshold_pct: float = DEFAULT_DRIFT_THRESHOLD_PCT

    @property
    def judged(self) -> bool:
        return self.steady_windows >= MIN_STEADY_WINDOWS and self.first_tps > 0

    @property
    def change_pct(self) -> float:
        return (self.last_tps - self.first_tps) / self.first_tps * 100 if self.judged else math.nan

    @property
    def flagged(self) -> bool:
        return self.judged and self.change_pct < -self.threshold_pct

    def describe(self) -> str:
        if not self.judged:
            return (
                f"not judged: {self.steady_windows} steady window(s), {MIN_STEADY_WINDOWS} needed"
            )
        verdict = "DRIFT" if self.flagged else "steady"
        return (
            f"{verdict}: {self.first_tps:.1f} → {self.last_tps:.1f} tok/s "
            f"({self.change_pct:+.1f} %, flagged below −{self.threshold_pct:g} %)"
        )

    def to_dict(self) -> dict:
        return {
            "steady_windows": self.steady_windows,
            "first_tps": _json_float(self.first_tps),
            "last_tps": _json_float(self.last_tps),
            "change_pct": _json_float(self.change_pct),
            "threshold_pct": self.threshold_pct,
            "judged": self.judged,
            "flagged": self.flagged,
        }


@dataclass(frozen=True)
class LevelSlices:
    """One level of one run, sliced."""

    label: str
    run: str  # the run directory's name
    level_index: int
    level: str  # "C=4", "offered 2 req/s"
    concurrency: int | None
    offered_rps: float | None
    duration_s: float
    windows: pd.DataFrame  # WINDOW_COLUMNS
    drift: Drift

    def to_dict(self) -> dict:
        """The level as summary.json gives it."""
        windows = json.loads(self.windows.to_json(orient="records", double_precision=15))
        return {
            "label": self.label,
            "run": self.run,
            "level_index": self.level_index,
            "level": self.level,
            "concurrency": self.concurrency,
            "offered_rps": self.offered_rps,
            "slice_duration_s": self.duration_s,
            "windows": windows,
            "drift": self.drift.to_dict(),
        }


def _json_float(value: float) -> float | None:
    return None if not math.isfinite(value) else float(value)


def _ramps(points: np.ndarray, rates: np.ndarray, at: np.ndarray) -> np.ndarray:
    """Σ over points_i < at of rates_i · (at − points_i), for every value of ``at``."""
    order = np.argsort(points, kind="stable")
    points, rates = points[order], rates[order]
    weight = np.concatenate([[0.0], np.cumsum(rates)])
    moment = np.concatenate([[0.0], np.cumsum(rates * points)])
    below = np.searchsorted(points, at, side="left")
    return at * weight[below] - moment[below]


def _steps(points: np.ndarray, masses: np.ndarray, at: np.ndarray) -> np.ndarray:
    """Σ over points_i < at of masses_i, for every value of ``at``."""
    order = np.argsort(points, kind="stable")
    total = np.concatenate([[0.0], np.cumsum(masses[order])])
    return total[np.searchsorted(points[order], at, side="left")]


def delivered_tokens(requests: LevelRequests, at: np.ndarray) -> np.ndarray:
    """Output tokens delivered before each time of ``at``: per ok request, one token at its
    first token and the others spread evenly over its decode span (all at once when the span
    is empty)."""
    use = requests.ok & np.isfinite(requests.ttft) & (np.nan_to_num(requests.output_tokens) > 0)
    first = requests.sent[use] + requests.ttft[use]
    last_offset = np.where(
        np.isfinite(requests.t_last_token[use]),
        requests.t_last_token[use],
        np.nan_to_num(requests.latency[use]),
    )
    last = np.maximum(requests.sent[use] + last_offset, first)
    tokens = requests.output_tokens[use]
    span = last - first
    spread = np.where(span > 0, tokens - 1, 0.0)
    rate = np.divide(spread, span, out=np.zeros_like(span), where=span > 0)
    return _steps(first, tokens - spread, at) + _ramps(first, rate, at) - _ramps(last, rate, at)


def request_seconds(requests: LevelRequests, at: np.ndarray) -> np.ndarray:
    """The integral of the in-flight count (requests sent and not complete) up to each time."""
    ones = np.ones(len(requests.sent))
    return _ramps(requests.sent, ones, at) - _ramps(requests.ends, ones, at)


def window_count(span_s: float, duration_s: float) -> int:
    """Windows of ``duration_s`` that cover a level lasting ``span_s`` (at least one)."""
    return max(1, math.ceil(span_s / duration_s - 1e-9))


def _per_window(values: np.ndarray, window: np.ndarray, count: int, q: float, method: str):
    """The ``q`` percentile of the finite ``values`` per window index (NaN for none)."""
    keep = np.isfinite(values)
    out = np.full(count, np.nan)
    order = np.lexsort((values[keep], window[keep]))
    ordered, owner = values[keep][order], window[keep][order]
    bounds = np.searchsorted(owner, np.arange(count + 1), side="left")
    for k in range(count):
        if bounds[k + 1] > bounds[k]:
            out[k] = percentiles.quantile(ordered[bounds[k] : bounds[k + 1]], q, method)
    return out


def slice_level(requests: LevelRequests, duration_s: float, method: str) -> pd.DataFrame:
    """The windows of one level (``WINDOW_COLUMNS``; ``steady`` per the drift rule)."""
    origin = float(requests.sent.min())
    ends = requests.ends
    finish = float(ends.max())
    count = window_count(finish - origin, duration_s)
    edges = origin + duration_s * np.arange(count + 1)
    edges[-1] = max(edges[-1], finish)
    # evaluated just past the level's end, so what happens at its last instant is inside
    at = edges.copy()
    at[-1] = np.nextafter(finish, math.inf) if edges[-1] == finish else edges[-1]
    length = np.minimum(edges[1:], finish) - edges[:-1]
    window = np.clip(((ends - origin) // duration_s).astype(np.int64), 0, count - 1)
    ok = requests.ok
    tokens = np.diff(delivered_tokens(requests, at))
    busy = np.diff(request_seconds(requests, at))
    positive = length > 0
    frame = pd.DataFrame(
        {
            "window": np.arange(count),
            "start_s": edges[:-1] - origin,
            "length_s": length,
            "completed": np.bincount(window[ok], minlength=count),
            "failures": np.bincount(window[~ok], minlength=count),
        }
    )
    for name, values, factor in (("ttft_ms", requests.ttft, 1e3), ("itl_ms", requests.itl, 1e3)):
        for stat, q in (("p50", 0.5), ("p90", 0.9)):
            frame[f"{name}_{stat}"] = _per_window(values[ok] * factor, window[ok], count, q, method)
    frame["output_tps"] = np.divide(tokens, length, out=np.full(count, np.nan), where=positive)
    frame["inflight_mean"] = np.divide(busy, length, out=np.full(count, np.nan), where=positive)
    last_send = float(requests.sent.max())
    full = np.isclose(length, duration_s)
    frame["steady"] = (frame["window"] > 0) & full & (edges[1:] <= last_send + 1e-9)
    return frame[WINDOW_COLUMNS]


def drift(windows: pd.DataFrame, threshold_pct: float = DEFAULT_DRIFT_THRESHOLD_PCT) -> Drift:
    """The first quarter of the steady windows' throughput against the last quarter's."""
    steady = windows.loc[windows["steady"].astype(bool), "output_tps"].to_numpy(float)
    if len(steady) < MIN_STEADY_WINDOWS:
        return Drift(len(steady), threshold_pct=threshold_pct)
    quarter = max(1, len(steady) // 4)
    return Drift(
        len(steady),
        float(np.mean(steady[:quarter])),
        float(np.mean(steady[-quarter:])),
        threshold_pct,
    )


def level_positions(records: pd.DataFrame, run_index: int) -> dict[int, np.ndarray]:
    """Per level of one run, in level order, the positions in ``records`` of its measured
    requests with a send time (ascending): what the level's time line is made of. Positions,
    not rows: a selection of the rows copied their columns (800 MB at 10,000,000 records), a
    grouping of the whole frame its keys; this holds two numbers per request of the run."""
    level_index = records["level_index"].to_numpy(np.float64)
    chosen = _timed_positions(records, run_index, level_index)
    levels = level_index[chosen]
    return {int(key): chosen[levels == key] for key in np.sort(pd.unique(levels))}


def _timed_positions(records: pd.DataFrame, run_index: int, level_index: np.ndarray) -> np.ndarray:
    """The positions of one run's measured records with a send time and a level."""
    timed = records["run"].to_numpy() == run_index
    timed &= records["measure"].to_numpy(bool)
    timed &= np.isfinite(records["start_time"].to_numpy(np.float64))
    timed &= np.isfinite(level_index)
    return np.flatnonzero(timed)


def slice_runs(dataset: Dataset, settings: Settings, slicing: Slicing) -> list[LevelSlices]:
    """Every level of every sliced run, in run and level order; InputError when S would cut a
    level into more than ``MAX_WINDOWS_PER_LEVEL`` windows."""
    records = dataset.records
    if records.empty or "level_index" not in records:
        return []
    out = []
    for run_index, run in enumerate(dataset.runs):
        duration = slicing.duration_of(run)
        if duration <= 0:
            continue
        for level_index, positions in level_positions(records, run_index).items():
            out.append(_level(run, level_index, records, positions, duration, settings, slicing))
    return out


def summary_entries(levels: list[LevelSlices], slicing: Slicing) -> dict[str, Any]:
    """summary.json's ``slices``: every window of every sliced level and its drift (nothing
    when no run was sliced)."""
    if not levels:
        return {}
    return {
        "slices": {
            "drift_threshold_pct": slicing.drift_threshold_pct,
            "levels": [level.to_dict() for level in levels],
        }
    }


def _level(
    run: Run,
    level_index: int,
    records: pd.DataFrame,
    positions: np.ndarray,
    duration: float,
    settings: Settings,
    slicing: Slicing,
) -> LevelSlices:
    concurrency, rate = level_of(run, records, positions)
    name = describe_level(concurrency, rate)
    requests = LevelRequests.at(records, positions)
    span = float(requests.ends.max() - requests.sent.min())
    if window_count(span, duration) > MAX_WINDOWS_PER_LEVEL:
        source = "--slice-duration" if slicing.duration_s is not None else "the manifest's"
        raise InputError(
            f"{source} {duration:g} s cuts {run.label} {name} ({span:.0f} s) into more than "
            f"{MAX_WINDOWS_PER_LEVEL:,} windows: give a longer --slice-duration"
        )
    windows = slice_level(requests, duration, settings.percentile_method)
    return LevelSlices(
        run.label,
        run.path.name,
        level_index,
        name,
        concurrency,
        rate,
        duration,
        windows,
        drift(windows, slicing.drift_threshold_pct),
    )


def level_of(
    run: Run, records: pd.DataFrame, positions: np.ndarray
) -> tuple[int | None, float | None]:
    """A level's concurrency (closed loop) or offered rate (open loop), read off its first
    record."""
    if run.open_loop:
        return None, float(records["offered_rps"].iat[positions[0]])
    return int(records["level"].iat[positions[0]]), None
