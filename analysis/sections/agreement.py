"""Run-to-run agreement of labels run more than once."""

from __future__ import annotations

from collections import Counter

from analysis.document import Block, Section
from analysis.sections import Context
from analysis.views import tables, throughput_views


def build(context: Context) -> Section:
    prefill = set(throughput_views.prefill_labels(context.dataset))
    blocks: list[Block] = [
        "Labels run more than once (several run directories with one label): each run's value "
        "per level and metric and their spread."
        + (
            f" Prefill probes: agreement per prompt size in {context.ref('prefill')}."
            if context.holds("prefill")
            else ""
        )
    ]
    runs = Counter(run.label for run in context.dataset.runs)
    # per run and level once for every label (none to compare: not at all)
    levels = (
        throughput_views.per_run_levels(context.dataset.records)
        if max(runs.values(), default=0) > 1
        else None
    )
    found = [
        t
        for label in tables.labels_of(context.summary)
        if label not in prefill
        and levels is not None
        and (t := throughput_views.agreement(levels, label)) is not None
    ]
    blocks += found or ["No label was run more than once: no run-to-run comparison."]
    return Section("Run-to-run agreement", blocks)
