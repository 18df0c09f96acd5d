"""Performance per variant: the report's means table and p50/p90 with CIs, per label."""

from __future__ import annotations

from analysis import percentiles, tables
from analysis.document import Block, Section
from analysis.sections import Context, image
from analysis.tables import slug


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
        blocks += [
            image(slug(label), key, f"{label} {key}")
            for key in ("ttft", "itl", "tps", "latency", "throughput")
        ]
        section.subsections.append(Section(label, blocks))
    return section
