"""Per-endpoint breakdown: is one replica (one Spark) slower than the others?

A target may be served by several endpoints (e.g. one vLLM replica per Spark); every record
names the endpoint that served it. Users are dealt to endpoints in turn, so at C=1 only the first
endpoint serves and at C=2 each gets one user: pooled over levels the first endpoint would carry
more low-concurrency requests and look faster. The breakdown is therefore per concurrency level.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from analysis.figures import percentiles
from analysis.figures.measured import measured_ok
from analysis.figures.metrics import Settings
from analysis.reading import text_columns
from analysis.views.tables import Table

KEY = "endpoints"


def breakdown(records: pd.DataFrame, settings: Settings) -> Table | None:
    """One row per (label, concurrency, endpoint) for labels served by two or more endpoints;
    None when there is no such label (or no raw records, e.g. Locust CSV input)."""
    if "endpoint" not in records or records.empty:
        return None
    measure = records["measure"].to_numpy()
    counts = text_columns.distinct_by_label(records, "endpoint", measure)
    labels = {label for label, endpoints in counts.items() if endpoints >= 2}
    if not labels:
        return None
    measured = records[measure & records["label"].isin(labels).to_numpy()]
    rows = []
    for (label, level, endpoint), group in measured.groupby(
        ["label", "level", "endpoint"], observed=True, sort=False
    ):
        ok = measured_ok(group, settings)
        ttft_ms = np.sort(ok["ttft"].dropna().to_numpy()) * 1000.0
        rows.append(
            {
                "Label": str(label),
                "Concurrency": int(level),
                "Endpoint": str(endpoint) or "—",
                "n": len(ok),
                "Failures": len(group) - len(ok),
                "TTFT ms mean": ttft_ms.mean() if len(ttft_ms) else np.nan,
                "TTFT ms p90": percentiles.quantile(ttft_ms, 0.9, settings.percentile_method),
                "ITL ms mean": ok["itl"].mean() * 1000.0,
                "TPS mean": ok["tps"].mean(),
                "Latency s mean": ok["latency"].mean(),
            }
        )
    order = {label: i for i, label in enumerate(dict.fromkeys(records["label"]))}
    frame = pd.DataFrame(rows)
    frame = frame.sort_values(
        ["Label", "Concurrency", "Endpoint"], key=lambda s: s.map(order) if s.name == "Label" else s
    ).reset_index(drop=True)
    return Table(
        KEY,
        "Per endpoint and concurrency (measured requests)",
        frame,
        {
            c: "{:.2f}"
            for c in ("TTFT ms mean", "TTFT ms p90", "ITL ms mean", "TPS mean", "Latency s mean")
        },
    )
