"""Prefill throughput per prompt size, for prefill probes (``--workload prefill``)."""

from __future__ import annotations

from analysis.document import Section
from analysis.sections import Context
from analysis.views import throughput_views


def build(context: Context) -> Section | None:
    found = [
        t
        for label in throughput_views.prefill_labels(context.dataset)
        if (t := throughput_views.prefill_table(context.dataset.records, label)) is not None
    ]
    if not found:
        return None
    return Section(
        "Prefill throughput",
        [
            "The prefill probe (`--workload prefill`): unique prompts (a nonce first, then "
            "seeded text starting at a random sentence) so the prefix cache cannot serve them; "
            "max_tokens=1 isolates prefill from decode; C=1. Sections "
            f"{context.ref('per_label')}–{context.ref('service_levels')} pool its sizes into "
            "one C=1 row.",
            *found,
        ],
    )
