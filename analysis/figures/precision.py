"""``--target-precision``: per run, level and target, what the level's requests reached.

The manifest names each level's targets (``LevelEntry.precision``) and whether the level
stopped at the cap (``capped``); the figures are computed again here from the records with the
load side's own function (``records.reach``: the same sorted values, the same interval), so
the report says what the stop rule saw, not what the manifest claims.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from analysis.reading.load import Dataset
from sparkload.records import TARGET_METRICS, parse_target, reach

KEY = "precision"  # summary.json's table
COLUMNS = [
    "label",
    "run",
    "concurrency",
    "level_index",
    "target",
    "unit",
    "value",
    "low",
    "high",
    "half_width_pct",
    "target_pct",
    "requests",
    "met",
    "capped",
]


def per_level(dataset: Dataset) -> pd.DataFrame:
    """One row per level and target of every run that set targets (empty: none did); the
    statistic and its 90 % interval in the metric's unit (ms for TTFT)."""
    rows = []
    records = dataset.records
    for number, run in enumerate(dataset.runs):
        levels = [level for level in run.manifest.levels if level.precision]
        if not levels or records.empty:
            continue
        mine = records[
            (records["run"].to_numpy() == number)
            & records["measure"].to_numpy()
            & records["ok"].to_numpy()
        ]
        for level in levels:
            at_level = mine[mine["level_index"].to_numpy() == level.index]
            for entry in level.precision or []:
                target = parse_target(entry.target)
                metric = TARGET_METRICS[target.field]
                values = (
                    at_level[target.field].to_numpy(np.float64, na_value=np.nan)
                    if target.field in at_level
                    else np.empty(0)
                )
                reached = reach(target, sorted(values[np.isfinite(values)].tolist()))
                half = reached.half_width
                rows.append(
                    {
                        "label": run.label,
                        "run": run.path.name,
                        "concurrency": level.concurrency,
                        "level_index": level.index,
                        "target": target.text,
                        "unit": metric.unit,
                        **{
                            key: None if value is None else value * metric.factor
                            for key, value in (
                                ("value", reached.value),
                                ("low", reached.low),
                                ("high", reached.high),
                            )
                        },
                        "half_width_pct": None if half is None else 100 * half,
                        "target_pct": 100 * target.half_width,
                        "requests": reached.requests,
                        "met": reached.met,
                        "capped": bool(level.capped),
                    }
                )
    return pd.DataFrame(rows, columns=COLUMNS)


def json_tables(dataset: Dataset) -> dict[str, pd.DataFrame]:
    """summary.json's ``precision`` table (none when no run set a target: summary.json as it
    was)."""
    frame = per_level(dataset)
    return {} if frame.empty else {KEY: frame}
