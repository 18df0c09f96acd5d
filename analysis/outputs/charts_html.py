"""Interactive charts with plotly (hover values, zoom, toggle series).

plotly is a maintained library that writes self-contained pages; its 4.8 MB JavaScript bundle is
written once per report (``plotly.min.js`` at the report root) and each chart page references it
by relative path, so 29 charts cost ~10 KB each instead of 4.8 MB each. Opening a chart works
offline (no CDN), as long as its folder stays inside the report folder.

The figures are plotly.js's JSON as plain dicts, written by ``plotly.io.to_html`` without
validation: ``plotly.graph_objects`` with a named template validated and deep-copied every
property of every page, about 0.2 s a page (31 charts and 25 request timelines: 10 s of CPU);
the ``plotly_white`` template is expanded once per process instead.
"""

from __future__ import annotations

import os
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np
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


@cache
def _template() -> dict[str, Any]:
    """plotly's ``plotly_white`` template as plotly.js reads it (what naming it expanded to)."""
    return pio.templates["plotly_white"].to_plotly_json()


def write_page(figure: dict[str, Any], path: Path, report_dir: Path) -> None:
    """A page drawing ``figure`` (plotly.js's ``data`` and ``layout``, the white template
    added) with the report's shared ``plotly.min.js``."""
    page = {"data": figure["data"], "layout": {**figure["layout"], "template": _template()}}
    script = os.path.relpath(report_dir / PLOTLY_JS, path.parent).replace(os.sep, "/")
    html = pio.to_html(page, include_plotlyjs=script, full_html=True, validate=False)
    path.write_text(html, encoding="utf-8")


def _without_none(properties: dict[str, Any]) -> dict[str, Any]:
    return {key: value for key, value in properties.items() if value is not None}


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


def figure(chart: Chart) -> dict[str, Any]:
    """The chart as plotly.js's ``data`` and ``layout``."""
    data: list[dict[str, Any]] = []
    levels: set[float] = set()
    bars = chart.x_axis == STACKED_BARS
    for series, colour in zip(chart.series, colours(chart), strict=True):
        if bars:  # one bar per x value, shown as a category; the series stacked in order
            x = [f"{v:g}" for v in series.x]
            data.append(
                {
                    "type": "bar",
                    "x": x,
                    "y": _clean(series.y),
                    "name": series.name,
                    "marker": {"color": colour},
                }
            )
            continue
        y = _clean(series.y)
        levels.update(float(x) for x, v in zip(series.x, y, strict=False) if v is not None)
        mode = "markers" if series.style == "none" else "lines+markers"
        data.append(
            _without_none(
                {
                    "type": "scatter",
                    "x": _clean(series.x),
                    "y": y,
                    "name": series.name,
                    "mode": mode + ("+text" if series.texts else ""),
                    "text": series.texts,
                    "textposition": "top right",
                    "line": {"dash": _DASH[series.style], "color": colour},
                    "marker": {**_MARKER[series.marker], "color": colour},
                    "error_y": _error_bars(series.y, series.low, series.high),
                    "error_x": _error_bars(series.x, series.x_low, series.x_high),
                }
            )
        )
    ticks = sorted(levels)
    on_levels = chart.x_axis == LEVELS_AXIS
    xaxis: dict[str, Any] = {"title": {"text": chart.x_label}}
    if bars:
        xaxis["type"] = "category"
    if on_levels:
        xaxis.update(
            type="log" if ticks and min(ticks) > 0 else "linear",
            tickvals=ticks,
            ticktext=[f"{t:g}" for t in ticks],
        )
    layout = {
        "title": {
            "text": chart.title + (f"<br><sub>{chart.subtitle}</sub>" if chart.subtitle else "")
        },
        "xaxis": xaxis,
        "yaxis": {"title": {"text": chart.y_label}, "rangemode": "tozero"},
        "barmode": "stack",
        "hovermode": "x unified" if on_levels else "closest",
    }
    return {"data": data, "layout": layout}


def render(chart: Chart, path: Path, report_dir: Path) -> None:
    write_page(figure(chart), path, report_dir)
