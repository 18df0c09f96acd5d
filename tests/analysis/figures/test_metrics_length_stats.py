"""The lengths a level achieved (issue 18's length distributions): each figure over the finite
prompt and output token counts, named as summary.csv's columns."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest

from analysis.figures.metrics import LENGTH_COLUMNS, Settings, length_stats

SETTINGS = Settings(bootstrap_resamples=0)
PROMPT = np.array([400.0, 100.0, np.nan, 300.0, 200.0, np.inf])  # finite: 100, 200, 300, 400
OUTPUT = np.array([30.0, np.nan, 10.0])  # finite: 10, 30


def test_prompt_figures_are_taken_over_the_finite_lengths_in_any_order():
    stats = length_stats(PROMPT, OUTPUT, SETTINGS)
    assert stats["prompt_tokens_mean"] == 250.0
    assert stats["prompt_tokens_min"] == 100.0
    assert stats["prompt_tokens_max"] == 400.0
    assert stats["prompt_tokens_p50"] == 250.0
    assert stats["prompt_tokens_p90"] == pytest.approx(370.0)  # linear: 300 + 0.7 x 100
    assert stats["prompt_tokens_p99"] == pytest.approx(397.0)


def test_the_spread_is_the_population_standard_deviation():
    stats = length_stats(PROMPT, OUTPUT, SETTINGS)
    assert stats["prompt_tokens_sd"] == pytest.approx(math.sqrt(12500.0))
    assert stats["output_tokens_sd"] == 10.0


def test_output_figures_are_its_spread_and_percentiles():
    stats = length_stats(PROMPT, OUTPUT, SETTINGS)
    assert stats["output_tokens_p50"] == 20.0
    assert stats["output_tokens_p90"] == pytest.approx(28.0)
    assert stats["output_tokens_p99"] == pytest.approx(29.8)


def test_the_figures_are_exactly_the_summary_length_columns():
    assert sorted(length_stats(PROMPT, OUTPUT, SETTINGS)) == sorted(LENGTH_COLUMNS)


def test_a_level_with_no_lengths_gets_nan_figures_without_a_warning():
    empty = np.array([np.nan, np.nan])
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # numpy warns on the mean of an empty slice
        stats = length_stats(empty, np.array([]), SETTINGS)
    assert all(math.isnan(value) for value in stats.values())


def test_one_length_is_its_own_mean_minimum_and_maximum():
    stats = length_stats(np.array([512.0]), np.array([64.0]), SETTINGS)
    figures = ("mean", "min", "max", "p50", "p90", "p99")
    assert [stats[f"prompt_tokens_{name}"] for name in figures] == [512.0] * 6
    assert stats["prompt_tokens_sd"] == 0.0
