"""Speed beside accuracy, per label (a matrix's variants side by side), and accuracy per level.

``per_label`` is one row per label and probe: the label's output tokens/s at its fastest
closed-loop level (``measured_total_tps``: Σ output tokens / the level's wall time, the
concurrency it was reached at), its capacity (the highest C meeting ``--slo``, by
``slo.capacity``; else a capacity search's finding; else none), the joules per output token at
that fastest level (``telemetry.per_level``, where the run has energy figures), and the probe's
pooled accuracy with its interval (``accuracy.results``: quality.json's, Wilson's). ``chart``
draws output tokens/s against accuracy, one point per label, the interval as error bars.

``levels`` reads ``run --quality-probe``'s per-level tallies (quality.json's ``levels``): per
run, probe and level, the items graded at that concurrency, their accuracy and interval, and
the level's measured requests, the probe's among them (what the probe cost the level).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from analysis.figures import accuracy, slo
from analysis.figures.metrics import Settings
from analysis.figures.operating_points import CapacityFinding
from analysis.reading import telemetry
from analysis.reading.load import Dataset
from analysis.views.charts import LINEAR_AXIS, Chart, Series

CHART_FOLDER = "comparison"
CHART_KEY = "speed_vs_accuracy"
LEVEL_COLUMNS = (
    "run",
    "label",
    "directory",
    "probe",
    "level",
    "concurrency",
    "requests",
    "n",
    "correct",
    "accuracy",
    "low",
    "high",
    "failed",
)
LABEL_COLUMNS = (
    "label",
    "probe",
    "output_tps",
    "at_concurrency",
    "capacity",
    "j_per_output_token",
    "n",
    "correct",
    "accuracy",
    "low",
    "high",
)


def levels(dataset: Dataset) -> pd.DataFrame:
    """One row per run, probe and level probed beside the load (empty: none was)."""
    rows = []
    for index, entry in accuracy.entries(dataset)[0]:
        run = dataset.runs[index]
        for level in entry.levels or []:
            for r in level.results:
                rows.append(
                    {
                        "run": index,
                        "label": run.label,
                        "directory": run.path.name,
                        "probe": r.name,
                        "level": level.index,
                        "concurrency": level.concurrency,
                        "requests": level.requests,
                        "n": r.n,
                        "correct": r.correct,
                        "accuracy": r.accuracy,
                        "low": r.low,
                        "high": r.high,
                        "failed": r.failed,
                    }
                )
    return pd.DataFrame(rows, columns=list(LEVEL_COLUMNS))


def capacities(
    records: pd.DataFrame,
    summary: pd.DataFrame,
    settings: Settings,
    bounds: list[slo.Bound] | None,
    think_time_s: float,
    findings: list[CapacityFinding],
) -> dict[str, float | None]:
    """Per label, the highest C meeting the SLO (``slo.capacity``, with ``--slo``), else what
    a capacity search found (--find-capacity's: a tier's answers its own bounds only); a label
    with neither is absent."""
    found: dict[str, float | None] = {
        c.label: c.value for c in findings if c.value is not None and not c.tier
    }
    if not bounds or records.empty:
        return found
    levels = slo.evaluate(records, summary, bounds, settings)
    for label, rows in levels.groupby("label", sort=False):
        found[str(label)] = slo.capacity(rows, bounds, think_time_s).concurrency
    return found


def per_label(
    summary: pd.DataFrame,
    graded: pd.DataFrame,
    nodes: pd.DataFrame,
    capacity: dict[str, float | None] | None = None,
) -> pd.DataFrame:
    """One row per label with closed-loop levels and a graded probe (``graded``: the rows of
    ``accuracy.results``; ``nodes``: ``telemetry.per_node``; ``capacity``: ``capacities``)."""
    energy = telemetry.per_level(nodes) if not nodes.empty else pd.DataFrame()
    rows = []
    for (label, probe), found in graded[graded["n"] > 0].groupby(["label", "probe"], sort=False):
        levels_of = summary[summary["label"] == label]
        if levels_of.empty:
            continue
        speeds = levels_of["measured_total_tps"].astype(float).fillna(-1.0).to_numpy()
        best = levels_of.iloc[int(np.argmax(speeds))]
        at = int(best["concurrency"])
        joules = np.nan
        if not energy.empty:
            match = energy[(energy["label"] == label) & (energy["concurrency"] == at)]
            joules = float(match["j_per_output_token"].iloc[0]) if not match.empty else np.nan
        first = found.iloc[0]
        rows.append(
            {
                "label": label,
                "probe": probe,
                "output_tps": float(best["measured_total_tps"]),
                "at_concurrency": at,
                "capacity": (capacity or {}).get(str(label)),
                "j_per_output_token": joules,
                "n": int(first["n"]),
                "correct": int(first["correct"]),
                "accuracy": float(first["accuracy"]),
                "low": float(first["low"]),
                "high": float(first["high"]),
            }
        )
    return pd.DataFrame(rows, columns=list(LABEL_COLUMNS))


def chart(frame: pd.DataFrame, note: str = "") -> Chart | None:
    """Output tokens/s against accuracy, one point per label (None: fewer than two labels).
    With several probes, the first probe's accuracy (each probe is its own point set)."""
    if frame["label"].nunique() < 2:
        return None
    series = []
    for probe, rows in frame.groupby("probe", sort=False):
        for row in rows.itertuples():
            series.append(
                Series(
                    f"{row.label} · {probe}",
                    np.array([100 * row.accuracy]),
                    np.array([row.output_tps]),
                    style="none",
                    texts=[str(row.label)],
                    x_low=np.array([100 * row.low]),
                    x_high=np.array([100 * row.high]),
                )
            )
    return Chart(
        CHART_FOLDER,
        CHART_KEY,
        "Speed against accuracy",
        "Output tokens/s (fastest level)",
        series,
        subtitle="accuracy with its 95 % Wilson interval" + note,
        x_label="Accuracy (%)",
        x_axis=LINEAR_AXIS,
    )
