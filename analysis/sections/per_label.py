"""Performance per variant: the report's means table and p50/p90 with CIs, per label."""

from __future__ import annotations

import pandas as pd

from analysis import percentiles, tables
from analysis.document import Block, Section
from analysis.metrics import WARM_CACHE_PCT
from analysis.sections import Context, image
from analysis.tables import slug


def warm_cache_note(summary: pd.DataFrame, label: str) -> str | None:
    """A warning for the levels whose prompts the server mostly served from its prefix cache."""
    rows = summary[(summary["label"] == label) & (summary["cached_prompt_pct"] >= WARM_CACHE_PCT)]
    if rows.empty:
        return None
    levels = ", ".join(
        f"C={c} ({pct:.0f} %)"
        for c, pct in zip(rows["concurrency"], rows["cached_prompt_pct"], strict=False)
    )
    return (
        f"**{levels}: at least {WARM_CACHE_PCT:.0f} % of the prompt tokens were served from "
        "the prompt cache: TTFT measures a warm cache.**"
    )


def build(context: Context) -> Section:
    summary = context.summary
    section = Section(
        "Performance per variant",
        [
            "Means per concurrency level, then p50/p90 with their bootstrap 90 % confidence "
            "interval in brackets. † marks a p90 from fewer than "
            f"{percentiles.FEW_SAMPLES_FOR_P90} samples (it rests on the top one or two "
            "values). Per-stream RPS = 1 / mean latency (flat in C by construction; see "
            f"{context.ref('concurrency')} for system-wide RPS)."
        ],
    )
    for label in tables.labels_of(summary):
        blocks: list[Block] = [
            tables.label_means(summary, label),
            tables.label_percentiles(summary, label),
        ]
        if (note := warm_cache_note(summary, label)) is not None:
            blocks.append(note)
        blocks += [
            image(slug(label), key, f"{label} {key}")
            for key in ("ttft", "itl", "tps", "latency", "throughput")
        ]
        section.subsections.append(Section(label, blocks))
    return section
