"""A ``--scenario`` run's figures: each phase apart (by its level's index, never by C alone:
recovery's baseline and after share one C), and the scenario's own figures.

Times are the records' (simulated time on the simulator), counted from the run's first send;
TTFT in ms. The rules, each said once here and in docs/scenarios.md:

* **Settling** (recovery, burst, zigzag): a phase's ok requests in order of their start, in
  rolling windows of ``window_size(C)`` consecutive requests; a window's TTFT is its median,
  timed at its middle request's send. The phase has settled at the first window from which
  every later window is in the band; the time is counted from the phase before's last send (the
  moment the load changed), so it cannot be told finer than half a window. Recovery's band: at
  most ``BAND`` (10 %) above the baseline phase's median TTFT (a window faster than the baseline
  counts as recovered); a zigzag switch's: within ``BAND`` of its own phase's level, the median
  TTFT of the phase's second half. Never in band: None (``recovered`` false, "not
  recovered").
* **Ramp**: the first step whose TTFT p90 is more than ``RAMP_GROWTH`` times the step before's.
* **Churn**: the churn phase's connect time (``RequestRecord.connect_time``: name look-up, TCP,
  TLS, inside TTFT) and TTFT p50 beside the kept phase's; failures by kind per phase.
* **Soak**: the soak cut into ``SOAK_WINDOWS`` equal windows from its first send to its last; a
  window's output tok/s and TTFT p50 are of the requests sent in it (their tokens / its length:
  a window by completions would start short of the ones still under way, always unsteady); a
  window is steady when both are within ``BAND`` of their medians over the windows; the steady
  share is steady windows / windows.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from analysis.reading.load import Dataset, Run
from sparkload.records import (
    AFTER_PHASE,
    BASELINE_PHASE,
    CHURN_PHASE,
    KEPT_PHASE,
    SCENARIO_BURST,
    SCENARIO_CHURN,
    SCENARIO_RAMP,
    SCENARIO_RECOVERY,
    SCENARIO_SOAK,
    SCENARIO_ZIGZAG,
    SOAK_PHASE,
)

BAND = 0.10  # within 10 % of a level
RAMP_GROWTH = 1.5  # a ramp step whose TTFT p90 grew more than this over the step before
SOAK_WINDOWS = 10
KEY = "scenario"  # summary.json's entry


def window_size(concurrency: int) -> int:
    """Requests per rolling window: two rounds of the phase's users, at least five."""
    return max(5, 2 * concurrency)


@dataclass(frozen=True)
class Phase:
    """One phase as measured: its ok requests' start times and TTFTs (s) in start order."""

    index: int
    name: str
    concurrency: int
    duration_s: float  # planned, the target's seconds
    starts: np.ndarray
    ttft: np.ndarray
    ends: np.ndarray  # start + latency
    tokens: np.ndarray
    failures: dict[str, int]
    connect: np.ndarray  # connect times (s) of the requests that opened a connection

    @property
    def last_send(self) -> float:
        return float(self.starts.max()) if len(self.starts) else float("nan")

    def row(self) -> dict[str, Any]:
        span = self.ends.max() - self.starts.min() if len(self.starts) else np.nan
        return {
            "phase": self.name,
            "index": self.index,
            "concurrency": self.concurrency,
            "duration_s": self.duration_s,
            "n": len(self.starts),
            "failures": sum(self.failures.values()),
            "start_s": _num(self.starts.min() if len(self.starts) else np.nan),
            "ttft_ms_p50": _ms(self.ttft, 0.5),
            "ttft_ms_p90": _ms(self.ttft, 0.9),
            "output_tps": _num(self.tokens.sum() / span if span and span > 0 else np.nan),
        }


def _num(value: float) -> float | None:
    return float(value) if value is not None and np.isfinite(value) else None


def _ms(values: np.ndarray, q: float) -> float | None:
    return _num(float(np.quantile(values, q)) * 1000) if len(values) else None


def settle_time(
    phase: Phase, since: float, target: float, upper_only: bool
) -> tuple[float | None, int]:
    """Seconds from ``since`` until ``phase``'s rolling-window median TTFT is in the band around
    ``target`` (s) for good (None: never), and the window's size."""
    size = window_size(phase.concurrency)
    if len(phase.ttft) < size or not np.isfinite(target) or target <= 0:
        return None, size
    medians = np.median(np.lib.stride_tricks.sliding_window_view(phase.ttft, size), axis=1)
    gap = (medians - target) / target
    inside = gap <= BAND if upper_only else np.abs(gap) <= BAND
    if not inside[-1]:
        return None, size
    outside = np.flatnonzero(~inside)
    first = int(outside[-1]) + 1 if len(outside) else 0
    return max(float(phase.starts[first + size // 2]) - since, 0.0), size


def phases_of(run: Run, records: pd.DataFrame) -> list[Phase]:
    """The run's phases in order, from its manifest's levels and its measured records."""
    measured = records[records["measure"].to_numpy()]
    planned = run.manifest.scenario.phases if run.manifest.scenario else []
    out = []
    for level in run.manifest.levels:
        rows = measured[measured["level_index"].to_numpy() == level.index]
        ok = rows[rows["ok"].to_numpy()].sort_values("start_time")
        failed = rows[~rows["ok"].to_numpy()]["error_kind"].astype(object).fillna("unknown")
        plan = planned[level.index % len(planned)] if planned else None
        connect = ok["connect_time"].to_numpy(float)
        out.append(
            Phase(
                level.index,
                level.phase or (plan.name if plan else f"level{level.index}"),
                level.concurrency,
                plan.duration if plan else float("nan"),
                ok["start_time"].to_numpy(float),
                ok["ttft"].to_numpy(float),
                (ok["start_time"] + ok["latency"].fillna(0.0)).to_numpy(float),
                ok["output_tokens"].fillna(0.0).to_numpy(float),
                {str(k): int(v) for k, v in failed.value_counts().items()},
                connect[np.isfinite(connect)],
            )
        )
    return out


def _recovery(phases: list[Phase]) -> dict[str, Any]:
    """Baseline, the high phase and after: TTFT before, during, after and the recovery time."""
    by_name = {p.name: p for p in phases}
    base, after = by_name.get(BASELINE_PHASE), by_name.get(AFTER_PHASE)
    if base is None or after is None or len(phases) < 3 or not len(base.ttft):
        return {"recovery_s": None, "recovered": False}
    high = phases[phases.index(after) - 1]
    level = float(np.median(base.ttft))
    recovery, size = settle_time(after, high.last_send, level, upper_only=True)
    return {
        "baseline_ttft_ms_p50": level * 1000,
        "baseline_ttft_ms_p90": _ms(base.ttft, 0.9),
        "high_phase": high.name,
        "high_ttft_ms_p50": _ms(high.ttft, 0.5),
        "high_ttft_ms_p90": _ms(high.ttft, 0.9),
        "high_over_baseline_p90": _ratio(_ms(high.ttft, 0.9), _ms(base.ttft, 0.9)),
        "after_ttft_ms_p50": _ms(after.ttft, 0.5),
        "after_ttft_ms_p90": _ms(after.ttft, 0.9),
        "recovery_s": recovery,
        "recovered": recovery is not None,
        "recovery_rule": (
            f"from the {high.name} phase's last send until the median TTFT of {size} "
            f"consecutive requests (by send time, timed at the middle one's send) stays within "
            f"{BAND:.0%} above the baseline's median ({level * 1000:.1f} ms)"
        ),
    }


def _ratio(over: float | None, under: float | None) -> float | None:
    return over / under if over is not None and under else None


def _zigzag(phases: list[Phase]) -> dict[str, Any]:
    switches = []
    for before, phase in zip(phases, phases[1:], strict=False):
        half = (
            phase.ttft[phase.starts >= phase.starts.min() + phase.duration_s / 2]
            if len(phase.starts)
            else phase.ttft
        )
        level = float(np.median(half)) if len(half) else float("nan")
        settle, size = settle_time(phase, before.last_send, level, upper_only=False)
        switches.append(
            {
                "from": before.name,
                "to": phase.name,
                "level_ttft_ms": _num(level * 1000),
                "settle_s": settle,
                "window": size,
            }
        )
    return {"switches": switches}


def _ramp(phases: list[Phase]) -> dict[str, Any]:
    grown = None
    for before, step in zip(phases, phases[1:], strict=False):
        ratio = _ratio(_ms(step.ttft, 0.9), _ms(before.ttft, 0.9))
        if ratio is not None and ratio > RAMP_GROWTH:
            grown = {"phase": step.name, "concurrency": step.concurrency, "p90_growth": ratio}
            break
    return {"ttft_p90_growth_limit": RAMP_GROWTH, "first_growth": grown}


def _churn(phases: list[Phase]) -> dict[str, Any]:
    by_name = {p.name: p for p in phases}
    kept, churn = by_name.get(KEPT_PHASE), by_name.get(CHURN_PHASE)
    if kept is None or churn is None:
        return {}
    connect = churn.connect
    return {
        "connections_opened": len(connect),
        "connect_ms_mean": _num(float(connect.mean()) * 1000) if len(connect) else None,
        "connect_ms_p90": _ms(connect, 0.9),
        "kept_ttft_ms_p50": _ms(kept.ttft, 0.5),
        "churn_ttft_ms_p50": _ms(churn.ttft, 0.5),
        "churn_minus_kept_ttft_ms_p50": _diff(_ms(churn.ttft, 0.5), _ms(kept.ttft, 0.5)),
        "failures": {p.name: p.failures for p in (kept, churn)},
    }


def _diff(a: float | None, b: float | None) -> float | None:
    return a - b if a is not None and b is not None else None


def soak_windows(phase: Phase) -> pd.DataFrame:
    """The soak's equal windows: output tok/s, TTFT p50 and whether each is steady."""
    if len(phase.starts) < 2:
        return pd.DataFrame()
    edges = np.linspace(phase.starts.min(), phase.starts.max(), SOAK_WINDOWS + 1)
    width = edges[1] - edges[0]
    tps, ttft = [], []
    for low, high in zip(edges, edges[1:], strict=False):
        sent = (phase.starts >= low) & (phase.starts < high)
        tps.append(phase.tokens[sent].sum() / width if width > 0 else np.nan)
        ttft.append(np.median(phase.ttft[sent]) * 1000 if sent.any() else np.nan)
    frame = pd.DataFrame({"start_s": edges[:-1], "output_tps": tps, "ttft_ms_p50": ttft})
    steady = np.ones(len(frame), bool)
    for column in ("output_tps", "ttft_ms_p50"):
        values = frame[column].to_numpy(float)
        middle = np.nanmedian(values)
        steady &= np.abs(values - middle) <= BAND * middle
    return frame.assign(steady=steady)


def _soak(phases: list[Phase]) -> dict[str, Any]:
    soak = next((p for p in phases if p.name == SOAK_PHASE), None)
    windows = soak_windows(soak) if soak is not None else pd.DataFrame()
    if windows.empty:
        return {"windows": [], "steady_share": None}
    return {
        "windows": windows.to_dict("records"),
        "steady_share": float(windows["steady"].mean()),
        "steady_rule": (
            f"{SOAK_WINDOWS} equal windows; steady: output tok/s and TTFT p50 each within "
            f"{BAND:.0%} of their median over the windows"
        ),
    }


FIGURES = {
    SCENARIO_RECOVERY: _recovery,
    SCENARIO_BURST: _recovery,
    SCENARIO_ZIGZAG: _zigzag,
    SCENARIO_RAMP: _ramp,
    SCENARIO_CHURN: _churn,
    SCENARIO_SOAK: _soak,
}


@dataclass(frozen=True)
class ScenarioResult:
    """One scenario run's figures: its phases and the scenario's own."""

    label: str
    run: str  # the run directory's name
    name: str
    phases: list[Phase]
    figures: dict[str, Any]

    def entry(self) -> dict[str, Any]:
        return {
            "label": self.label,
            "run": self.run,
            "scenario": self.name,
            "phases": [p.row() for p in self.phases],
            **self.figures,
        }


def of_dataset(dataset: Dataset) -> list[ScenarioResult]:
    """Every scenario run's figures, in the runs' order (none: no run was a scenario)."""
    out = []
    for index, run in enumerate(dataset.runs):
        scenario = run.manifest.scenario
        if scenario is None or not scenario.name or "run" not in dataset.records:
            continue
        records = dataset.records[dataset.records["run"].to_numpy() == index]
        phases = phases_of(run, records)
        figures = FIGURES.get(scenario.name, lambda _: {})(phases)
        out.append(ScenarioResult(run.label, run.path.name, scenario.name, phases, figures))
    return out


def summary_entries(dataset: Dataset) -> dict[str, Any]:
    """summary.json's ``scenario``: one entry per scenario run (absent without one)."""
    results = of_dataset(dataset)
    return {KEY: [r.entry() for r in results]} if results else {}
