"""TP scaling: one variant at several TP sizes, per concurrency."""

from __future__ import annotations

from analysis.document import Section
from analysis.sections import Context
from analysis.views import tables


def build(context: Context) -> Section:
    groups = tables.tp_variants(context.summary)
    if not groups:
        return Section(
            "TP scaling", ["No variant ran at more than one TP size: no TP1/TP2/TP4 comparison."]
        )
    return Section(
        "TP scaling",
        [
            "Per concurrency: per-stream TPS and its speed-up over the smallest TP size, total "
            "tok/s, total tok/s per node, and TP efficiency = total tok/s(TPn) / ((n / n₀) × "
            "total tok/s(TPn₀)) × 100 with n₀ the smallest TP size: 100 % means n times the GPUs "
            "give n times the tokens. Nodes come from the manifest (the TP size when absent).",
            *(
                tables.tp_scaling(context.summary, variant, labels)
                for variant, labels in groups.items()
            ),
        ],
    )
