"""What the server saw, as tables and charts: the TTFT split per level (a stacked bar per level),
the client's ITL beside the server's, and speculative decoding's acceptance (per level, the
pooled histogram, by category, TPOT against acceptance length). From
``analysis.figures.server_timing``; closed-loop levels (by C)."""

from __future__ import annotations

from dataclasses import asdict
from typing import TypeVar

import numpy as np
import pandas as pd

from analysis.figures.metrics import CLOSED
from analysis.figures.server_timing import Drafting, TtftSplit, pool, pooled_length
from analysis.views.charts import STACKED_BARS, Chart, Series
from analysis.views.tables import Table, slug

SPLIT_CHART = "ttft_split"
HISTOGRAM_CHART = "accepted_drafts"
SPLIT_PARTS = (  # (TtftSplit's field, the bar's segment)
    ("queue_ms", "server queue"),
    ("server_ttft_ms", "server TTFT (prefill to first token)"),
    ("rest_ms", "rest (network, HTTP, front end, detokenization)"),
)
SPLIT_COLUMNS = {
    "concurrency": "C",
    "n": "n",
    "client_ttft_ms": "client TTFT ms",
    "queue_ms": "server queue ms",
    "server_ttft_ms": "server TTFT ms",
    "rest_ms": "rest ms",
    "client_itl_ms": "client ITL ms",
    "server_itl_ms": "server ITL ms",
}
DRAFTING_COLUMNS = {
    "acceptance_length_mean": "acceptance length mean",
    "acceptance_length_p50": "p50",
    "acceptance_length_p90": "p90",
    "acceptance_rate_mean": "acceptance rate mean",
    "acceptance_rate_p50": "rate p50",
    "acceptance_rate_p90": "rate p90",
    "pooled_acceptance_length": "pooled length",
    "steps": "verify steps",
    "accepted": "accepted",
    "drafts": "drafted",
    "tpot_ms_mean": "TPOT ms",
}
_MS = "{:.1f}"
_LENGTH = "{:.2f}"
SPLIT_FORMATS = {name: _MS for name in list(SPLIT_COLUMNS.values())[2:]}
DRAFTING_FORMATS = {
    **{name: _LENGTH for name in ("acceptance length mean", "p50", "p90", "pooled length")},
    **{name: "{:.1%}" for name in ("acceptance rate mean", "rate p50", "rate p90")},
    "TPOT ms": _MS,
}


Row = TypeVar("Row", TtftSplit, Drafting)


def closed_loop(rows: list[Row], label: str) -> list[Row]:
    """One label's closed-loop levels, by C."""
    mine = [r for r in rows if r.label == label and r.loop == CLOSED.name]
    return sorted(mine, key=lambda r: r.concurrency or 0)


def split_table(splits: list[TtftSplit], label: str) -> Table:
    frame = pd.DataFrame([asdict(s) for s in splits])[list(SPLIT_COLUMNS)]
    return Table(
        f"{slug(label)}_ttft_split",
        f"{label}: the client's TTFT split per level (means)",
        frame.rename(columns=SPLIT_COLUMNS),
        SPLIT_FORMATS,
    )


def split_chart(splits: list[TtftSplit], label: str, note: str = "") -> Chart:
    """A stacked bar per level: the server's queue, its TTFT and the rest (means, ms)."""
    x = np.array([s.concurrency for s in splits], float)
    return Chart(
        slug(label),
        SPLIT_CHART,
        f"{label}: where the TTFT went",
        "mean TTFT (ms)",
        [
            Series(name, x, np.array([getattr(s, part) for s in splits], float))
            for part, name in SPLIT_PARTS
        ],
        f"client TTFT = server queue + server TTFT + rest{note}",
        x_axis=STACKED_BARS,
    )


def drafting_table(levels: list[Drafting], label: str, by: str) -> Table:
    """Acceptance per level (``by`` "concurrency") or per category (``by`` "category")."""
    frame = pd.DataFrame([asdict(d) for d in levels])[[by, "n", *DRAFTING_COLUMNS]]
    heading = {"concurrency": "C", "category": "category"}[by]
    return Table(
        f"{slug(label)}_drafting_by_{by}",
        f"{label}: speculative decoding per {heading if by == 'category' else 'level'}",
        frame.rename(columns={by: heading, **DRAFTING_COLUMNS}),
        DRAFTING_FORMATS,
    )


def histogram_table(levels: list[Drafting], label: str) -> Table:
    """The pooled histogram: verify steps by drafts accepted, per level and all levels."""
    pooled = pool([d.histogram for d in levels])
    columns = {f"C={d.concurrency}": d.histogram for d in levels}
    frame = pd.DataFrame({"accepted drafts": range(len(pooled))})
    for name, histogram in columns.items():
        frame[name] = [histogram[j] if j < len(histogram) else 0 for j in range(len(pooled))]
    frame["all levels"] = pooled
    frame["share"] = np.array(pooled, float) / max(sum(pooled), 1)
    length = pooled_length(pooled)
    return Table(
        f"{slug(label)}_accepted_drafts",
        f"{label}: verify steps by drafts accepted (the records' histograms summed)",
        frame,
        {"share": "{:.1%}"},
        note=f"pooled acceptance length {length:.3f}" if length is not None else "",
    )


def histogram_chart(levels: list[Drafting], label: str, note: str = "") -> Chart:
    """Verify steps by drafts accepted, a bar segment per level."""
    width = len(pool([d.histogram for d in levels]))
    x = np.arange(width, dtype=float)
    return Chart(
        slug(label),
        HISTOGRAM_CHART,
        f"{label}: verify steps by drafts accepted",
        "verify steps",
        [
            Series(
                f"C={d.concurrency}",
                x,
                np.array(
                    [d.histogram[j] if j < len(d.histogram) else 0 for j in range(width)], float
                ),
            )
            for d in levels
        ],
        f"the records' histograms summed, one segment per level{note}",
        "drafts accepted in the step",
        STACKED_BARS,
    )


def tpot_table(frame: pd.DataFrame, label: str) -> Table:
    mine = frame[frame["label"] == label].drop(columns="label")
    return Table(
        f"{slug(label)}_tpot_by_acceptance",
        f"{label}: TPOT by acceptance length",
        mine.rename(
            columns={
                "acceptance_length": "acceptance length",
                "acceptance_length_mean": "mean length",
                "tpot_ms_mean": "TPOT ms mean",
                "tpot_ms_p50": "TPOT ms p50",
            }
        ),
        {"mean length": _LENGTH, "TPOT ms mean": _MS, "TPOT ms p50": _MS},
    )


def charts(
    splits: list[TtftSplit], drafts: list[Drafting], labels: list[str], note: str = ""
) -> list[Chart]:
    """Every label's split chart and accepted-drafts chart (where it has the figures)."""
    out = []
    for label in labels:
        if mine := closed_loop(splits, label):
            out.append(split_chart(mine, label, note))
        if levels := closed_loop(drafts, label):
            out.append(histogram_chart(levels, label, note))
    return out
