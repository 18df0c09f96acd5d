"""Conversations (``--workload conversation``): what each turn costs as the context grows.

From the records of conversation turns (those with a ``turn``), measured requests of
closed-loop levels only:

* **By turn**, per label and concurrency: requests, failures, TTFT mean/p50/p90, mean prompt
  and cached tokens, and the cached share = Σ cached tokens / Σ prompt tokens over the turn's
  successful requests that reported both (a token-weighted share, as vLLM's prefix-cache hit
  rate is hits / queries).
* **By context length**, per label and concurrency: the same TTFT figures per bucket of prompt
  tokens, the buckets powers of two (``[512, 1024)``: from 512 up to 1,023 tokens), so a long
  conversation's late turns and another's early ones are compared at the same context.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from analysis.figures import percentiles
from analysis.figures.metrics import Settings
from analysis.reading import text_columns
from analysis.views.charts import Chart, Series
from analysis.views.tables import Table, slug

TTFT_FORMATS = {"TTFT ms mean": "{:.1f}", "TTFT ms p50": "{:.1f}", "TTFT ms p90": "{:.1f}"}
CHART = "ttft_vs_context"


def turned_records(records: pd.DataFrame) -> pd.DataFrame:
    """Measured closed-loop records with a ``turn``: a conversation's turns and an agent's steps
    (empty when there are none)."""
    # a run without turns has them sparse: asked of the sparse column, not of 10M NaN made dense
    if records.empty or "turn" not in records or not records["turn"].notna().any():
        return records.iloc[0:0]
    keep = records["measure"].to_numpy() & np.isfinite(records["turn"].to_numpy())
    if "offered_rps" in records:
        keep &= ~np.isfinite(records["offered_rps"].to_numpy())
    return records[keep]


def turn_records(records: pd.DataFrame) -> pd.DataFrame:
    """Measured closed-loop records of conversation turns (empty when there are none). An
    agent's steps carry a turn too, and are the agents section's (``analysis.views.agents``)."""
    turned = turned_records(records)
    if "step" not in turned:
        return turned
    return turned[text_columns.equals(turned["step"], "")]


def labels(turns: pd.DataFrame) -> list[str]:
    return [str(label) for label in dict.fromkeys(turns["label"])]


def _figures(group: pd.DataFrame, settings: Settings) -> dict:
    """A group's counts, TTFT figures (ms) and token means over its successful requests."""
    ok = group[group["ok"].to_numpy()]
    ttft = np.sort(ok["ttft"].dropna().to_numpy()) * 1000.0
    both = ok[ok["prompt_tokens"].notna() & ok["cached_tokens"].notna()]
    prompt = both["prompt_tokens"].sum()
    method = settings.percentile_method
    return {
        "n": len(ok),
        "Failures": len(group) - len(ok),
        "TTFT ms mean": ttft.mean() if len(ttft) else np.nan,
        "TTFT ms p50": percentiles.quantile(ttft, 0.5, method),
        "TTFT ms p90": percentiles.quantile(ttft, 0.9, method),
        "Prompt tokens mean": ok["prompt_tokens"].mean(),
        "Cached tokens mean": ok["cached_tokens"].mean(),
        "Cached share": both["cached_tokens"].sum() / prompt if prompt > 0 else np.nan,
    }


def by_turn(turns: pd.DataFrame, label: str, settings: Settings) -> pd.DataFrame:
    """One row per (concurrency, turn) of ``label``."""
    rows = turns[turns["label"] == label]
    out = [
        {"Concurrency": int(level), "Turn": int(turn), **_figures(group, settings)}
        for (level, turn), group in rows.groupby(["level", "turn"], sort=True)
    ]
    return pd.DataFrame(out)


def context_bucket(prompt_tokens: np.ndarray) -> np.ndarray:
    """Each prompt's bucket: the power of two at or below its token count (NaN when unknown)."""
    tokens = np.asarray(prompt_tokens, dtype=float)
    bucket = np.full(tokens.shape, np.nan)
    known = np.isfinite(tokens) & (tokens >= 1)
    bucket[known] = 2.0 ** np.floor(np.log2(tokens[known]))
    return bucket


def by_context(turns: pd.DataFrame, label: str, settings: Settings) -> pd.DataFrame:
    """One row per (concurrency, prompt-token bucket) of ``label``."""
    rows = turns[turns["label"] == label]
    rows = rows.assign(bucket=context_bucket(rows["prompt_tokens"].to_numpy()))
    out = [
        {
            "Concurrency": int(level),
            "Prompt tokens from": int(bucket),
            "to": int(bucket) * 2 - 1,
            **_figures(group, settings),
        }
        for (level, bucket), group in rows.groupby(["level", "bucket"], sort=True)
    ]
    return pd.DataFrame(out)


def turn_table(frame: pd.DataFrame, label: str) -> Table:
    return Table(
        f"{slug(label)}_by_turn",
        f"{label}: by turn",
        frame,
        {
            **TTFT_FORMATS,
            "Prompt tokens mean": "{:.0f}",
            "Cached tokens mean": "{:.0f}",
            "Cached share": "{:.1%}",
        },
    )


def context_table(frame: pd.DataFrame, label: str) -> Table:
    return Table(
        f"{slug(label)}_by_context",
        f"{label}: TTFT by context length (prompt tokens)",
        frame.drop(columns=["Prompt tokens mean", "Cached tokens mean"]),
        {**TTFT_FORMATS, "Cached share": "{:.1%}"},
    )


def context_chart(frame: pd.DataFrame, label: str, note: str = "") -> Chart:
    """Mean TTFT per prompt-token bucket of ``label``, one line per concurrency."""
    return bucket_chart(frame, label, CHART, "TTFT", "conversation turns", note)


def bucket_chart(
    frame: pd.DataFrame, label: str, name: str, metric: str, subject: str, note: str = ""
) -> Chart:
    """Mean ``metric`` (its ``<metric> ms mean`` column) per prompt-token bucket of ``label``, one
    line per concurrency: the chart of a table binned by ``context_bucket``. A row without a
    bucket (requests that failed before reporting their prompt tokens: the agents' tables keep
    them, their bucket empty) has no place on the x axis and is left out."""
    known = frame[frame["Prompt tokens from"].notna()]
    series = [
        Series(
            f"C={int(level)}",
            rows["Prompt tokens from"].to_numpy(float),
            rows[f"{metric} ms mean"].to_numpy(float),
        )
        for level, rows in known.groupby("Concurrency", sort=True)
    ]
    return Chart(
        slug(label),
        name,
        f"{label}: {metric} vs context length",
        f"{metric} (ms, mean)",
        series,
        f"{subject}, prompt tokens in power-of-two buckets{note}",
        "Prompt tokens (bucket from)",
    )


def every_label(turns: pd.DataFrame, settings: Settings, figures) -> pd.DataFrame:
    """``figures`` (``by_turn`` or ``by_context``) of every label, a ``Label`` column first
    (summary.json's tables)."""
    frames = [figures(turns, label, settings).assign(Label=label) for label in labels(turns)]
    if not frames:
        return pd.DataFrame()
    frame = pd.concat(frames, ignore_index=True)
    return frame[["Label", *(c for c in frame.columns if c != "Label")]]
