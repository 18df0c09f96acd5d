"""Which label is most predictable (the quantization report's 7.2): a ranking by p90/p50, by
``analysis.views.verdicts.predictability``."""

from __future__ import annotations

from analysis.document import Section
from analysis.figures import percentiles
from analysis.sections import Context
from analysis.views import verdicts
from analysis.views.tables import Table


def build(context: Context) -> Section:
    frame = verdicts.predictability(context.summary)
    rule = (
        "Per label, the mean over its levels of the p90/p50 ratio of TTFT, of ITL and of TPS "
        f"(the tables of {context.ref('tail')}); score = the mean of the three, 1.00 = no tail. "
        "Rank 1 has the lowest score, the most predictable; ties keep input order. Widest "
        "tail names the metric with the highest ratio. A level with n < "
        f"{percentiles.FEW_SAMPLES_FOR_P90} has a p90 resting on one or two values."
    )
    order = " < ".join(f"{row['Label']} ({row['Score']:.3f})" for _, row in frame.iterrows())
    formats = {c: "{:.3f}" for c in frame.columns if c.endswith("p90/p50") or c == "Score"}
    return Section(
        "Predictability: ranking by p90/p50",
        [
            rule,
            Table("predictability", "Ranking, most predictable first", frame, formats),
            f"Most to least predictable: {order}.",
        ],
    )
