"""MTP effect: each label against its twin that differs in drafting only
(``analysis.figures.drafting``: by what the manifests and /metrics say, not by name), and the
speed-up per concurrency with the twin's acceptance and tokens per verify step beside it."""

from __future__ import annotations

import pandas as pd

from analysis.document import Section
from analysis.figures import drafting
from analysis.sections import Context, image
from analysis.views import tables
from analysis.views.charts import COMPARISON_FOLDER
from analysis.views.tables import Table, slug

RULE = (
    "Two labels pair when one drafts (speculative decoding: MTP, DSpark, n-gram, ...) and the "
    "other does not, and everything else agrees: quantization, TP size, nodes, workload and "
    "output length. The table below says what each label ran and where that was read: the "
    "user's own words for the run, the simulator's setting, the target's /metrics "
    "(spec-decode counters exist only while drafting; k = draft tokens / drafts), the served "
    "model, or, for runs that record none of these, the variant name (X-MTP)."
)


def deployments_table(found: dict[str, drafting.Deployment]) -> Table:
    """Every label's quantization and drafting, with where each was read."""
    frame = pd.DataFrame(
        {
            "Label": list(found),
            "Quantization": [d.quantization for d in found.values()],
            "Quantization from": [d.quantization_source for d in found.values()],
            "Drafting": [d.drafting.describe() for d in found.values()],
            "Drafting from": [d.drafting.source for d in found.values()],
        }
    )
    return Table("deployments", "What each label ran: quantization and drafting", frame)


def _pair_section(summary: pd.DataFrame, base: str, drafted: str) -> Section | None:
    levels = sorted(
        set(summary.loc[summary["label"] == base, "concurrency"])
        & set(summary.loc[summary["label"] == drafted, "concurrency"])
    )
    if not levels:
        return None
    return Section(
        f"{base} → {drafted}",
        [
            tables.side_by_side(
                summary,
                [base, drafted],
                levels[0],
                f"{slug(base)}_{slug(drafted)}_c{levels[0]}",
                f"{base} vs {drafted} at C={levels[0]}",
            ),
            tables.differences(
                summary,
                base,
                drafted,
                [
                    ("tps_mean", "TPS change"),
                    ("itl_ms_mean", "ITL change"),
                    ("latency_s_mean", "Latency change"),
                ],
                f"{slug(base)}_{slug(drafted)}_by_level",
                f"{base} → {drafted}: change per concurrency",
                show_values=False,
            ),
        ],
    )


def build(context: Context) -> Section:
    summary = context.summary
    labels = set(summary["label"])
    found = {
        label: d
        for label, d in drafting.deployments(context.dataset, context.server).items()
        if label in labels
    }
    twins = drafting.pairs(found)
    section = Section(
        "MTP effect",
        [
            image(COMPARISON_FOLDER, "tps_all", "TPS, all variants"),
            RULE,
            deployments_table(found),
        ],
    )
    if not twins:
        section.blocks.append(
            "No two labels differ in drafting only (e.g. FP8 without and with MTP at one TP "
            "size): no MTP tables."
        )
        return section
    section.subsections += [
        sub for base, drafted in twins if (sub := _pair_section(summary, base, drafted))
    ]
    section.subsections.append(
        Section(
            "MTP speed-up ratio vs concurrency",
            [tables.mtp_ratio(summary, twins, context.server)],
        )
    )
    return section
