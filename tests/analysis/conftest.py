"""Session fixtures: the report-means runs and their full report, built once."""

from __future__ import annotations

from pathlib import Path

import pytest

from analysis.cli import main
from tests.analysis.analysis_synthetic import write_report_runs


@pytest.fixture(scope="session")
def report_runs(tmp_path_factory) -> list[Path]:
    return write_report_runs(tmp_path_factory.mktemp("report-runs"))


@pytest.fixture(scope="session")
def report_out(report_runs, tmp_path_factory) -> Path:
    """The full report (tables and charts) of the five report-means runs."""
    out = tmp_path_factory.mktemp("report-out")
    assert main([str(p) for p in report_runs] + ["--out", str(out), "--quiet"]) == 0
    return out
