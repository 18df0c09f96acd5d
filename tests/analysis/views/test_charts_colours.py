"""Every label has its own colour, the same in the PNG and the interactive chart."""

from __future__ import annotations

import json
import re

import numpy as np
import pandas as pd
from matplotlib.image import imread

from analysis.outputs import charts_html, charts_png
from analysis.views.charts import PALETTE, colours, comparison_charts, label_look


def test_no_two_of_sixty_labels_look_alike():
    assert len({label_look(i) for i in range(60)}) == 60
    assert len(set(PALETTE)) == len(PALETTE) == 20


def test_a_fifteen_label_comparison_gives_each_label_its_colour(tp_matrix_tables):
    summary = pd.read_csv(tp_matrix_tables / "summary.csv")
    (chart, *_) = comparison_charts(summary)
    assert len(chart.series) == 15 and len(set(colours(chart))) == 15


def trace_colours(page: str) -> list[str]:
    """Each plotly trace's line colour, in order."""
    data = json.loads(
        re.search(r"Plotly\.newPlot\(\s*\"[^\"]+\",\s*(\[.*?\]),\s*\{", page, re.S)[1]
    )
    return [trace["line"]["color"] for trace in data]


def png_has(pixels: np.ndarray, colour: str) -> bool:
    rgb = np.array([int(colour[i : i + 2], 16) for i in (1, 3, 5)]) / 255
    return bool((np.abs(pixels[..., :3] - rgb).max(axis=-1) < 1e-3).any())


def test_png_and_html_draw_each_label_in_the_same_colour(tp_matrix_tables, tmp_path):
    summary = pd.read_csv(tp_matrix_tables / "summary.csv")
    (chart, *_) = comparison_charts(summary)
    charts_html.write_library(tmp_path)
    charts_html.render(chart, tmp_path / "c.html", tmp_path)
    charts_png.render(chart, tmp_path / "c.png")
    assert trace_colours((tmp_path / "c.html").read_text()) == colours(chart)
    pixels = imread(tmp_path / "c.png")
    assert all(png_has(pixels, colour) for colour in colours(chart))
