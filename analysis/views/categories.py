"""Requests by category: what each kind of prompt costs at each level.

A dataset line may name its ``category`` (coding, math, extraction, ...; the built-in
``prompts/speculative.jsonl`` names eight), and its requests' records carry it. Speculative
decoding is where it matters most: what a drafter gets accepted depends on what the prompt
asks (code and extraction copy and follow patterns, creative writing does not), so a level's
pooled figures hide the spread between them.

From the measured closed-loop records with a category, per label, concurrency and category:
requests, failures, TTFT mean/p50/p90 (ms), ITL mean/p50 (ms), output tok/s per user (mean,
``tps``) and the mean prompt and output tokens, over the successful requests.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from analysis.figures import percentiles
from analysis.figures.metrics import Settings
from analysis.reading import text_columns
from analysis.views.tables import Table, slug

_MS = "{:.1f}"
FORMATS = {
    **{f"TTFT ms {s}": _MS for s in ("mean", "p50", "p90")},
    "ITL ms mean": "{:.2f}",
    "ITL ms p50": "{:.2f}",
    "TPS mean": "{:.1f}",
    "Prompt tokens mean": "{:.0f}",
    "Output tokens mean": "{:.0f}",
}


def category_records(records: pd.DataFrame) -> pd.DataFrame:
    """Measured closed-loop records that name a category (empty when there are none)."""
    if records.empty or "category" not in records:
        return records.iloc[0:0]
    keep = records["measure"].to_numpy() & ~text_columns.equals(records["category"], "")
    if "offered_rps" in records:
        keep &= ~np.isfinite(records["offered_rps"].to_numpy())
    return records[keep]


def categories(named: pd.DataFrame) -> list[str]:
    """The categories in the records, in the order they first appear."""
    return [str(c) for c in dict.fromkeys(named["category"].astype(str))]


def labels(named: pd.DataFrame) -> list[str]:
    return [str(label) for label in dict.fromkeys(named["label"])]


def _ms(values: pd.Series, settings: Settings, stem: str, stats: tuple[str, ...]) -> dict:
    ordered = np.sort(values.dropna().to_numpy(float)) * 1000.0
    out = {}
    for stat in stats:
        if stat == "mean":
            out[f"{stem} ms mean"] = ordered.mean() if len(ordered) else np.nan
        else:
            q = int(stat[1:]) / 100.0
            out[f"{stem} ms {stat}"] = percentiles.quantile(ordered, q, settings.percentile_method)
    return out


def figures(group: pd.DataFrame, settings: Settings) -> dict:
    """A group's counts and figures (the module docstring's) over its successful requests."""
    ok = group[group["ok"].to_numpy()]
    return {
        "n": len(ok),
        "Failures": len(group) - len(ok),
        **_ms(ok["ttft"], settings, "TTFT", ("mean", "p50", "p90")),
        **_ms(ok["itl"], settings, "ITL", ("mean", "p50")),
        "TPS mean": ok["tps"].mean(),
        "Prompt tokens mean": ok["prompt_tokens"].mean(),
        "Output tokens mean": ok["output_tokens"].mean(),
    }


def by_category(named: pd.DataFrame, label: str, settings: Settings) -> pd.DataFrame:
    """One row per (concurrency, category) of ``label``, categories in order of appearance."""
    rows = named[named["label"] == label]
    order = {c: i for i, c in enumerate(categories(named))}
    out = [
        {"Concurrency": int(level), "Category": str(category), **figures(group, settings)}
        for (level, category), group in rows.groupby(
            ["level", rows["category"].astype(str)], sort=False, observed=True
        )
    ]
    frame = pd.DataFrame(out)
    if frame.empty:
        return frame
    frame["_order"] = frame["Category"].map(order)
    return (
        frame.sort_values(["Concurrency", "_order"]).drop(columns="_order").reset_index(drop=True)
    )


def category_table(frame: pd.DataFrame, label: str) -> Table:
    return Table(
        f"{slug(label)}_by_category", f"{label}: requests by category per level", frame, FORMATS
    )
