"""The throughput knee of each label's sweep, with the operating points on either side.

The knee is ``sparkload.records.find_knee``'s (the one definition the load side's
--refine-knee uses too): a two-segment fit of log throughput on log load, the knee the
best-fitting breakpoint past which throughput grows less than 1.5x a doubling of the load. Its
throughput is the live table's: closed loop total tok/s = mean TPS x C (``total_tps``, the
figure the report's throughput and optimal-concurrency tables use), open loop the achieved
output tok/s over the level's wall time (``measured_total_tps``), against the offered rate.
A level --refine-knee added (``LevelEntry.refines_knee``) takes part like any other, and the
finding lists it.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass
from typing import Any

import pandas as pd

from analysis.figures.metrics import CLOSED, level_keys, level_name
from analysis.reading.load import Dataset
from sparkload.records import Knee, find_knee

THROUGHPUT = {CLOSED.name: "total_tps"}  # by loop; any other loop: ``OPEN_THROUGHPUT``
OPEN_THROUGHPUT = "measured_total_tps"
# what a side of the knee shows (summary columns), beside its level and throughput
POINT_FIGURES = ("tps_mean", "ttft_ms_p90", "itl_ms_p50")


@dataclass(frozen=True)
class KneePoint:
    """One level near the knee: its name, key (C or offered rate) and figures."""

    level: str  # "C=32", "offered 2 req/s"
    key: float
    throughput_tps: float | None  # the knee's figure: total (or achieved) output tok/s
    tps_mean: float | None  # per stream
    ttft_ms_p90: float | None
    itl_ms_p50: float | None


@dataclass(frozen=True)
class KneeFinding:
    """One label's (and loop's) knee, or why it has none."""

    label: str
    loop: str  # closed | open
    knee: float | None  # C, or the offered rate; None: no knee
    reason: str  # why there is none ("" with a knee)
    slope_before: float | None = None  # the fit's elasticity up to the knee (1: in proportion)
    slope_after: float | None = None
    below: KneePoint | None = None
    at: KneePoint | None = None
    above: KneePoint | None = None
    refined: tuple[float, ...] = ()  # the levels --refine-knee added for this label

    @property
    def unit(self) -> str:
        return "C=" if self.loop == CLOSED.name else "rate "


def findings(summary: pd.DataFrame, dataset: Dataset) -> list[KneeFinding]:
    """Every label's knee, per loop, in the summary's order."""
    if summary.empty:
        return []
    keyed = summary.assign(_key=level_keys(summary))
    found = []
    for (label, loop), rows in keyed.groupby(["label", "loop"], sort=False):
        found.append(_finding(str(label), str(loop), rows, _refined(dataset, str(label))))
    return found


def _finding(label: str, loop: str, rows: pd.DataFrame, refined: set[float]) -> KneeFinding:
    column = THROUGHPUT.get(loop, OPEN_THROUGHPUT)
    by_key = {float(row["_key"]): row for _, row in rows.iterrows()}
    knee = find_knee([(key, _figure(row, column)) for key, row in by_key.items()])
    added = tuple(sorted(key for key in by_key if key in refined)) if loop == CLOSED.name else ()
    if not isinstance(knee, Knee):
        return KneeFinding(label, loop, None, knee.reason, refined=added)

    def point(key: float) -> KneePoint:
        row = by_key[key]
        figures = [_figure(row, name) for name in POINT_FIGURES]
        return KneePoint(level_name(row), key, _figure(row, column), *figures)

    return KneeFinding(
        label,
        loop,
        knee.level,
        "",
        knee.slope_before,
        knee.slope_after,
        point(knee.below),
        point(knee.level),
        point(knee.above),
        added,
    )


def _refined(dataset: Dataset, label: str) -> set[float]:
    """The concurrencies --refine-knee added in the label's runs."""
    return {
        float(level.concurrency)
        for run in dataset.runs
        if run.label == label
        for level in run.manifest.levels
        if level.refines_knee
    }


def _figure(row: pd.Series, column: str) -> float | None:
    """A summary row's figure, None when the row lacks it or it is not a finite number."""
    value = pd.to_numeric(row.get(column), errors="coerce")
    return float(value) if pd.notna(value) and math.isfinite(value) else None


def summary_entries(found: list[KneeFinding]) -> dict[str, Any]:
    """summary.json's ``knees``: one object per label and loop."""
    return {"knees": [asdict(finding) for finding in found]}
