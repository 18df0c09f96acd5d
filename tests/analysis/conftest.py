"""Session fixtures: the report-means runs and their report, built once with charts and once
without."""

from __future__ import annotations

from pathlib import Path

import pytest

from analysis.cli import main
from tests.analysis_synthetic import write_report_runs, write_tp_matrix_runs


@pytest.fixture(scope="session")
def report_runs(tmp_path_factory) -> list[Path]:
    return write_report_runs(tmp_path_factory.mktemp("report-runs"))


@pytest.fixture(scope="session")
def report_out(report_runs, tmp_path_factory) -> Path:
    """The full report (tables and charts) of the five report-means runs."""
    out = tmp_path_factory.mktemp("report-out")
    assert main([str(p) for p in report_runs] + ["--out", str(out), "--quiet"]) == 0
    return out


@pytest.fixture(scope="session")
def report_tables(report_runs, tmp_path_factory) -> Path:
    """The same report without charts: what the section and reproduction tests read. Rendering
    the charts is 12 of the full report's 13 seconds, and a mutation run pays it again for every
    surviving mutant of the analysis those tests reach (tools/mutation/targets.py)."""
    out = tmp_path_factory.mktemp("report-tables")
    assert main([str(p) for p in report_runs] + ["--out", str(out), "--no-charts", "--quiet"]) == 0
    return out


@pytest.fixture(scope="session")
def tp_matrix_runs(tmp_path_factory) -> list[Path]:
    """The five variants at TP1, TP2 and TP4, as a matrix names them."""
    return write_tp_matrix_runs(tmp_path_factory.mktemp("tp-matrix-runs"))


@pytest.fixture(scope="session")
def tp_matrix_tables(tp_matrix_runs, tmp_path_factory) -> Path:
    """Their report, without charts."""
    runs = tp_matrix_runs
    out = tmp_path_factory.mktemp("tp-matrix-report")
    assert main([str(p) for p in runs] + ["--out", str(out), "--no-charts", "--quiet"]) == 0
    return out
