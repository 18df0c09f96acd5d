"""A variant selection guide by scenario (the quantization report's 8.1), each choice with the
rule and the figure that made it, by ``analysis.views.verdicts.selection``."""

from __future__ import annotations

import pandas as pd

from analysis.document import Section
from analysis.figures import slo
from analysis.sections import Context
from analysis.views import tables, verdicts
from analysis.views.tables import Table


def slo_capacities(context: Context) -> dict[str, float | None] | None:
    """Label → the highest concurrency meeting the --slo (None: no --slo, or no raw records)."""
    records, bounds = context.dataset.records, context.bounds
    if not bounds or records.empty:
        return None
    levels = slo.evaluate(records, context.summary, bounds, context.settings)
    return {
        label: slo.capacity(
            levels[levels["label"] == label], bounds, context.think_time_s
        ).concurrency
        for label in tables.labels_of(context.summary)
        if (levels["label"] == label).any()
    }


def build(context: Context) -> Section:
    summary = context.summary
    choices = verdicts.selection(
        summary,
        verdicts.predictability(summary),
        verdicts.optima(summary),
        slo_capacities(context),
    )
    frame = pd.DataFrame(
        {
            "Scenario": [c.scenario for c in choices],
            "Choice": [c.label for c in choices],
            "Concurrency": [c.concurrency for c in choices],
            "Figure": [c.figure for c in choices],
            "Rule": [c.rule for c in choices],
            "Every label": [c.figures for c in choices],
        }
    )
    note = (
        "Concurrency: the chosen label's optimal range for latency "
        f"({context.ref('optimal_concurrency')}) for the interactive scenarios, the level of "
        "its figure for low load and batch, its optimal concurrency for throughput for high "
        "load. Speed only: accuracy is not weighed here."
    )
    return Section(
        "Variant selection guide",
        [note, Table("selection", "Choice per scenario, with the figure that made it", frame)],
    )
