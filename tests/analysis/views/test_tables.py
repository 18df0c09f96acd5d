"""Comparison tables: MTP twins, TP scaling, and what is left out when it cannot be compared."""

from __future__ import annotations

import pandas as pd
import pytest

from analysis.cli import main
from analysis.figures import drafting
from analysis.reading.load import load
from analysis.views import tables
from tests.analysis_synthetic import closed_loop_level, markdown_table, write_run


def _run(root, label, levels, **manifest):
    records = []
    for index, (c, tps) in enumerate(levels):
        records += closed_loop_level(
            c, index, 1000.0 + 1000 * index, ttft=0.2, itl=0.05, tps=tps, latency=128 / tps
        )
    return write_run(root, label, records, **manifest)


def _report(tmp_path, runs):
    out = tmp_path / "out"
    assert main([str(r) for r in runs] + ["--out", str(out), "--no-charts", "--quiet"]) == 0
    return pd.read_csv(out / "summary.csv"), (out / "report.md").read_text()


def test_without_a_record_of_drafting_mtp_twins_match_by_name_at_the_same_tp(tmp_path):
    root = tmp_path / "results"
    runs = [
        _run(root, "a", [(1, 10.0)], variant="nvfp4", stamp="1"),
        _run(root, "b", [(1, 21.0)], variant="NVFP4-mtp", stamp="2"),
        _run(root, "c", [(1, 30.0)], variant="NVFP4-MTP", tp=2, stamp="3"),
    ]
    _, report = _report(tmp_path, runs)
    assert drafting.pairs(drafting.deployments(load(runs), pd.DataFrame())) == [("a", "b")]
    rows = markdown_table(report, "MTP speed-up ratio (TPS with MTP / TPS without) per concurrency")
    assert rows == [["Concurrency", "a MTP ratio"], ["1", "2.10x"]]


def test_tp_scaling_reports_per_node_totals_and_efficiency(tmp_path):
    root = tmp_path / "results"
    runs = [
        _run(root, "nvfp4-tp1", [(1, 10.0), (4, 8.0)], variant="NVFP4", tp=1, nodes=1, stamp="1"),
        _run(root, "nvfp4-tp2", [(1, 15.0), (4, 14.0)], variant="NVFP4", tp=2, nodes=2, stamp="2"),
    ]
    summary, report = _report(tmp_path, runs)
    table = tables.tp_scaling(summary, "NVFP4", ["nvfp4-tp1", "nvfp4-tp2"]).frame.set_index(
        ["Concurrency", "TP"]
    )
    assert table.loc[(4, 2), "Total tok/s"] == pytest.approx(56.0)
    assert table.loc[(4, 2), "Total tok/s per node"] == pytest.approx(28.0)
    assert table.loc[(4, 2), "TP efficiency"] == pytest.approx(56 / (2 * 32) * 100)  # 87.5 %
    assert table.loc[(1, 2), "Per-stream speed-up"] == pytest.approx(1.5)
    rows = markdown_table(report, "NVFP4: TP scaling")
    assert rows[-1] == ["4", "2", "2", "nvfp4-tp2", "14.00", "1.75x", "56.0", "28.0", "88%"]


def test_single_label_report_says_why_comparisons_are_missing(tmp_path):
    _, report = _report(tmp_path, [_run(tmp_path / "results", "solo", [(1, 10.0), (2, 9.0)])])
    assert "Fewer than two labels that draft alike at one TP size" in report
    assert "No two labels differ in drafting only" in report
    assert "No variant ran at more than one TP size" in report


def test_pairwise_differences_are_relative_to_the_first_label(tmp_path):
    root = tmp_path / "results"
    runs = [_run(root, "FP8", [(1, 8.0)], stamp="1"), _run(root, "NVFP4", [(1, 10.0)], stamp="2")]
    _, report = _report(tmp_path, runs)
    assert markdown_table(report, "TPS (tok/s): FP8 vs NVFP4")[1] == [
        "1",
        "8.00",
        "10.00",
        "+25.0%",
    ]
