"""Fallback input: Locust's own ``--csv`` files, for runs that left no raw records.

Locust rounds every response time into buckets (1 ms below 100 ms, 10 ms below 1 s, 100 ms
below 10 s, 1 s above) and reads percentiles as nearest ranks of those buckets, so its p50/p90
are approximations; only its averages and counts are exact. Rows are matched to metrics and
concurrency levels by name: the request type or name must say which metric (``TTFT``, ``ITL`` or
``TPOT``, ``E2E`` or ``latency``) and which level (``c=4``, ``C4`` or ``concurrency 4``).
Rows that say neither are ignored and counted in a note, and so are warm-up rows (``c=1 warmup``):
a level is its measured requests only, as with raw records. Locust's CSV has no token counts, so
TPS and everything derived from it stay empty for such runs.
"""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pandas as pd

METHOD_LABEL = "locust-bucketed"
_METRIC_PATTERNS = (
    ("ttft", re.compile(r"\bttft\b")),
    ("itl", re.compile(r"\b(itl|tpot)\b")),
    ("latency", re.compile(r"\b(e2e|e2el|latency|end[- ]to[- ]end)\b")),
)
_WARMUP = re.compile(r"\bwarm[- _]?up\b")
_CONCURRENCY = re.compile(r"\b(?:c\s*=?\s*|concurrency\s*[=:]?\s*)(\d+)\b")
# Locust's CSVs are in milliseconds; the summary keeps ttft/itl in ms and latency in s.
_UNIT_DIVISOR = {"ttft": 1.0, "itl": 1.0, "latency": 1000.0}
_COLUMN = {"ttft": "ttft_ms", "itl": "itl_ms", "latency": "latency_s"}
_REQUIRED = (
    "Type",
    "Name",
    "Request Count",
    "Failure Count",
    "Average Response Time",
    "50%",
    "90%",
)


def find_stats_csv(path: Path) -> Path | None:
    """The ``<prefix>_stats.csv`` file Locust's ``--csv <prefix>`` wrote, if any."""
    matches = sorted(path.glob("*_stats.csv"))
    return matches[0] if matches else None


def classify(request_type: str, name: str) -> tuple[str | None, int | None]:
    """(metric, concurrency) a Locust row stands for, from its type and name."""
    text = f"{request_type} {name}".lower()
    metric = next((m for m, pattern in _METRIC_PATTERNS if pattern.search(text)), None)
    level = _CONCURRENCY.search(text)
    return metric, int(level.group(1)) if level else None


def _wall_times(history: Path) -> dict[tuple[str, str], float]:
    """Seconds from the first to the last completion Locust's history shows, per row."""
    frame = pd.read_csv(history)
    frame = frame[frame["Name"] != "Aggregated"]
    walls = {}
    for (kind, name), rows in frame.groupby(["Type", "Name"], sort=False):
        counts = pd.to_numeric(rows["Total Request Count"], errors="coerce").to_numpy()
        stamps = pd.to_numeric(rows["Timestamp"], errors="coerce").to_numpy()
        changed = np.flatnonzero(np.diff(counts, prepend=0) > 0)
        if len(changed) >= 2:
            walls[(str(kind), str(name))] = float(stamps[changed[-1]] - stamps[changed[0]])
    return walls


def read_levels(stats: Path, notes: list[str]) -> pd.DataFrame:
    """One row per concurrency level with the summary's base columns (mean/p50/p90/p99, n)."""
    frame = pd.read_csv(stats)
    missing = [c for c in _REQUIRED if c not in frame.columns]
    if missing:
        raise ValueError("missing column(s) " + ", ".join(missing))
    history = stats.with_name(stats.name.replace("_stats.csv", "_stats_history.csv"))
    walls = _wall_times(history) if history.is_file() else {}
    levels: dict[int, dict] = {}
    ignored = warmups = 0
    for row in frame.to_dict("records"):
        if str(row.get("Name")) == "Aggregated":
            continue
        if _WARMUP.search(f"{row.get('Type', '')} {row.get('Name', '')}".lower()):
            warmups += 1
            continue
        metric, level = classify(str(row.get("Type", "")), str(row.get("Name", "")))
        if metric is None or level is None:
            ignored += 1
            continue
        out = levels.setdefault(level, {"concurrency": level, "runs": 1})
        column, divisor = _COLUMN[metric], _UNIT_DIVISOR[metric]
        for stat, source in (
            ("mean", "Average Response Time"),
            ("p50", "50%"),
            ("p90", "90%"),
            ("p99", "99%"),
        ):
            out[f"{column}_{stat}"] = pd.to_numeric(row.get(source), errors="coerce") / divisor
        if metric == "itl":  # one ITL event per request that had a second token
            out["itl_n"] = int(row["Request Count"])
        if metric == "latency" or "n" not in out:
            out["n"] = int(row["Request Count"]) - int(row["Failure Count"])
            out["failures"] = int(row["Failure Count"])
            wall = walls.get((str(row.get("Type")), str(row.get("Name"))))
            if wall:
                # The history ticks once a second from the first completion; the first request
                # started one mean latency before it.
                out["wall_s"] = wall + out.get("latency_s_mean", 0.0)
    if warmups:
        notes.append(f"{warmups} Locust CSV warm-up row(s) left out: levels are measured requests")
    if ignored:
        notes.append(
            f"{ignored} Locust CSV row(s) named neither a metric and a level (c=N): ignored"
        )
    notes.append(
        "Locust CSV input: percentiles are Locust's bucketed approximations "
        "(times rounded into 1/10/100/1000 ms buckets, nearest rank); means and counts are exact"
    )
    result = pd.DataFrame(sorted(levels.values(), key=lambda r: r["concurrency"]))
    if not result.empty:
        result["percentile_method"] = METHOD_LABEL
        result["source"] = "locust-csv"
    return result
