"""Tail behaviour: p90 / p50 per level."""

from __future__ import annotations

from analysis.document import Section
from analysis.figures import percentiles
from analysis.sections import Context
from analysis.views import tables

RATIOS = (("itl_ms", "ITL"), ("ttft_ms", "TTFT"), ("tps", "TPS"))


def build(context: Context) -> Section:
    ratios = tables.with_tail_ratios(context.summary)
    return Section(
        "Tail behaviour: p90 / p50",
        [
            "Ratio of p90 to p50 per level (1.00 = no tail). Levels with n < "
            f"{percentiles.FEW_SAMPLES_FOR_P90} have a p90 that rests on one or two values; see "
            f"the confidence intervals in {context.ref('per_label')}.",
            *(
                tables.across_levels(
                    ratios,
                    f"{stem}_p90_over_p50",
                    f"{stem.split('_')[0]}_p90_p50",
                    f"{title} p90/p50",
                    "{:.2f}",
                )
                for stem, title in RATIOS
            ),
        ],
    )
