"""Sustained capacity (``--sustain``): whether the load a capacity search found held when held
for a while, the drift of TTFT, ITL and TPS over it, its first window's throughput against its
last's and against the burst's (the probe), and the clocks where node telemetry was read
(``analysis/figures/sustain.py`` defines every figure)."""

from __future__ import annotations

import math

import pandas as pd

from analysis.document import Section
from analysis.figures import sustain
from analysis.sections import Context
from analysis.views.tables import Table
from sparkload.records import INTERVAL_CONFIDENCE

TITLE = "Sustained capacity"


def _method() -> str:
    confidence = f"{100 * INTERVAL_CONFIDENCE:.0f} %"
    edge, shorter = sustain.EDGE_S, sustain.EDGE_S / sustain.EDGE_SHARE
    return (
        "After the capacity search, `--sustain` held the load it found (its concurrency, users "
        "back to back; open loop its rate) for the time asked, one more level, set apart from "
        "the probes' figures. **Held**: that level judged under the search's bounds by "
        "`--check`'s judge over its own requests. **Drift**: the least-squares slope of each "
        "request's TTFT, ITL and TPS against its send time, per minute, with its "
        f"{confidence} interval (Student's t), from the first answer's end on (the users' "
        "first round starts together: its queueing is the start's): an interval that holds 0 "
        "shows no drift the sample can tell. **First / last**: output tokens per second in the "
        f"level's first and last windows ({edge:.0f} s each, or a quarter of a level shorter "
        f"than {shorter:.0f} s), each request's tokens spread over its own span; **burst**: "
        "the probe at the same load, over its span. **Clocks** where node telemetry was read: "
        "the lowest SM clock while busy, the maximum, the hottest temperature; throttled: an "
        "SM clock below 90 % of its maximum. Times are the target's (simulated on the "
        "simulator)."
    )


def _verdict_text(found: sustain.SustainFinding) -> str:
    verdict = found.verdict
    head = f"**{found.label}**: {found.level} held for {found.duration_s:g} s at `{found.bounds}`"
    if verdict is None:
        return f"{head}: **not held** (no answered request)"
    figures = ", ".join(
        f"{bound} = {value:.4g}" for bound, value in verdict.figures.items() if value is not None
    )
    said = f"{verdict.requests} requests" + (f"; {figures}" if figures else "")
    if verdict.meets:
        return f"{head}: **held** ({said})."
    if verdict.holds_within_sample:
        missed = "; ".join(verdict.breaches)
        return (
            f"{head}: **held**, missed only within its sample's 90 % interval: {missed} ({said})."
        )
    return f"{head}: **not held**: {'; '.join(verdict.breaches)} ({said})."


def _drift_table(found: list[sustain.SustainFinding]) -> Table:
    rows = [
        {
            "Label": f.label,
            "Level": f.level,
            "Metric": d.metric,
            "Slope per minute": d.slope_per_min,
            f"{100 * INTERVAL_CONFIDENCE:.0f} % interval": _interval(d.low, d.high),
            "Drift shown": "yes" if d.tells else "no",
            "Fitted start": d.start,
            "Fitted end": d.end,
            "Requests": d.requests,
        }
        for f in found
        for d in f.drifts
    ]
    formats = {"Slope per minute": "{:+.3g}", "Fitted start": "{:.4g}", "Fitted end": "{:.4g}"}
    return Table("sustain_drift", "Drift over the sustain level", pd.DataFrame(rows), formats)


def _throughput_table(found: list[sustain.SustainFinding]) -> Table:
    rows = []
    for f in found:
        clocks, burst = f.clocks, f.burst_clocks
        rows.append(
            {
                "Label": f.label,
                "Level": f.level,
                "Held": "yes" if f.held else "no",
                "Window (s)": f.window_s,
                "First tok/s": f.first_tok_s,
                "Last tok/s": f.last_tok_s,
                "Last vs first": f.last_vs_first_pct,
                "Sustained tok/s": f.sustained_tok_s,
                "Burst tok/s": f.burst_tok_s,
                "Sustained vs burst": f.sustained_vs_burst_pct,
                "SM clock min, burst (MHz)": burst.get("sm_clock_min_mhz", math.nan),
                "SM clock min, sustained (MHz)": clocks.get("sm_clock_min_mhz", math.nan),
                "SM clock max (MHz)": clocks.get("sm_clock_max_mhz", math.nan),
                "Hottest, sustained (°C)": clocks.get("temperature_max_c", math.nan),
                "Throttling": clocks.get("throttle", "") or "",
            }
        )
    frame = pd.DataFrame(rows)
    shown = [c for c in frame.columns if frame[c].replace("", pd.NA).notna().any()]
    formats = {
        "Window (s)": "{:.0f}",
        "First tok/s": "{:.1f}",
        "Last tok/s": "{:.1f}",
        "Last vs first": "{:+.1f}%",
        "Sustained tok/s": "{:.1f}",
        "Burst tok/s": "{:.1f}",
        "Sustained vs burst": "{:+.1f}%",
        "SM clock min, burst (MHz)": "{:.0f}",
        "SM clock min, sustained (MHz)": "{:.0f}",
        "SM clock max (MHz)": "{:.0f}",
        "Hottest, sustained (°C)": "{:.0f}",
    }
    return Table(
        "sustain_throughput",
        "Sustained against burst",
        frame[shown],
        {k: v for k, v in formats.items() if k in shown},
    )


def _interval(low: float, high: float) -> str:
    if not (math.isfinite(low) and math.isfinite(high)):
        return "—"
    return f"{low:+.3g} to {high:+.3g}"


def build(context: Context) -> Section | None:
    found = sustain.findings(context.dataset, context.settings)
    if not found:
        return None
    return Section(
        TITLE,
        [
            _method(),
            *(_verdict_text(f) for f in found),
            _drift_table(found),
            _throughput_table(found),
        ],
    )
