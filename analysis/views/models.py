"""Requests by model: what each model or LoRA adapter of a mix got and how it was served.

A run may spread its requests over several models (``--model A:0.7,B:0.3``: a base model and
its LoRA adapters on one server), each record naming the model it asked for. Adapters share the
server's batches, so a level's pooled figures hide what switching between them costs one of
them, and whether the shares asked for were the shares sent.

From the measured closed-loop records of labels whose records name two models or more, per
label, concurrency and model: requests (failures included), failures, the model's share of the
level's requests and of its successful requests' output tokens, then TTFT, ITL (ms), output
tok/s per user (TPS) and latency (s), each mean, p50 and p90 over the successful requests.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from analysis.figures import percentiles
from analysis.figures.metrics import CLOSED, Settings, loop_records
from analysis.reading import text_columns
from analysis.views.tables import Table

KEY = "models"
STATS = ("mean", "p50", "p90")
# (column stem, record field, scale): TTFT and ITL in ms, TPS as it is, latency in seconds
FIGURES: tuple[tuple[str, str, float], ...] = (
    ("TTFT ms", "ttft", 1000.0),
    ("ITL ms", "itl", 1000.0),
    ("TPS", "tps", 1.0),
    ("Latency s", "latency", 1.0),
)
FORMATS = {
    "Share of requests": "{:.3f}",
    "Share of output tokens": "{:.3f}",
    **{f"{stem} {stat}": "{:.2f}" for stem, _, _ in FIGURES for stat in STATS},
}


def model_records(records: pd.DataFrame) -> pd.DataFrame:
    """Measured closed-loop records of the labels that asked for two models or more (empty
    when no label did, or without raw records)."""
    if records.empty or "model" not in records:
        return records.iloc[0:0]
    closed = loop_records(records, CLOSED)
    named = closed["measure"].to_numpy() & ~text_columns.equals(closed["model"], "")
    counts = text_columns.distinct_by_label(closed, "model", named)
    mixed = {label for label, models in counts.items() if models >= 2}
    if not mixed:
        return closed.iloc[0:0]
    return closed[named & closed["label"].isin(mixed).to_numpy()]


def _stats(values: pd.Series, scale: float, settings: Settings) -> list[float]:
    ordered = np.sort(values.dropna().to_numpy(float)) * scale
    mean = ordered.mean() if len(ordered) else np.nan
    tails = [percentiles.quantile(ordered, q, settings.percentile_method) for q in (0.5, 0.9)]
    return [mean, *tails]


def by_model(named: pd.DataFrame, settings: Settings) -> pd.DataFrame:
    """One row per (label, concurrency, model), in the order the records name them."""
    rows = []
    for (label, level), level_group in named.groupby(["label", "level"], observed=True):
        ok_level = level_group[level_group["ok"].to_numpy()]
        tokens = ok_level["output_tokens"].sum()
        models = level_group["model"].astype(str)
        for model in dict.fromkeys(models):
            group = level_group[models.to_numpy() == model]
            ok = group[group["ok"].to_numpy()]
            row = {
                "Label": str(label),
                "Concurrency": int(level),
                "Model": model,
                "Requests": len(group),
                "Failures": len(group) - len(ok),
                "Share of requests": len(group) / len(level_group),
                "Share of output tokens": ok["output_tokens"].sum() / tokens if tokens else np.nan,
            }
            for stem, field, scale in FIGURES:
                figures = _stats(ok[field], scale, settings)
                row.update({f"{stem} {stat}": v for stat, v in zip(STATS, figures, strict=True)})
            rows.append(row)
    return pd.DataFrame(rows)


def model_table(frame: pd.DataFrame) -> Table:
    return Table(KEY, "Requests by model per label and concurrency", frame, FORMATS)
