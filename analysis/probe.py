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

import pandas as pd

from analysis import slo
from analysis.errors import InputError
from analysis.load import Dataset
from analysis.metrics import level_name
from sparkload.records import ProbeVerdict


def level_verdict(
    dataset: Dataset, levels: pd.DataFrame, bounds: list[slo.Bound], index: int
) -> ProbeVerdict:
    """``levels``: ``slo.evaluate``'s rows for ``dataset``, a single run; ``index``: a level of
    its manifest. InputError when the run has no such level or it has no measured request."""
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
    return ProbeVerdict(index, not breaches, figures, breaches, level=name)


def _finite(value: object) -> float | None:
    number = float(value)  # type: ignore[arg-type]
    return number if math.isfinite(number) else None
