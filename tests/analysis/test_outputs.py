"""The report folder: Appendix B layout, charts with the right series, index page."""

from __future__ import annotations

import json
import re

import numpy as np
import pandas as pd
import pytest

from analysis.cli import main
from analysis.outputs import charts_png
from analysis.outputs.chart_workers import ChartWorkers
from analysis.views.charts import Chart, Series, comparison_charts, label_charts
from tests.analysis_synthetic import REPORT_ORDER, closed_loop_level, write_run
from tests.report_files import table_path

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"
LABEL_CHARTS = ["ttft", "itl", "tps", "latency", "throughput"]


@pytest.mark.parametrize("label", REPORT_ORDER)
def test_each_label_folder_holds_five_png_five_html_and_a_csv(report_out, label):
    folder = report_out / label
    assert sorted(p.name for p in folder.iterdir()) == sorted(
        [f"{c}.png" for c in LABEL_CHARTS] + [f"{c}.html" for c in LABEL_CHARTS] + [f"{label}.csv"]
    )
    for chart in LABEL_CHARTS:
        assert (folder / f"{chart}.png").read_bytes()[:8] == PNG_MAGIC
        page = (folder / f"{chart}.html").read_text()
        assert 'src="../plotly.min.js"' in page and "Plotly.newPlot" in page
    assert set(pd.read_csv(folder / f"{label}.csv")["label"]) == {label}


def test_charts_drawn_by_the_workers_are_byte_for_byte_those_drawn_here(report_out, tmp_path):
    summary = pd.read_csv(report_out / "summary.csv")
    charts = comparison_charts(summary)
    for chart in charts:
        charts_png.render(chart, tmp_path / f"{chart.key}.png")
    with ChartWorkers() as workers:
        workers.write(charts, tmp_path / "workers")
        workers.finish()
    for chart in charts:
        here = (tmp_path / f"{chart.key}.png").read_bytes()
        drawn = tmp_path / "workers" / chart.folder / f"{chart.key}.png"
        assert here[:8] == PNG_MAGIC and drawn.read_bytes() == here
        assert "Plotly.newPlot" in drawn.with_suffix(".html").read_text()


def test_a_drawing_that_fails_in_a_worker_raises_when_the_charts_are_awaited(tmp_path):
    two_x_one_y = Series("a", np.array([1.0, 2.0]), np.array([1.0]))
    with pytest.raises(IndexError), ChartWorkers() as workers:
        workers.write([Chart("comparison", "broken", "Broken", "y", [two_x_one_y])], tmp_path)
        workers.finish()


def test_comparison_charts_and_shared_files_exist_and_are_not_empty(report_out):
    names = ["ttft_all", "tps_all", "total_tps", "saturation"]
    for name in names:
        for ext in ("png", "html"):
            assert (report_out / "comparison" / f"{name}.{ext}").stat().st_size > 1000
    for name in ("report.md", "summary.csv", "index.html", "plotly.min.js"):
        assert (report_out / name).stat().st_size > 1000


def test_index_page_links_every_chart_and_table(report_out):
    page = (report_out / "index.html").read_text()
    for label in REPORT_ORDER:
        for chart in LABEL_CHARTS:
            assert f'href="{label}/{chart}.html"' in page and f'src="{label}/{chart}.png"' in page
    assert f'href="tables/{table_path(report_out, "total_tps").name}"' in page


def test_report_md_embeds_the_charts_it_describes(report_out):
    report = (report_out / "report.md").read_text()
    assert "![FP8 ttft](FP8/ttft.png)" in report
    assert "![Saturation index](comparison/saturation.png)" in report


def test_label_charts_plot_mean_p50_p90_of_the_summary(report_out):
    summary = pd.read_csv(report_out / "summary.csv")
    charts = {c.key: c for c in label_charts(summary, "FP8", "linear")}
    assert list(charts) == LABEL_CHARTS
    fp8 = summary[summary["label"] == "FP8"]
    ttft = {s.name: s for s in charts["ttft"].series}
    assert list(ttft) == ["mean", "p50", "p90"]
    assert list(ttft["mean"].x) == [1, 2, 4, 8, 16]
    assert list(ttft["p90"].y) == pytest.approx(list(fp8["ttft_ms_p90"]))
    throughput = [s.name.split()[0] for s in charts["throughput"].series]
    assert throughput == ["per-stream", "system", "measured"]


def test_comparison_charts_have_one_series_per_label(report_out):
    summary = pd.read_csv(report_out / "summary.csv")
    charts = {c.key: c for c in comparison_charts(summary)}
    assert [s.name for s in charts["total_tps"].series] == REPORT_ORDER
    awq = next(s for s in charts["saturation"].series if s.name == "AWQ-MTP")
    assert round(awq.y[-1]) == 59


def test_summary_json_holds_every_figure_of_summary_csv(report_out):
    document = json.loads((report_out / "summary.json").read_text())
    csv_rows = pd.read_csv(report_out / "summary.csv")
    levels = pd.DataFrame(document["levels"])
    assert list(levels.columns) == list(csv_rows.columns)
    numeric = csv_rows.select_dtypes("number").columns  # an empty text column reads as NaN
    in_json = levels[numeric].apply(pd.to_numeric, errors="coerce").to_numpy(float)
    assert in_json == pytest.approx(csv_rows[numeric].to_numpy(float), rel=1e-9, nan_ok=True)
    assert {"ttft_ms_p90", "system_rps", "cached_prompt_pct"} <= set(numeric)
    assert list(levels["label"]) == list(csv_rows["label"])


def test_summary_json_states_the_method(report_out):
    method = json.loads((report_out / "summary.json").read_text())["method"]
    assert method["percentile_method"] == "linear"
    assert [run["label"] for run in method["runs"]] == REPORT_ORDER
    assert {run["time_scale"] for run in method["runs"]} == {1.0}
    assert (method["warmup_excluded"], method["slo"]) == (0, None)


def test_summary_json_names_the_slo_when_one_is_given(tmp_path):
    run = write_run(
        tmp_path / "r",
        "x",
        closed_loop_level(
            1,
            0,
            1000.0,
            ttft=0.1,
            itl=0.05,
            tps=20,
            latency=6.0,
            warmup={"ttft": 1.0, "itl": 0.1, "tps": 5, "latency": 20.0},
        ),
        time_scale=10.0,
    )
    out = tmp_path / "out"
    argv = [str(run), "--out", str(out), "--slo", "ttft_p90_ms<=1000", "--no-charts", "--quiet"]
    assert main(argv) == 0
    method = json.loads((out / "summary.json").read_text())["method"]
    assert (method["slo"], method["think_time_s"]) == (["ttft_p90_ms<=1000"], 10.0)
    assert (method["runs"][0]["time_scale"], method["warmup_excluded"]) == (10.0, 1)


def test_index_page_links_the_summaries_and_shows_every_chart_written(report_out):
    page = (report_out / "index.html").read_text()
    for name in ("report.md", "summary.csv", "summary.json"):
        assert f'href="{name}"' in page and (report_out / name).is_file()
    shown = set(re.findall(r'<img src="([^"]+)"', page))
    written = {str(p.relative_to(report_out)) for p in report_out.rglob("*.png")}
    assert shown == written and len(written) > 20
