"""The server's figures as charts: the TTFT split stacks to the client's mean, the histogram has
a segment per level; both draw as stacked bars in PNG and HTML."""

from __future__ import annotations

import numpy as np

from analysis.figures.server_timing import Drafting, TtftSplit
from analysis.outputs import charts_html, charts_png
from analysis.views import server_views
from analysis.views.charts import STACKED_BARS

SPLITS = [
    TtftSplit(
        "run",
        "closed",
        c,
        None,
        3,
        100.0 * c,
        10.0 * c,
        50.0,
        100.0 * c - 10.0 * c - 50.0,
        12.0,
        10.0,
    )
    for c in (1, 2, 4)
]


def drafting(c: int, histogram: list[int]) -> Drafting:
    return Drafting(
        "run",
        "closed",
        c,
        None,
        None,
        2,
        3.0,
        3.0,
        3.0,
        0.6,
        0.6,
        0.6,
        3.0,
        histogram,
        4,
        8,
        12,
        9.0,
    )


def test_the_split_chart_stacks_to_the_clients_mean_ttft():
    chart = server_views.split_chart(SPLITS, "run")
    assert chart.x_axis == STACKED_BARS
    totals = np.sum([series.y for series in chart.series], axis=0)
    assert totals.tolist() == [100.0, 200.0, 400.0]


def test_the_histogram_chart_pads_a_shorter_levels_histogram():
    chart = server_views.histogram_chart([drafting(1, [1, 2]), drafting(2, [0, 1, 3])], "run")
    assert [s.name for s in chart.series] == ["C=1", "C=2"]
    assert chart.series[0].y.tolist() == [1.0, 2.0, 0.0]


def test_stacked_bars_draw_in_png_and_html(tmp_path):
    chart = server_views.split_chart(SPLITS, "run")
    charts_html.write_library(tmp_path)
    charts_png.render(chart, tmp_path / "split.png")
    charts_html.render(chart, tmp_path / "split.html", tmp_path)
    assert (tmp_path / "split.png").read_bytes()[:4] == b"\x89PNG"
    assert '"type":"bar"' in (tmp_path / "split.html").read_text()
