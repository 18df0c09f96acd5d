"""An embeddings run's summary columns (``analysis/figures/inputs.py``): inputs and input tokens
per second over the level's wall time; only where some record carries ``inputs``; no output
throughput where nothing was generated."""

from __future__ import annotations

import math

import pytest

from analysis.figures.inputs import COLUMNS
from analysis.figures.metrics import Settings, summarize
from analysis.reading.load import load
from tests.analysis_synthetic import make_record, write_run

SETTINGS = Settings(bootstrap_resamples=0)


def embeddings_summary(tmp_path) -> dict:
    """Four requests of 8 inputs and 100 prompt tokens each, sent 1 s apart, each 0.5 s long:
    the level's wall time is 3.5 s."""
    records = [
        make_record(
            2,
            0,
            ttft=None,
            itl=None,
            tps=None,
            latency=0.5,
            start_time=100.0 + i,
            output_tokens=None,
            inputs=8,
            prompt_tokens=100,
        )  # fmt: skip
        for i in range(4)
    ]
    (row,) = summarize(load([write_run(tmp_path, "run", records)]), SETTINGS).to_dict("records")
    return row


def test_inputs_per_second_are_the_levels_inputs_over_its_wall_time(tmp_path):
    row = embeddings_summary(tmp_path)
    assert row["inputs_sum"] == 32
    assert row["inputs_per_s"] == pytest.approx(32 / 3.5)


def test_input_tokens_per_second_are_the_usages_prompt_tokens_over_the_wall_time(tmp_path):
    assert embeddings_summary(tmp_path)["input_tokens_per_s"] == pytest.approx(400 / 3.5)


def test_a_level_that_generated_nothing_has_no_output_throughput(tmp_path):
    row = embeddings_summary(tmp_path)
    assert math.isnan(row["output_tokens_sum"]) and math.isnan(row["measured_total_tps"])
    assert math.isnan(row["ttft_ms_mean"])


def test_a_chat_runs_summary_has_no_input_columns(tmp_path):
    records = [
        make_record(1, 0, ttft=0.1, itl=0.01, tps=50, latency=1.0, start_time=100.0 + i)
        for i in range(3)
    ]
    summary = summarize(load([write_run(tmp_path, "run", records)]), SETTINGS)
    assert not set(COLUMNS) & set(summary.columns)
