"""What each chart shows, independent of how it is drawn (PNG and HTML render the same specs).

Per label, the report's five charts against concurrency: TTFT, ITL, TPS and latency as mean,
p50 and p90 (percentiles with their bootstrap 90 % CI as error bars), and throughput as
per-stream, system-wide (C / mean latency) and measured RPS. Across labels: mean TTFT, mean TPS,
total tokens/s and the saturation index. Per open-loop label, one chart against the offered rate:
the achieved rate beside the line achieved = offered. Per sliced run, output tokens/s and TTFT
p90 per window over time, one line per level (``analysis.figures.slices``). Across labels and
levels, aggregate tokens/s against per-stream tokens/s and against TTFT p90, the levels meeting the
SLO and the capacity point marked (``analysis.figures.operating_points``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

import numpy as np
import pandas as pd

from analysis.figures.knee import KneeFinding
from analysis.figures.metrics import CLOSED, METRICS
from analysis.figures.operating_points import MEETS_SLO, POINT_LEVEL, is_capacity
from analysis.figures.slices import LevelSlices
from analysis.views.tables import labels_of, slug

COMPARISON_FOLDER = "comparison"
OPEN_LOOP_CHART = "achieved_vs_offered"
LEVELS_AXIS = "levels"  # a log2 axis with a tick at every level (concurrency, offered rate)
LINEAR_AXIS = "linear"
# stacked bars, one bar per x value (each shown as a category, evenly spaced), one segment per
# series: a level's TTFT split, a histogram
STACKED_BARS = "stacked bars"
SLICE_CHARTS = (  # (key, summary of the window, y label, window column)
    ("slices_tps", "output tokens/s", "tok/s", "output_tps"),
    ("slices_ttft", "TTFT p90", "TTFT p90 (ms)", "ttft_ms_p90"),
)
THROUGHPUT_LATENCY_CHARTS = (  # (key, x column, x label)
    ("throughput_vs_tps", "per_stream_tps", "Per-stream tokens/s (mean TPS)"),
    ("throughput_vs_ttft", "ttft_ms_p90", "TTFT p90 (ms)"),
)
# A colour per label, the same in the PNG and the interactive chart: Tableau's ten, then ten of
# other hues or darkness, so a matrix of up to 20 labels shows no colour twice (matplotlib and
# plotly each cycle through ten, and not the same ten). Beyond 20 the colours come round again
# with a dashed, then a dotted line.
PALETTE = (
    "#1f77b4",  # blue
    "#ff7f0e",  # orange
    "#2ca02c",  # green
    "#d62728",  # red
    "#9467bd",  # purple
    "#8c564b",  # brown
    "#e377c2",  # pink
    "#7f7f7f",  # grey
    "#bcbd22",  # olive
    "#17becf",  # cyan
    "#000075",  # navy
    "#f4c800",  # yellow
    "#006d2c",  # dark green
    "#7f180d",  # maroon
    "#53377a",  # dark violet
    "#ff7a5c",  # coral
    "#a6bdd7",  # light blue
    "#000000",  # black
    "#cea262",  # tan
    "#008080",  # teal
)
ROUND_STYLES = ("solid", "dash", "dot")


def label_look(index: int) -> tuple[str, str]:
    """(colour, line style) of the ``index``-th label: distinct for every index below 60."""
    rounds = index // len(PALETTE)
    return PALETTE[index % len(PALETTE)], ROUND_STYLES[rounds % len(ROUND_STYLES)]


@dataclass
class Series:
    name: str
    x: np.ndarray
    y: np.ndarray
    low: np.ndarray | None = None  # confidence interval, absolute values
    high: np.ndarray | None = None
    style: str = "solid"  # solid | dash | dot | none (markers only)
    marker: str = "circle"  # circle | ring | cross | star
    texts: list[str] | None = None  # a label beside each point
    x_low: np.ndarray | None = None  # an interval on x (accuracy's), absolute values
    x_high: np.ndarray | None = None
    colour: str | None = None  # None: the palette's by the series' place in its chart


def colours(chart: Chart) -> list[str]:
    """Each series' colour, as both renderers draw it."""
    return [s.colour or PALETTE[i % len(PALETTE)] for i, s in enumerate(chart.series)]


@dataclass
class Chart:
    folder: str
    key: str
    title: str
    y_label: str
    series: list[Series]
    subtitle: str = ""
    x_label: str = "Concurrency (C)"
    x_axis: str = LEVELS_AXIS


def _series(
    rows: pd.DataFrame,
    column: str,
    name: str,
    style: str,
    ci: bool = False,
    x: str = "concurrency",
) -> Series:
    low = rows.get(f"{column}_ci_low") if ci else None
    high = rows.get(f"{column}_ci_high") if ci else None
    return Series(
        name,
        rows[x].to_numpy(float),
        rows[column].to_numpy(float),
        None if low is None else low.to_numpy(float),
        None if high is None else high.to_numpy(float),
        style,
    )


def label_charts(summary: pd.DataFrame, label: str, method: str, note: str = "") -> list[Chart]:
    """The five per-label charts (report Appendix B); ``note``: e.g. the time scale."""
    subtitle = f"{method} percentiles, error bars: bootstrap 90 % CI{note}"
    rows = summary[summary["label"] == label].sort_values("concurrency")
    folder, charts = slug(label), []
    for metric in METRICS:
        unit = f" ({metric.unit})"
        series = [
            _series(rows, f"{metric.column}_mean", "mean", "solid"),
            _series(rows, f"{metric.column}_p50", "p50", "dash", ci=True),
            _series(rows, f"{metric.column}_p90", "p90", "dot", ci=True),
        ]
        charts.append(
            Chart(
                folder,
                metric.field,
                f"{label}: {metric.title} vs concurrency",
                metric.title + unit,
                series,
                subtitle,
            )
        )
    charts.append(
        Chart(
            folder,
            "throughput",
            f"{label}: throughput vs concurrency",
            "requests/s",
            [
                _series(rows, "throughput_rps", "per-stream RPS (1 / mean latency)", "dot"),
                _series(rows, "system_rps", "system RPS (C / mean latency)", "solid"),
                _series(rows, "measured_rps", "measured RPS (completed / wall time)", "dash"),
            ],
            f"per-stream and system RPS from mean latency{note}",
        )
    )
    return charts


def comparison_charts(
    summary: pd.DataFrame, note: str = "", knees: Sequence[KneeFinding] = ()
) -> list[Chart]:
    """Across labels: TTFT and TPS of all variants, total tokens/s (each closed-loop knee
    marked, ``analysis.figures.knee``), saturation index."""
    subtitle = f"means per level{note}"
    specs = [
        ("ttft_all", "TTFT (mean) — all variants", "TTFT (ms)", "ttft_ms_mean"),
        ("tps_all", "TPS (mean, per stream) — all variants", "TPS (tok/s)", "tps_mean"),
        ("total_tps", "Total tokens/s (mean TPS × C) — all variants", "tok/s", "total_tps"),
        ("saturation", "Saturation index (TPS at C / TPS at lowest C)", "%", "saturation_pct"),
    ]
    charts = []
    for key, title, y_label, column in specs:
        series = []
        for index, label in enumerate(labels_of(summary)):
            rows = summary[summary["label"] == label].sort_values("concurrency")
            if rows[column].notna().any():
                colour, style = label_look(index)
                series.append(replace(_series(rows, column, label, style), colour=colour))
        marked = [k for k in knees if k.loop == CLOSED.name and k.at is not None]
        if column == "total_tps" and marked:
            series.append(_knee_marks(marked))
        charts.append(Chart(COMPARISON_FOLDER, key, title, y_label, series, subtitle))
    return charts


def open_loop_chart(levels: pd.DataFrame, label: str, note: str = "") -> Chart:
    """One open-loop label's achieved rate against the offered one (``levels``: its summary
    rows); the dashed line is achieved = offered."""
    rows = levels[levels["label"] == label].sort_values("offered_rps")
    return Chart(
        slug(label),
        OPEN_LOOP_CHART,
        f"{label}: achieved vs offered rate",
        "requests/s",
        [
            _series(
                rows, "measured_rps", "achieved (completed / wall time)", "solid", x="offered_rps"
            ),
            _series(rows, "offered_rps", "offered", "dash", x="offered_rps"),
        ],
        f"open loop{note}",
        "Offered rate (requests/s)",
    )


def slice_charts(levels: list[LevelSlices], note: str = "") -> list[Chart]:
    """Per sliced run, each window's output tokens/s and TTFT p90 over time, one line per level
    (x: seconds since the level's first send); a label with several sliced runs gets a chart
    per run."""
    runs: dict[tuple[str, str], list[LevelSlices]] = {}
    for level in levels:
        runs.setdefault((level.label, level.run), []).append(level)
    per_label: dict[str, int] = {}
    charts = []
    for (label, run), sliced in runs.items():
        per_label[label] = per_label.get(label, 0) + 1
        several = sum(key[0] == label for key in runs) > 1
        suffix = f"_run{per_label[label]}" if several else ""
        width = sliced[0].duration_s
        subtitle = f"{width:g} s windows, one line per level" + (f" · {run}" if several else "")
        for key, what, y_label, column in SLICE_CHARTS:
            series = [
                Series(
                    level.level,
                    (level.windows["start_s"] + level.windows["length_s"] / 2).to_numpy(float),
                    level.windows[column].to_numpy(float),
                )
                for level in sliced
            ]
            charts.append(
                Chart(
                    slug(label),
                    key + suffix,
                    f"{label}: {what} per window",
                    y_label,
                    series,
                    subtitle + note,
                    "Seconds since the level's first send (window middle)",
                    LINEAR_AXIS,
                )
            )
    return charts


def _knee_marks(knees: list[KneeFinding]) -> Series:
    """Each label's knee on its total tok/s line (rings, named by label)."""
    return Series(
        "knee",
        np.array([k.at.key for k in knees if k.at is not None], float),
        np.array([k.at.throughput_tps for k in knees if k.at is not None], float),
        style="none",
        marker="ring",
        texts=[k.label for k in knees],
    )


def throughput_latency_charts(points: pd.DataFrame, note: str = "") -> list[Chart]:
    """Aggregate tokens/s against per-stream tokens/s and against TTFT p90: one line per label
    through its levels, then the levels meeting and missing the SLO and the capacity points."""
    charts = []
    for key, x_column, x_label in THROUGHPUT_LATENCY_CHARTS:
        series = []
        for index, label in enumerate(labels_of(points)):
            rows = points[points["label"] == label]
            colour, style = label_look(index)
            series.append(
                Series(
                    label,
                    rows[x_column].to_numpy(float),
                    rows["aggregate_tps"].to_numpy(float),
                    style=style,
                    texts=list(rows[POINT_LEVEL]),
                    colour=colour,
                )
            )
        verdicts = points[MEETS_SLO]
        for name, chosen, marker in (
            ("meets the SLO", verdicts.eq(True), "ring"),
            ("misses the SLO", verdicts.eq(False), "cross"),
            ("capacity (capacity search)", is_capacity(points), "star"),
        ):
            if chosen.any():
                rows = points[chosen.to_numpy(bool)]
                series.append(
                    Series(
                        name,
                        rows[x_column].to_numpy(float),
                        rows["aggregate_tps"].to_numpy(float),
                        style="none",
                        marker=marker,
                    )
                )
        charts.append(
            Chart(
                COMPARISON_FOLDER,
                key,
                f"Aggregate tokens/s vs {x_label.split(' (')[0]} — all labels",
                "Aggregate tokens/s (Σ output tokens / wall time)",
                series,
                f"one point per level{note}",
                x_label,
                LINEAR_AXIS,
            )
        )
    return charts
