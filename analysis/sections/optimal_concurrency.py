"""Optimal concurrency per label, for latency and for throughput, with the scaling efficiency
there (the quantization report's 8.2), by ``analysis.views.verdicts.optima``."""

from __future__ import annotations

import pandas as pd

from analysis.document import Section
from analysis.sections import Context
from analysis.views import verdicts
from analysis.views.tables import Table


def build(context: Context) -> Section:
    found = verdicts.optima(context.summary)
    frame = pd.DataFrame(
        {
            "Label": [o.label for o in found],
            "Optimal C for latency": [o.latency_range for o in found],
            "Latency there (s)": [o.latency_s for o in found],
            "Best latency (s)": [o.best_latency_s for o in found],
            "Optimal C for throughput": [o.throughput_c for o in found],
            "Total tok/s there": [o.total_tps for o in found],
            "Scaling efficiency there": [o.efficiency_pct for o in found],
            "Gain per added stream": [o.marginal for o in found],
            "System RPS there": [o.system_rps for o in found],
        }
    )
    rule = (
        "**Optimal for latency**: from the label's lowest concurrency up to the highest whose "
        f"mean latency stays within {verdicts.LATENCY_SLACK:.0%} of the label's lowest mean "
        "latency: more streams there cost each request little. **Optimal for throughput**: "
        "walking up the levels, the last one reached while every step up still added at "
        f"least {verdicts.MARGINAL_FLOOR:.0%} of a lone stream's tok/s per added stream "
        "(gain per added stream = Δ total tok/s / ΔC / mean TPS at the lowest C; total tok/s "
        "= mean TPS × C). Scaling efficiency there = total tok/s / (lowest-C total × C / "
        f"lowest C), the saturation index of {context.ref('scaling')}; the lowest level has "
        "no gain (—)."
    )
    formats = {
        "Latency there (s)": "{:.2f}",
        "Best latency (s)": "{:.2f}",
        "Total tok/s there": "{:.1f}",
        "Scaling efficiency there": "{:.0f}%",
        "Gain per added stream": "{:.2f}",
        "System RPS there": "{:.2f}",
    }
    return Section(
        "Optimal concurrency",
        [rule, Table("optimal_concurrency", "Optimal concurrency per label", frame, formats)],
    )
