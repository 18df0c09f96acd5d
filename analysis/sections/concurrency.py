"""Concurrency effect: each mean across levels, and per-stream vs system-wide RPS."""

from __future__ import annotations

from analysis.document import Section
from analysis.sections import Context
from analysis.views import tables

GRIDS = (  # (heading, table title, summary column, table key)
    ("TPS drop", "Mean TPS per stream (tok/s)", "tps_mean", "tps"),
    ("ITL increase", "Mean ITL (ms)", "itl_ms_mean", "itl"),
    ("TTFT increase", "Mean TTFT (ms)", "ttft_ms_mean", "ttft"),
    ("Latency increase", "Mean latency (s)", "latency_s_mean", "latency"),
)
# a thinking model's time to answer, where the run reasoned or called tools: last, so that no
# other subsection's number (nor its tables' file names) depends on it
TTFO_GRID = ("TTFO increase", "Mean TTFO (ms), time to answer", "ttfo_ms_mean", "ttfo")


def build(context: Context) -> Section:
    summary = context.summary
    section = Section(
        "Concurrency effect",
        [
            "Mean per level; the last column is the change from the lowest to the highest "
            "concurrency."
        ],
    )
    for heading, title, column, key in GRIDS:
        section.subsections.append(
            Section(
                heading,
                [
                    tables.across_levels(
                        summary, column, key, title, "{:.2f}", change_format="{:+.0f}%"
                    )
                ],
            )
        )
    section.subsections.append(
        Section(
            "Throughput: per-stream vs system-wide RPS",
            [
                'Per-stream RPS (the reference tool\'s "Throughput") = n / Σ latency = 1 / '
                "mean latency: the completion rate of one stream, flat in C by construction. "
                "System-wide RPS = C / mean latency (the quantization report's 5.5). Measured "
                "RPS = completed requests / level wall time, where wall time runs from the first "
                "send to the last completion of the level (tail included).",
                tables.across_levels(
                    summary, "throughput_rps", "per_stream_rps", "Per-stream RPS", "{:.2f}"
                ),
                tables.across_levels(
                    summary,
                    "system_rps",
                    "system_rps",
                    "System-wide RPS (C / mean latency)",
                    "{:.2f}",
                    change_format="{:+.0f}%",
                ),
                tables.across_levels(
                    summary,
                    "measured_rps",
                    "measured_rps",
                    "Measured RPS (completed / wall time)",
                    "{:.2f}",
                ),
            ],
        )
    )
    if tables.thinks(summary):
        heading, title, column, key = TTFO_GRID
        table = tables.across_levels(
            summary, column, key, title, "{:.2f}", change_format="{:+.0f}%"
        )
        section.subsections.append(Section(heading, [table]))
    return section
