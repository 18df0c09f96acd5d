"""The throughput knee per label: where throughput stops growing in proportion to the load, the
fit that says so, and the operating points on either side (``analysis.figures.knee``)."""

from __future__ import annotations

import pandas as pd

from analysis.document import Section
from analysis.figures.knee import KneeFinding, KneePoint
from analysis.sections import Context
from analysis.views.tables import Table

METHOD = (
    "**The knee** is found by a two-segment least-squares fit of log throughput on log load "
    "(concurrency, or the offered rate open loop), the two lines meeting at a measured level; "
    "a fitted slope is the throughput's elasticity (1: twice the load gives twice the tokens, "
    "0: flat). The knee is the best-fitting breakpoint past which throughput grows less than "
    "1.5x a doubling of the load (slope below 0.585) after growing faster (the slope falls by "
    "0.25 at least); a sweep of fewer than 4 levels, or without such a bend, has none. "
    "Throughput: total tok/s = mean TPS x C closed loop, the achieved output tok/s open loop. "
    "Past the knee more streams buy little throughput and cost every stream its speed."
)


def build(context: Context) -> Section | None:
    found = context.knees
    if not found:
        return None
    lines = [_describe(finding) for finding in found]
    rows = [
        _row(finding, role, point)
        for finding in found
        for role, point in (
            ("below", finding.below),
            ("knee", finding.at),
            ("above", finding.above),
        )
        if point is not None
    ]
    blocks: list = [METHOD, "\n".join(f"- {line}" for line in lines)]
    if rows:
        frame = pd.DataFrame(rows)
        formats = {
            "Throughput (tok/s)": "{:.1f}",
            "Per-stream tok/s": "{:.2f}",
            "TTFT p90 (ms)": "{:.0f}",
            "ITL p50 (ms)": "{:.1f}",
        }
        blocks.append(Table("knee", "The operating points around each knee", frame, formats))
    return Section("Throughput knee", blocks)


def _describe(finding: KneeFinding) -> str:
    where = f"**{finding.label}**" + (" (open loop)" if finding.loop != "closed" else "")
    if finding.knee is None:
        text = f"{where}: no knee ({finding.reason})"
    else:
        assert finding.slope_before is not None and finding.slope_after is not None
        text = (
            f"{where}: knee at **{finding.unit}{finding.knee:g}** (fitted slope "
            f"{finding.slope_before:.2f} up to it, {finding.slope_after:.2f} past it: "
            f"{2**finding.slope_before:.2f}x and {2**finding.slope_after:.2f}x a doubling)"
        )
    if finding.refined:
        added = ", ".join(f"C={key:g}" for key in finding.refined)
        text += f"; refined by --refine-knee, which added {added} around the live knee"
    return text


def _row(finding: KneeFinding, role: str, point: KneePoint) -> dict:
    return {
        "Label": finding.label,
        "Level": point.level,
        "Side": role,
        "Throughput (tok/s)": point.throughput_tps,
        "Per-stream tok/s": point.tps_mean,
        "TTFT p90 (ms)": point.ttft_ms_p90,
        "ITL p50 (ms)": point.itl_ms_p50,
    }
