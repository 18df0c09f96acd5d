"""The summary's server columns (``SERVER_COLUMNS``): only where some record carries the server's
figures, so a plain run's summary.csv keeps its columns; their statistics in the columns' units."""

from __future__ import annotations

import pytest

from analysis.figures.metrics import SERVER_COLUMNS, Settings, summarize
from analysis.reading.load import load
from tests.analysis_synthetic import make_record, write_run

SETTINGS = Settings(bootstrap_resamples=0)


def summary_of(tmp_path, **fields):
    records = [
        make_record(1, 0, ttft=0.1, itl=0.01, tps=50, latency=1.0, start_time=100.0 + i, **fields)
        for i in range(4)
    ]
    return summarize(load([write_run(tmp_path, "run", records)]), SETTINGS)


def test_a_plain_runs_summary_has_no_server_columns(tmp_path):
    assert not set(SERVER_COLUMNS) & set(summary_of(tmp_path).columns)


def test_server_figures_are_summarized_in_ms_and_their_own_units(tmp_path):
    (row,) = summary_of(
        tmp_path, server_queue=0.003, server_ttft=0.02, acceptance_length=3.5
    ).to_dict("records")
    assert row["server_queue_ms_p50"] == pytest.approx(3.0)
    assert row["server_ttft_ms_mean"] == pytest.approx(20.0)
    assert row["acceptance_length_p90"] == pytest.approx(3.5)
    assert set(SERVER_COLUMNS) <= set(row)
