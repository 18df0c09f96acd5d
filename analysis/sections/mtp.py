"""MTP effect: each variant against its "-MTP" twin, and the speed-up ratio per concurrency."""

from __future__ import annotations

from analysis import tables
from analysis.charts import COMPARISON_FOLDER
from analysis.document import Section
from analysis.sections import Context, image
from analysis.tables import slug


def build(context: Context) -> Section:
    summary = context.summary
    twins = tables.mtp_twins(summary)
    section = Section("MTP effect", [image(COMPARISON_FOLDER, "tps_all", "TPS, all variants")])
    if not twins:
        section.blocks.append(
            'No variant ran together with its "-MTP" twin (e.g. FP8 and FP8-MTP): no MTP tables.'
        )
        return section
    for base, mtp in twins:
        levels = sorted(
            set(summary.loc[summary["label"] == base, "concurrency"])
            & set(summary.loc[summary["label"] == mtp, "concurrency"])
        )
        if not levels:
            continue
        section.subsections.append(
            Section(
                f"{base} → {mtp}",
                [
                    tables.side_by_side(
                        summary,
                        [base, mtp],
                        levels[0],
                        f"{slug(base)}_mtp_c{levels[0]}",
                        f"{base} vs {mtp} at C={levels[0]}",
                    ),
                    tables.differences(
                        summary,
                        base,
                        mtp,
                        [
                            ("tps_mean", "TPS change"),
                            ("itl_ms_mean", "ITL change"),
                            ("latency_s_mean", "Latency change"),
                        ],
                        f"{slug(base)}_mtp_by_level",
                        f"{base} → {mtp}: change per concurrency",
                        show_values=False,
                    ),
                ],
            )
        )
    section.subsections.append(
        Section("MTP speed-up ratio vs concurrency", [tables.mtp_ratio(summary, twins)])
    )
    return section
