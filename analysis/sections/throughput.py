"""Aggregate vs per-stream throughput per level (prefill probes excluded)."""

from __future__ import annotations

from analysis.document import Section
from analysis.sections import Context
from analysis.views import tables, throughput_views


def build(context: Context) -> Section:
    prefill = set(throughput_views.prefill_labels(context.dataset))
    return Section(
        "Aggregate vs per-stream throughput",
        [
            "Aggregate = Σ output tokens / level wall time (what the server delivered to all "
            "streams together: the number for a fleet of agents); per-stream = mean of the "
            "requests' output tokens / latency (what one user sees). They differ by about C.",
            *(
                throughput_views.aggregate_vs_per_stream(context.summary, context.server, label)
                for label in tables.labels_of(context.summary)
                if label not in prefill
            ),
        ],
    )
