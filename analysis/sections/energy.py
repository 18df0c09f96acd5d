"""Energy and node telemetry: a subsection of the server-side metrics (``server.py``).

Per level the cluster's joules, mean watts, joules per output token and output tokens per
joule; per level and node the same and the node's power peak, temperature, SM clocks, GPU and
CPU use, memory and throttling flags (``analysis/reading/telemetry.py`` defines every figure).
"""

from __future__ import annotations

import pandas as pd

from analysis.document import Block, Section
from analysis.reading import telemetry
from analysis.reading.server_metrics import MIN_GAUGE_SAMPLES, TOO_FEW_SAMPLES
from analysis.sections import Context
from analysis.views.tables import Table

TITLE = "Energy and node telemetry"
METHOD = (
    "Per level and node, over the measured requests' window, first send to last end (in the "
    "target's time: simulated on the simulator). Its bounds come from the snapshots taken when "
    "the level's warm-up came back and at its end, with nothing in flight; of the mid-level "
    "samples (every `--metrics-interval` of the target's time) only those inside the window "
    f"count (`samples`), and a figure read from them needs {MIN_GAUGE_SAMPLES} at least, else "
    f"the table says {TOO_FEW_SAMPLES}. Joules from an energy counter where the node has one "
    "(DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION, sparkload node-exporter, node_exporter's hwmon "
    "energy): its Δ over the window, the idle edges between a bound and the requests taken "
    "off at the node's draw at the bounds (`energy_method` says how much); else the trapezoid "
    "mean of its power gauge's samples inside the window times the window's seconds. Mean W = "
    "joules / seconds; peak W (`power_max_w`) from the same source over the same window: the "
    "highest mean power between two readings of the counter (at the sampling's resolution), "
    "or the highest power sample, so never below the mean. J per output token = joules / "
    "output tokens of the level's measured ok requests; output tokens per J = the inverse. A "
    "node is one scraped endpoint (`api`: the target's own /metrics; else its `--scrape` "
    "name); its GPUs add up, and one GPU read through two nodes (same UUID) counts once. The "
    "cluster adds its nodes: joules, watts and J per token add up."
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
    "samples": "{:.0f}",
}
# Figures read from the mid-level samples: "too few samples" where a level had too few
SAMPLED = ("power_max_w", "sm_clock_min_mhz", "gpu_util_mean_pct", "cpu_busy_pct")


def _shown(frame: pd.DataFrame) -> pd.DataFrame:
    """The columns that hold something (a node_exporter has no SM clock, the simulator no
    temperature; peak power wherever there is energy), a level's sampled figures saying "too
    few samples" where it had fewer than the minimum."""
    has_energy = frame["joules"].astype(float).notna()
    held = [
        c
        for c in frame.columns
        if frame[c].replace("", pd.NA).notna().any() or (c == "power_max_w" and has_energy.any())
    ]
    out = frame[held].copy()
    short = frame["samples"] < MIN_GAUGE_SAMPLES
    for column in (c for c in SAMPLED if c in held):
        missing = short & frame[column].isna()
        if column == "power_max_w":
            missing &= has_energy
        out[column] = out[column].astype(object).where(~missing, TOO_FEW_SAMPLES)
    return out


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
