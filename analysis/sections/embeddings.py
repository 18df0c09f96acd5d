"""Embeddings throughput per level (``--api embeddings``): inputs and input tokens per second."""

from __future__ import annotations

import pandas as pd

from analysis.document import Section
from analysis.figures.metrics import level_name
from analysis.sections import Context
from analysis.views.tables import Table

COLUMNS = {
    "label": "Label",
    "level": "Level",
    "n": "n",
    "failures": "Failures",
    "inputs_sum": "Inputs",
    "inputs_per_s": "Inputs/s",
    "input_tokens_per_s": "Input tok/s",
    "latency_s_mean": "Latency mean (s)",
    "latency_s_p50": "Latency p50 (s)",
    "latency_s_p90": "Latency p90 (s)",
}


def build(context: Context) -> Section | None:
    found = [f for f in (context.summary, context.open_loop) if "inputs_per_s" in f and len(f)]
    if not found:
        return None
    levels = pd.concat(found, ignore_index=True)
    frame = levels.assign(level=[level_name(row) for _, row in levels.iterrows()])
    table = Table(
        "embeddings",
        "Embeddings per level",
        frame[list(COLUMNS)].rename(columns=COLUMNS),
        {
            "Inputs": "{:,.0f}",
            "Inputs/s": "{:,.1f}",
            "Input tok/s": "{:,.0f}",
            **{name: "{:.3f}" for name in list(COLUMNS.values())[-3:]},
        },
    )
    return Section(
        "Embeddings",
        [
            "An embeddings request (`--api embeddings`) is answered by one JSON body, all its "
            "vectors at once: there is no first token to time, so no TTFT, ITL or output "
            "tokens, and its latency (send to the body's last byte) is its one time. Inputs/s "
            "= inputs (`--batch-size` a request) / level wall time; input tok/s = the server's "
            "usage prompt tokens / level wall time.",
            table,
        ],
    )
