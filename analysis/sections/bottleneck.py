"""Prefill against decode: which phase limits each label as load grows (the quantization
report's 6.3), by ``analysis.views.verdicts.bottlenecks``."""

from __future__ import annotations

from analysis.document import Section
from analysis.sections import Context
from analysis.views import verdicts
from analysis.views.tables import Table


def build(context: Context) -> Section:
    frame = verdicts.bottlenecks(context.summary)
    rule = (
        "Growth = mean at the label's highest concurrency / mean at its lowest, of TTFT "
        "(prefill, with any queueing before it) and of ITL (decode). A label is "
        f"**{verdicts.PREFILL}** when its TTFT grew at least {verdicts.DOMINANCE:g} times as "
        f"much as its ITL, **{verdicts.DECODE}** when its ITL grew at least "
        f"{verdicts.DOMINANCE:g} times as much as its TTFT, **{verdicts.BOTH}** between, and "
        f"**{verdicts.FLAT}** when neither grew by {verdicts.FLAT_GROWTH - 1:.0%}. Prefill is "
        "compute-bound (all prompt tokens at once), decode memory-bandwidth-bound (the weights "
        "stream once per step): long prompts meet the first, long answers the second."
    )
    verdict = "; ".join(f"{row['Label']}: {row['Bottleneck']}" for _, row in frame.iterrows())
    formats = {c: "{:.1f}" for c in frame.columns if c.endswith("(ms)")}
    formats.update({"TTFT growth": "{:.2f}x", "ITL growth": "{:.2f}x"})
    return Section(
        "Bottleneck: prefill against decode",
        [
            rule,
            Table(
                "bottleneck", "TTFT and ITL from the lowest to the highest level", frame, formats
            ),
            verdict + ".",
        ],
    )
