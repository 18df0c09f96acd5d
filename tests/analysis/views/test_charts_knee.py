"""The total tok/s chart marks each closed-loop label's knee on its line."""

from __future__ import annotations

from analysis.figures.knee import findings
from analysis.figures.metrics import CLOSED, Settings, loop_levels, summarize
from analysis.reading.load import load
from analysis.views.charts import comparison_charts
from tests.analysis.figures.test_knee_findings import saturating_run


def total_tps_chart(summary, knees):
    (chart,) = [c for c in comparison_charts(summary, "", knees) if c.key == "total_tps"]
    return chart


def test_the_total_tps_chart_rings_the_knee_at_its_level_and_throughput(tmp_path):
    dataset = load([saturating_run(tmp_path)])
    summary = summarize(dataset, Settings(bootstrap_resamples=0))
    knees = findings(summary, dataset)
    chart = total_tps_chart(loop_levels(summary, CLOSED), knees)
    (mark,) = [s for s in chart.series if s.name == "knee"]
    assert list(mark.x) == [8.0] and list(mark.y) == [knees[0].at.throughput_tps]
    assert (mark.style, mark.marker, mark.texts) == ("none", "ring", ["sat"])


def test_without_a_knee_the_chart_has_only_the_labels_lines(tmp_path):
    dataset = load([saturating_run(tmp_path)])
    summary = loop_levels(summarize(dataset, Settings(bootstrap_resamples=0)), CLOSED)
    assert [s.name for s in total_tps_chart(summary, []).series] == ["sat"]
