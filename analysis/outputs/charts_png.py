"""Static charts with matplotlib (object API on the Agg canvas: no pyplot state, no display).

A chart costs matplotlib about 0.2 s of CPU; the report's are drawn by worker processes
(``analysis.outputs.chart_workers``). The constrained layout is computed once, on the figure's
own Agg canvas, before it is saved: ``savefig`` draws a figure whose layout engine is set twice
(once with nothing rendered, to lay it out), a fifth of the time for the same pixels. PNG
compression level 3 encodes in 11 ms where the default 6 takes 17, for files 13 % larger.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from matplotlib.layout_engine import ConstrainedLayoutEngine
from matplotlib.ticker import FixedLocator, NullLocator

from analysis.views.charts import LEVELS_AXIS, STACKED_BARS, Chart, colours

_LINESTYLE = {"solid": "-", "dash": "--", "dot": ":", "none": ""}
_MARKER: dict[str, dict[str, Any]] = {  # Series.marker -> matplotlib marker settings
    "circle": {"marker": "o", "markersize": 4},
    "ring": {"marker": "o", "markersize": 12, "markerfacecolor": "none", "markeredgewidth": 1.5},
    "cross": {"marker": "x", "markersize": 10, "markeredgewidth": 1.5},
    "star": {"marker": "*", "markersize": 16},
}


def render(chart: Chart, path: Path) -> None:
    """Draw one chart: lines with markers (against the levels on a log2 axis, or a linear x),
    CI error bars, point labels."""
    figure = Figure(figsize=(8, 4.8), dpi=100)
    FigureCanvasAgg(figure)  # the layout's renderer is the drawing's (text measured once)
    axes = figure.add_subplot()
    if chart.x_axis == STACKED_BARS:
        _stacked_bars(chart, axes)
        _save(figure, path)
        return
    levels: set[float] = set()
    for series, colour in zip(chart.series, colours(chart), strict=True):
        keep = np.isfinite(series.y)
        if not keep.any():
            continue
        x, y = series.x[keep], series.y[keep]
        levels.update(x.tolist())
        yerr = None
        if series.low is not None and series.high is not None:
            low, high = series.low[keep], series.high[keep]
            yerr = np.vstack([np.clip(y - low, 0, None), np.clip(high - y, 0, None)])
            yerr = np.nan_to_num(yerr)
        xerr = None
        if series.x_low is not None and series.x_high is not None:
            low, high = series.x_low[keep], series.x_high[keep]
            xerr = np.nan_to_num(np.vstack([np.clip(x - low, 0, None), np.clip(high - x, 0, None)]))
        axes.errorbar(
            x,
            y,
            yerr=yerr,
            xerr=xerr,
            label=series.name,
            linestyle=_LINESTYLE[series.style],
            color=colour,
            capsize=3,
            linewidth=1.6,
            **_MARKER[series.marker],
        )
        for text, at_x, at_y in zip(series.texts or [], series.x, series.y, strict=False):
            if np.isfinite(at_x) and np.isfinite(at_y):
                axes.annotate(
                    text, (at_x, at_y), textcoords="offset points", xytext=(4, 4), fontsize=7
                )
    if levels and chart.x_axis == LEVELS_AXIS:
        ticks = sorted(levels)
        if min(ticks) > 0 and len(ticks) > 1:
            axes.set_xscale("log", base=2)
        axes.xaxis.set_major_locator(FixedLocator(ticks))
        axes.xaxis.set_minor_locator(NullLocator())
        axes.set_xticklabels([f"{t:g}" for t in ticks])
    axes.set_title(chart.title + (f"\n{chart.subtitle}" if chart.subtitle else ""), fontsize=11)
    axes.set_xlabel(chart.x_label)
    axes.set_ylabel(chart.y_label)
    axes.grid(True, alpha=0.3)
    intervals_on_x = any(series.x_low is not None for series in chart.series)
    axes.set_ylim(bottom=0)
    if intervals_on_x and levels:  # room for the points' labels above the highest one
        tops = [float(np.nanmax(s.y)) for s in chart.series if np.isfinite(s.y).any()]
        axes.set_ylim(0, 1.15 * max(tops) if max(tops) > 0 else 1)
    if levels:
        axes.legend(fontsize=9, loc="lower right" if intervals_on_x else "best")
    else:
        axes.text(
            0.5,
            0.5,
            "no data for this chart in the input",
            ha="center",
            va="center",
            transform=axes.transAxes,
        )
    _save(figure, path)


def _save(figure: Figure, path: Path) -> None:
    ConstrainedLayoutEngine().execute(figure)
    figure.savefig(path, pil_kwargs={"compress_level": 3})


def _stacked_bars(chart: Chart, axes) -> None:
    """One bar per x value (as a category), the series stacked in order; a missing value adds
    nothing to its bar."""
    xs = sorted({float(x) for s in chart.series for x in s.x})
    positions = {x: i for i, x in enumerate(xs)}
    bottom = np.zeros(len(xs))
    for series, colour in zip(chart.series, colours(chart), strict=True):
        heights = np.zeros(len(xs))
        for x, y in zip(series.x, series.y, strict=True):
            heights[positions[float(x)]] = y if np.isfinite(y) else 0.0
        axes.bar(range(len(xs)), heights, bottom=bottom, label=series.name, color=colour)
        bottom += heights
    axes.set_xticks(range(len(xs)), [f"{x:g}" for x in xs])
    axes.set_title(chart.title + (f"\n{chart.subtitle}" if chart.subtitle else ""), fontsize=11)
    axes.set_xlabel(chart.x_label)
    axes.set_ylabel(chart.y_label)
    axes.grid(True, axis="y", alpha=0.3)
    if xs:
        axes.legend(fontsize=9, loc="best")
