"""What each chart shows, independent of how it is drawn (PNG and HTML render the same specs).

Per label, the report's five charts against concurrency: TTFT, ITL, TPS and latency as mean,
p50 and p90 (percentiles with their bootstrap 90 % CI as error bars), and throughput as
per-stream, system-wide (C / mean latency) and measured RPS. Across labels: mean TTFT, mean TPS,
total tokens/s and the saturation index. Per open-loop label, one chart against the offered rate:
the achieved rate beside the line achieved = offered.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from analysis.metrics import METRICS
from analysis.tables import labels_of, slug

COMPARISON_FOLDER = "comparison"
OPEN_LOOP_CHART = "achieved_vs_offered"


@dataclass
class Series:
    name: str
    x: np.ndarray
    y: np.ndarray
    low: np.ndarray | None = None  # confidence interval, absolute values
    high: np.ndarray | None = None
    style: str = "solid"  # solid | dash | dot


@dataclass
class Chart:
    folder: str
    key: str
    title: str
    y_label: str
    series: list[Series]
    subtitle: str = ""
    x_label: str = "Concurrency (C)"


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


def comparison_charts(summary: pd.DataFrame, note: str = "") -> list[Chart]:
    """Across labels: TTFT and TPS of all variants, total tokens/s, saturation index."""
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
        for label in labels_of(summary):
            rows = summary[summary["label"] == label].sort_values("concurrency")
            if rows[column].notna().any():
                series.append(_series(rows, column, label, "solid"))
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
