"""Distinct vs identical prompts: what the prefix cache adds to a run's throughput."""

from __future__ import annotations

from analysis.document import Block, Section
from analysis.sections import Context
from analysis.views import throughput_views


def build(context: Context) -> Section | None:
    pairs, mixed = throughput_views.contrast_pairs(context.dataset)
    blocks: list[Block] = [
        f"**Label `{label}` pools runs with and without --identical-prompts**: give "
        "the contrast run its own --label."
        for label in mixed
    ]
    blocks += [throughput_views.contrast_table(context.summary, a, b) for a, b in pairs]
    if not blocks:
        return None
    return Section(
        "Distinct vs identical prompts",
        [
            "Pairs of labels with the same workload and output length, variant, TP, model, "
            "simulator setup and metadata, one sending distinct "
            "cache-busted prompts and one --identical-prompts (every request the same prompt, "
            "which the prefix cache serves): the identical run overstates throughput by what "
            "caching saves.",
            *blocks,
        ],
    )
