"""Interactive charts with plotly (hover values, zoom, toggle series).

plotly is a maintained library that writes self-contained pages; its 4.8 MB JavaScript bundle is
written once per report (``plotly.min.js`` at the report root) and each chart page references it
by relative path, so 29 charts cost ~10 KB each instead of 4.8 MB each. Opening a chart works
offline (no CDN), as long as its folder stays inside the report folder.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import numpy as np
import plotly.graph_objects as go
import plotly.io as pio
from plotly.offline import get_plotlyjs

from analysis.views.charts import LEVELS_AXIS, STACKED_BARS, Chart, colours

PLOTLY_JS = "plotly.min.js"
_DASH = {"solid": "solid", "dash": "dash", "dot": "dot", "none": "solid"}
_MARKER = {  # Series.marker -> plotly marker
    "circle": {"symbol": "circle", "size": 6},
    "ring": {"symbol": "circle-open", "size": 16, "line": {"width": 2}},
    "cross": {"symbol": "x-thin-open", "size": 14, "line": {"width": 2}},
    "star": {"symbol": "star", "size": 18},
}


def write_library(report_dir: Path) -> None:
    (report_dir / PLOTLY_JS).write_text(get_plotlyjs(), encoding="utf-8")


def _clean(values: np.ndarray) -> list[float | None]:
    return [None if not np.isfinite(v) else float(v) for v in values]


def _error_bars(values: np.ndarray, low: np.ndarray | None, high: np.ndarray | None) -> dict | None:
    """Plotly's asymmetric error bars from an interval's bounds (None: no interval)."""
    if low is None or high is None:
        return None
    return dict(
        type="data",
        symmetric=False,
        visible=True,
        array=_clean(np.clip(high - values, 0, None)),
        arrayminus=_clean(np.clip(values - low, 0, None)),
    )


def render(chart: Chart, path: Path, report_dir: Path) -> None:
    figure = go.Figure()
    levels: set[float] = set()
    bars = chart.x_axis == STACKED_BARS
    for series, colour in zip(chart.series, colours(chart), strict=True):
        if bars:  # one bar per x value, shown as a category; the series stacked in order
            x = [f"{v:g}" for v in series.x]
            figure.add_trace(go.Bar(x=x, y=_clean(series.y), name=series.name, marker_color=colour))
            continue
        y = _clean(series.y)
        levels.update(float(x) for x, v in zip(series.x, y, strict=False) if v is not None)
        error = _error_bars(series.y, series.low, series.high)
        x_error = _error_bars(series.x, series.x_low, series.x_high)
        mode = "markers" if series.style == "none" else "lines+markers"
        figure.add_trace(
            go.Scatter(
                x=_clean(series.x),
                y=y,
                name=series.name,
                mode=mode + ("+text" if series.texts else ""),
                text=series.texts,
                textposition="top right",
                line=dict(dash=_DASH[series.style], color=colour),
                marker={**_MARKER[series.marker], "color": colour},
                error_y=error,
                error_x=x_error,
            )
        )
    ticks = sorted(levels)
    on_levels = chart.x_axis == LEVELS_AXIS
    xaxis: dict[str, Any] = (
        dict(title=chart.x_label, type="category") if bars else dict(title=chart.x_label)
    )
    if on_levels:
        xaxis.update(
            type="log" if ticks and min(ticks) > 0 else "linear",
            tickvals=ticks,
            ticktext=[f"{t:g}" for t in ticks],
        )
    figure.update_layout(
        title=dict(
            text=chart.title + (f"<br><sub>{chart.subtitle}</sub>" if chart.subtitle else "")
        ),
        xaxis=xaxis,
        yaxis=dict(title=chart.y_label, rangemode="tozero"),
        template="plotly_white",
        barmode="stack",
        hovermode="x unified" if on_levels else "closest",
    )
    script = os.path.relpath(report_dir / PLOTLY_JS, path.parent).replace(os.sep, "/")
    path.write_text(pio.to_html(figure, include_plotlyjs=script, full_html=True), encoding="utf-8")
