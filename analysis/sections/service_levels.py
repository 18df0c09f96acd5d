"""Service levels and capacity: per-level SLO verdicts, goodput and users by Little's law."""

from __future__ import annotations

import pandas as pd

from analysis.document import Section
from analysis.figures import slo
from analysis.sections import Context
from analysis.views import tables
from analysis.views.tables import Table, slug


def _capacity_text(label: str, cap: slo.Capacity) -> str:
    if cap.concurrency is None or cap.latency_s is None or cap.users is None:
        return f"**{label}**: {cap.how}; no capacity figure."
    c, r, z = cap.concurrency, cap.latency_s, cap.think_time_s
    interpolated = " (interpolated)" if "interpolated" in cap.how else ""
    return (
        f"**{label}**: highest concurrency meeting the SLO **C = {c:.1f}** "
        f"({cap.how}{cap.note}). Interactive users by Little's law, N = X · (R + Z) with "
        f"X = C / R: R = {r:.2f} s mean latency{interpolated}, Z = {z:g} s think time → "
        f"N = {c:.1f} / {r:.2f} × ({r:.2f} + {z:g}) = **{cap.users:.0f} users**."
    )


def build(context: Context) -> Section:
    bounds, settings, summary = context.bounds, context.settings, context.summary
    if not bounds:
        return Section("Service levels", ["No --slo given."])
    section = Section(
        "Service levels and capacity",
        [
            "SLO: "
            + ", ".join(f"`{b.text}`" for b in bounds)
            + f" (percentiles: {settings.percentile_method}). "
            "A level meets the SLO when every bound holds for its statistic. Goodput: the share "
            "of measured requests (failures included) whose own values meet every threshold, and "
            "their rate per second of wall time.",
        ],
    )
    records = context.dataset.records
    levels = (
        slo.evaluate(records, summary, bounds, settings) if not records.empty else pd.DataFrame()
    )
    for label in tables.labels_of(summary):
        rows = levels[levels["label"] == label] if not levels.empty else levels
        if rows.empty:
            section.blocks.append(
                f"**{label}**: no raw records (Locust CSV input): SLO not evaluated."
            )
            continue
        frame = rows[
            ["concurrency", "n", *(b.text for b in bounds), "meets_slo", "goodput_pct"]
            + ["goodput_rps"]
        ].rename(
            columns={
                "concurrency": "Concurrency",
                "meets_slo": "Meets SLO",
                "goodput_pct": "Goodput",
                "goodput_rps": "Goodput (req/s)",
            }
        )
        frame["Meets SLO"] = frame["Meets SLO"].map({True: "yes", False: "no"})
        formats = {b.text: "{:.2f}" for b in bounds}
        formats.update({"Goodput": "{:.1f}%", "Goodput (req/s)": "{:.3f}"})
        section.blocks.append(
            Table(f"slo_{slug(label)}", f"{label}: SLO per level", frame, formats)
        )
        section.blocks.append(
            _capacity_text(label, slo.capacity(rows, bounds, context.think_time_s))
        )
    return section
