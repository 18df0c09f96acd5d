"""Energy and node telemetry: a subsection of the server-side metrics (``server.py``).

Per level the cluster's joules, mean watts, joules per output token and output tokens per
joule; per level and node the same and the node's power peak, temperature, SM clocks, GPU and
CPU use, memory and throttling flags (``analysis/telemetry.py`` defines every figure).
"""

from __future__ import annotations

import pandas as pd

from analysis import telemetry
from analysis.document import Block, Section
from analysis.sections import Context
from analysis.tables import Table

TITLE = "Energy and node telemetry"
METHOD = (
    "Per level and node, over the measured requests' window (from the snapshot taken when the "
    "level's warm-up came back to the level's end; simulated time on the simulator): joules "
    "from an energy counter's Δ where the node has one (DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION, "
    "sparkload node-exporter, node_exporter's hwmon energy), else the trapezoid integral of its "
    "power gauge over the samples in the window (`energy_method` says which, and how many "
    "samples: lower `--metrics-interval` for more). Nothing is in flight at the window's "
    "bounds, so its time outside the requests' wall time (first send to last end) is idle: "
    "where the node has a power gauge, those idle edges at its draw at the bounds come off and "
    "joules and seconds are the requests' (`energy_method` says how much). Mean W = joules / "
    "seconds; J per output token = joules / output tokens of the level's measured ok requests; "
    "output tokens per J = the inverse. A node is one scraped endpoint (`api`: the target's own "
    "/metrics; else its `--scrape` name); its GPUs add up, and one GPU read through two nodes "
    "(same UUID) counts once. The cluster adds its nodes: joules, watts and J per token add up."
)
THROTTLE_NOTE = (
    "Throttling: an SM clock below 90 % of the node's maximum in a mid-level sample taken while "
    "the GPU was busy (utilization of 50 % or more, when reported)."
)
FORMATS = {
    "joules": "{:.1f}",
    "mean_w": "{:.1f}",
    "j_per_output_token": "{:.3f}",
    "output_tokens_per_j": "{:.3f}",
    "power_max_w": "{:.1f}",
    "temperature_max_c": "{:.0f}",
    "sm_clock_min_mhz": "{:.0f}",
    "sm_clock_max_mhz": "{:.0f}",
    "gpu_util_mean_pct": "{:.0f}",
    "cpu_busy_pct": "{:.0f}",
    "memory_used_max_gb": "{:.1f}",
    "seconds": "{:.2f}",
    "output_tokens": "{:.0f}",
}


def _shown(frame: pd.DataFrame) -> pd.DataFrame:
    """The columns that hold something: a node_exporter has no SM clock, the simulator no
    temperature."""
    return frame[[c for c in frame.columns if frame[c].replace("", pd.NA).notna().any()]]


def build(context: Context) -> Section | None:
    nodes = context.telemetry
    if nodes.empty:
        return None
    blocks: list[Block] = [METHOD]
    levels = telemetry.per_level(nodes)
    if not levels.empty:
        blocks.append(Table("energy_per_level", "Energy per level", levels, FORMATS))
    blocks.append(Table("node_telemetry", "Per level and node", _shown(nodes), FORMATS))
    flagged = nodes[nodes["throttle"].astype(bool)]
    if not flagged.empty:
        blocks.append(THROTTLE_NOTE)
        blocks += [
            f"THROTTLED: {row.label} C={row.concurrency}, node {row.node}: {row.throttle}"
            for row in flagged.itertuples()
        ]
    return Section(TITLE, blocks)
