"""Throughput against latency across levels and labels: where more streams stop paying."""

from __future__ import annotations

import pandas as pd

from analysis.document import Block, Section
from analysis.figures.operating_points import CAPACITY, MEETS_SLO, POINT_LEVEL, CapacityFinding
from analysis.sections import Context, image
from analysis.views.charts import COMPARISON_FOLDER, THROUGHPUT_LATENCY_CHARTS
from analysis.views.tables import Table

TITLE = "Throughput against latency: operating points"
INTRO = (
    "Every level as a point: aggregate tokens/s (Σ output tokens / level wall time, what the "
    "server delivers to all streams together) against per-stream tokens/s (mean TPS, what one "
    "user sees) and against TTFT p90, one line per label through its levels. Up the levels the "
    "aggregate climbs while every stream slows; where the climb flattens, more streams buy "
    "little and cost every user (the single-Spark notes' C=8 over C=16). The change columns "
    "compare each level with the one below it."
)


def points_table(points: pd.DataFrame, with_slo: bool, with_capacity: bool) -> Table:
    previous = points.groupby("label", sort=False)
    frame = pd.DataFrame(
        {
            "Label": points["label"],
            "Level": points[POINT_LEVEL],
            "Per-stream tok/s": points["per_stream_tps"],
            "Aggregate tok/s": points["aggregate_tps"],
            "TTFT p90 (ms)": points["ttft_ms_p90"],
            "Aggregate vs level below": previous["aggregate_tps"].pct_change() * 100,
            "Per-stream vs level below": previous["per_stream_tps"].pct_change() * 100,
        }
    )
    if "ttfo_ms_p90" in points:  # a thinking model's time to answer, beside TTFT
        frame.insert(
            frame.columns.get_loc("TTFT p90 (ms)") + 1, "TTFO p90 (ms)", points["ttfo_ms_p90"]
        )
    if with_slo:
        frame["Meets SLO"] = points[MEETS_SLO].map({True: "yes", False: "no"})
    if with_capacity:
        frame["Capacity"] = points[CAPACITY].map({True: "capacity", False: ""})
    return Table(
        "operating_points",
        "Operating points per level",
        frame,
        {
            "Per-stream tok/s": "{:.2f}",
            "Aggregate tok/s": "{:.1f}",
            "TTFT p90 (ms)": "{:.1f}",
            "TTFO p90 (ms)": "{:.1f}",
            "Aggregate vs level below": "{:+.1f}%",
            "Per-stream vs level below": "{:+.1f}%",
        },
    )


def _figures(figures: dict[str, float | None]) -> str:
    return "; ".join(
        f"{bound}: {'n/a' if value is None else f'{value:.4g}'}" for bound, value in figures.items()
    )


def tiers_table(findings: list[CapacityFinding]) -> Table:
    """--tier's answers, one row per tier in the order given: its capacity in concurrent agent
    sessions (0 when even the first probe broke its bounds) with each bound's figure there, and
    the first failing probe above it with its figures (one session more, once bisected)."""
    rows = [
        {
            "Label": f.label,
            "Tier": f.tier,
            "Bounds": f.bounds,
            "Capacity (sessions)": "0 (not met)" if f.value is None else f"{f.value:g}",
            "Figures at capacity": _figures(f.figures),
            "First failing": f.limit or "none up to the cap",
            "Figures there": _figures(f.limit_figures),
        }
        for f in findings
    ]
    return Table("capacity_tiers", "Capacity by tier", pd.DataFrame(rows), {})


def build(context: Context) -> Section | None:
    points = context.points
    if points.empty:
        return None
    with_slo = points[MEETS_SLO].notna().any()
    with_capacity = bool(context.capacities)
    blocks: list[Block] = [INTRO]
    if with_slo:
        blocks.append(
            "Ringed points meet the SLO ("
            + ", ".join(f"`{b.text}`" for b in context.bounds or [])
            + (f", {context.ref('service_levels')}" if context.holds("service_levels") else "")
            + "), crossed ones miss it."
        )
    blocks.append(points_table(points, with_slo, with_capacity))
    blocks += [finding.describe() for finding in context.capacities]
    tiers = [finding for finding in context.capacities if finding.tier]
    if tiers:
        blocks.append(tiers_table(tiers))
    if points[CAPACITY].any():
        blocks.append("The star marks the capacity search's level.")
    blocks += [
        image(COMPARISON_FOLDER, key, f"Aggregate tokens/s vs {x_label}")
        for key, _, x_label in THROUGHPUT_LATENCY_CHARTS
    ]
    return Section(TITLE, blocks)
