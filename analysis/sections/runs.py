"""Runs and method: what was read, what was left out, and how the figures were computed."""

from __future__ import annotations

import pandas as pd

from analysis import percentiles
from analysis.document import Block, Section
from analysis.load import SOURCE_LOCUST
from analysis.sections import Context
from analysis.tables import Table

METHOD_TEXT = {
    percentiles.LINEAR: 'linear interpolation between order statistics (numpy method="linear")',
    percentiles.CORDATUS: "cordatus (reference tool): p50 = statistics.median, other percentiles "
    "nearest rank sorted[ceil(q·n) − 1]",
}


def build(context: Context) -> Section:
    dataset, settings, summary = context.dataset, context.settings, context.summary
    frame = pd.DataFrame(
        [
            {
                "Label": r.label,
                "Variant": r.variant,
                "TP": r.tp,
                "Nodes": r.nodes,
                "Status": f"**INCOMPLETE** ({r.status})" if r.incomplete else r.status,
                "Source": r.source,
                "Records": r.records,
                "Skipped lines": r.skipped_lines,
                "Time scale": f"{r.time_scale:g}",
                "Directory": r.path.name,
            }
            for r in dataset.runs
        ]
    )
    blocks: list[Block] = [Table("runs", "Runs", frame)]
    for run in dataset.runs:
        if run.incomplete:
            blocks.append(
                f'**INCOMPLETE run** `{run.path.name}`: status "{run.status}" — analysed '
                "with the records it has; its last level may be short."
            )
        blocks += [f"`{run.path.name}`: {note}" for note in run.notes]
    blocks += [f"Skipped: {text}" for text in dataset.skipped_runs]
    scales = sorted({r.time_scale for r in dataset.runs if r.time_scale != 1})
    if scales:
        blocks.append(
            "**Figures are in simulated time (time scale "
            + ", ".join(f"{s:g}" for s in scales)
            + ")**: the target ran faster than real time; durations were multiplied and rates "
            "divided by it."
        )
    if any(r.source == SOURCE_LOCUST for r in dataset.runs):
        blocks.append(
            "**Locust CSV input**: no raw records; its percentiles are Locust's bucketed "
            "approximations (nearest rank of times rounded to 1/10/100/1000 ms buckets). "
            "Means and counts are exact; TPS is not available from Locust's CSV."
        )
    warmup, failures = int(summary["warmup_excluded"].sum()), int(summary["failures"].sum())
    blocks.append(
        f"Percentiles: **{METHOD_TEXT[settings.percentile_method]}** (column `percentile_method`). "
        f"Every number comes from measured requests: {warmup} warm-up request(s) excluded; "
        f"{failures} failed request(s) counted per level and not used for metrics."
    )
    if settings.itl_null_as_zero:
        blocks.append(
            "`--itl-null-as-zero`: single-token responses enter ITL as 0 (as the reference tool "
            "does), which lowers ITL means."
        )
    return Section("Runs and method", blocks)
