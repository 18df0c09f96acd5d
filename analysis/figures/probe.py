"""One level of a run judged as ``--check`` judges it: the capacity search's verdict on a probe
(``records.ProbeVerdict``, the one type both sides read).

The load side's capacity search asks, after each probe, ``python -m analysis --check BOUNDS
--check-level INDEX RUN_DIR``. The answer is ``--check``'s own (the report's summary, the same
bounds, a stream collapsed on the way fails the level whatever the bounds), narrowed to the
level of that index, so a probe meets the bounds exactly when ``--check`` would pass it; and an
open-loop level the load side judged over-saturated (``LevelEntry.saturation``: the server fell
behind its arrivals) breaks them whatever the figures of the requests it did answer. A
closed-loop level's flag (its waiting queue rising) is the report's, not a breach.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from analysis.errors import InputError
from analysis.figures import slo
from analysis.figures.measured import FloatColumns
from analysis.figures.metrics import CLOSED, OPEN, Settings, level_name
from analysis.reading.load import Dataset
from sparkload.records import (
    INTERVAL_CONFIDENCE,
    ProbeVerdict,
    interval_needs,
    order_statistic_interval,
)

DEFAULT_SETTINGS = Settings()


def level_verdict(
    dataset: Dataset,
    levels: pd.DataFrame,
    bounds: list[slo.Bound],
    index: int,
    settings: Settings = DEFAULT_SETTINGS,
) -> ProbeVerdict:
    """``levels``: ``slo.evaluate``'s rows for ``dataset``, a single run; ``index``: a level of
    its manifest. InputError when the run has no such level or it has no measured request. The
    verdict says how many answered requests it rests on and, per percentile bound, the interval
    of its statistic (or that the requests are too few for one)."""
    if len(dataset.runs) != 1:
        raise InputError("--check-level judges a level of one run: give one run directory")
    run = dataset.runs[0]
    entry = next((level for level in run.manifest.levels if level.index == index), None)
    if entry is None:
        raise InputError(f"--check-level: {run.path} has no level {index}")
    name = run.level_name(entry)
    rows = (row for _, row in levels.iterrows() if row["label"] == run.label)
    row = next((row for row in rows if level_name(row) == name), None)
    if row is None:
        raise InputError(f"--check-level: level {index} ({name}) has no measured request")
    breaches = [bound.breach_in(row) for bound in bounds if not bound.holds(row[bound.text])]
    breaches += [
        f"stream check: {failure.flag}"
        for failure in slo.stream_failures(dataset)
        if failure.level == name
    ]
    if entry.saturation and run.open_loop:
        breaches.append(f"over-saturated: {entry.saturation}")
    figures = {b.text: _finite(row[b.text]) for b in bounds}
    intervals: dict[str, list[float]] = {}
    caveats: list[str] = []
    unsettled: list[str] = []  # breached, yet the interval holds the threshold
    for bound in bounds:
        if bound.per_request and bound.quantile is not None and 0 < bound.quantile < 1:
            values = _level_values(dataset, row, bound.field, settings)
            interval, caveat = sample_verdict(values, bound)
            if interval is not None:
                intervals[bound.text] = list(interval)
                low, high = interval
                if not bound.holds(row[bound.text]) and bound.holds(low) != bound.holds(high):
                    unsettled.append(bound.breach_in(row))
            if caveat:
                caveats.append(caveat)
    verdict = ProbeVerdict(
        index,
        not breaches,
        figures,
        breaches,
        level=name,
        requests=int(row["n"]),
        intervals=intervals,
        caveats=caveats,
    )
    if unsettled:  # written only then: every other verdict as it was
        verdict.unsettled = unsettled
    return verdict


def sample_verdict(
    values: np.ndarray, bound: slo.Bound
) -> tuple[tuple[float, float] | None, str | None]:
    """A percentile bound's statistic over one level's requests: its 90 % interval (None: too
    few requests for one) and, where the sample cannot settle the bound, why in words."""
    assert bound.quantile is not None
    known = np.sort(values[~np.isnan(values)])  # an infinite TTFO (never answered) counts
    confidence = f"{100 * INTERVAL_CONFIDENCE:.0f} %"
    interval = order_statistic_interval(known.tolist(), bound.quantile, INTERVAL_CONFIDENCE)
    if interval is None:
        needs = interval_needs(bound.quantile, INTERVAL_CONFIDENCE)
        return None, (
            f"{bound.text}: {len(known)} requests are too few to bound a {bound.stat} "
            f"(a {confidence} interval needs {needs})"
        )
    low, high = interval
    if bound.holds(low) != bound.holds(high):
        return interval, (
            f"{bound.text}: its {confidence} interval {low:.6g}–{high:.6g} over "
            f"{len(known)} requests holds the threshold {bound.threshold:g}: the sample does "
            "not settle it"
        )
    return interval, None


def _level_values(dataset: Dataset, row: pd.Series, field: str, settings: Settings) -> np.ndarray:
    """A bound's metric over the answered requests of the level of ``row`` (an ``evaluate``
    row), in the bound's unit."""
    loop = CLOSED if row["loop"] == CLOSED.name else OPEN
    records = dataset.records
    groups = slo.loop_positions(records, loop)
    index = groups.get((row["label"], row[loop.summary_key]), np.empty(0, int))
    return slo.request_values(
        records, FloatColumns(records, settings.itl_null_as_zero), index, field
    )


def _finite(value: object) -> float | None:
    number = float(value)  # type: ignore[arg-type]
    return number if math.isfinite(number) else None
