"""Performance per variant: the report's means table and p50/p90 with CIs, per label."""

from __future__ import annotations

import pandas as pd

from analysis.document import Block, Section
from analysis.figures import percentiles
from analysis.figures.metrics import WARM_CACHE_PCT
from analysis.sections import Context, image
from analysis.views import tables
from analysis.views.tables import slug


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


THINKING_NOTE = (
    "Where a label's requests reasoned or called tools, TTFO (time to first output token: the "
    "first content or tool-call chunk, reasoning excluded; a thinking model's time to answer) "
    "stands beside TTFT (the first token of any kind, the reasoning's first), and a table "
    "gives per level the reasoning and answer tokens (output − reasoning), the reasoning's "
    "share of the output tokens, each part's decode rate (tokens after the first / its span: "
    "the reasoning's from TTFT, the answer's from TTFO), the tool calls streamed, when the "
    "last call's arguments were complete (from the send) and the share of requests whose "
    "every call's arguments parse as a JSON object. No answer counts the requests that "
    "reasoned until max_tokens (finish `length`) without a first output token: they have no "
    "TTFO and are not in its figures (a TTFO bound counts them as never meeting it). "
    "Reasoning counted by chunks (the server's usage gave no count) is a lower bound where a "
    "chunk carries several tokens (MTP): the answer's tokens and rate are then upper bounds."
)


def build(context: Context) -> Section:
    summary = context.summary
    intro = (
        "Means per concurrency level, then p50/p90 with their bootstrap 90 % confidence "
        "interval in brackets. † marks a p90 from fewer than "
        f"{percentiles.FEW_SAMPLES_FOR_P90} samples (it rests on the top one or two "
        "values). Per-stream RPS = 1 / mean latency (flat in C by construction; see "
        f"{context.ref('concurrency')} for system-wide RPS)."
    )
    section = Section(
        "Performance per variant",
        [intro + " " + THINKING_NOTE if tables.thinks(summary) else intro],
    )
    for label in tables.labels_of(summary):
        blocks: list[Block] = [
            tables.label_means(summary, label),
            tables.label_percentiles(summary, label),
        ]
        if (thinking := tables.label_thinking(summary, label)) is not None:
            blocks.append(thinking)
        if (note := warm_cache_note(summary, label)) is not None:
            blocks.append(note)
        blocks += [
            image(slug(label), key, f"{label} {key}")
            for key in ("ttft", "itl", "tps", "latency", "throughput")
        ]
        section.subsections.append(Section(label, blocks))
    return section
