"""Scalability: total tokens/s against the ideal, and the saturation index."""

from __future__ import annotations

from analysis.document import Section
from analysis.sections import Context, image
from analysis.views import tables
from analysis.views.charts import COMPARISON_FOLDER


def build(context: Context) -> Section:
    summary = context.summary
    ideal = [
        tables.ideal_vs_actual(summary, label)
        for label in tables.labels_of(summary)
        if summary.loc[summary["label"] == label, "total_tps"].notna().any()
    ]
    totals = Section(
        "Total tokens/s: TPS × concurrency, ideal vs actual",
        [
            "Total tok/s = mean TPS × C (the report's definition); measured total tok/s = "
            "Σ output tokens / level wall time. Ideal = lowest-C total × C / lowest C; "
            "efficiency = actual / ideal.",
            tables.across_levels(
                summary,
                "total_tps",
                "total_tps",
                "TPS × concurrency (tok/s)",
                "{:.1f}",
                rows="concurrency",
            ),
            tables.across_levels(
                summary,
                "measured_total_tps",
                "measured_total_tps",
                "Measured total tok/s",
                "{:.1f}",
                rows="concurrency",
            ),
            *ideal,
            image(COMPARISON_FOLDER, "total_tps", "Total tokens/s"),
        ],
    )
    saturation = Section(
        "Saturation index",
        [
            "Saturation index = mean TPS at C / mean TPS at the label's lowest C × 100 "
            "(identical to the efficiency above).",
            tables.across_levels(
                summary,
                "saturation_pct",
                "saturation",
                "Saturation index",
                "{:.0f}%",
                rows="concurrency",
            ),
            image(COMPARISON_FOLDER, "saturation", "Saturation index"),
        ],
    )
    return Section("Scalability", subsections=[totals, saturation])
