"""The two percentile definitions and the order-statistic bootstrap."""

from __future__ import annotations

import statistics

import numpy as np
import pandas as pd
import pytest

from analysis import percentiles
from analysis.cli import main
from tests.analysis.analysis_synthetic import make_record, write_run

TEN = np.array([100.0, 110, 120, 130, 140, 150, 160, 170, 180, 190])


def test_linear_is_numpy_linear_interpolation():
    assert percentiles.quantile(TEN, 0.5, "linear") == 145.0
    assert percentiles.quantile(TEN, 0.9, "linear") == pytest.approx(181.0)  # h = 9 × 0.9 = 8.1
    values = np.sort(np.random.default_rng(3).lognormal(size=37))
    for q in (0.1, 0.5, 0.9, 0.99):
        assert percentiles.quantile(values, q, "linear") == pytest.approx(np.quantile(values, q))


def test_cordatus_median_is_statistics_median():
    assert percentiles.quantile(TEN, 0.5, "cordatus") == statistics.median(TEN) == 145.0
    assert percentiles.quantile(TEN[:9], 0.5, "cordatus") == statistics.median(TEN[:9]) == 140.0


def test_cordatus_p90_is_the_nearest_rank_without_interpolation():
    assert percentiles.quantile(TEN, 0.9, "cordatus") == 180.0  # sorted[ceil(9) − 1] = 9th value
    assert percentiles.quantile(np.arange(1.0, 21), 0.9, "cordatus") == 18.0  # sorted[17]


def test_cordatus_rank_uses_exact_arithmetic():
    # 0.9 × 30 is 27.000000000000004 in floating point; the rank is 27, not 28.
    assert percentiles.quantile(np.arange(1.0, 31), 0.9, "cordatus") == 27.0


def test_unknown_method_is_rejected():
    with pytest.raises(ValueError):
        percentiles.position(10, 0.9, "nearest")


def test_bootstrap_ci_matches_brute_force_resampling():
    rng = np.random.default_rng(11)
    values = np.sort(rng.lognormal(0, 0.5, 41))
    for method in percentiles.METHODS:
        for q in (0.5, 0.9):
            k, frac = percentiles.position(len(values), q, method)
            resampled = np.sort(values[rng.integers(0, len(values), (20000, len(values)))], axis=1)
            brute = resampled[:, k] + frac * (
                resampled[:, min(k + 1, len(values) - 1)] - resampled[:, k]
            )
            low, high = percentiles.bootstrap_ci(values, q, method, np.random.default_rng(5), 20000)
            spread = values[-1] - values[0]
            assert low == pytest.approx(np.quantile(brute, 0.05), abs=0.02 * spread)
            assert high == pytest.approx(np.quantile(brute, 0.95), abs=0.02 * spread)


def test_bootstrap_ci_is_reproducible_with_a_seed():
    values = np.sort(np.random.default_rng(1).normal(size=50))
    first = percentiles.bootstrap_ci(values, 0.9, "linear", np.random.default_rng(42))
    assert first == percentiles.bootstrap_ci(values, 0.9, "linear", np.random.default_rng(42))
    assert first[0] < percentiles.quantile(values, 0.9, "linear") < first[1]


def _ten_value_run(tmp_path):
    records = [
        make_record(1, 0, ttft=t / 1000, itl=0.05, tps=20, latency=6.0, start_time=1000 + 6 * i)
        for i, t in enumerate(TEN)
    ]
    return write_run(tmp_path / "results", "sample", records)


@pytest.mark.parametrize(
    "method, p50, p90, said",
    [
        ("linear", 145.0, 181.0, "Percentiles: **linear interpolation"),
        ("cordatus", 145.0, 180.0, "Percentiles: **cordatus (reference tool)"),
    ],
)
def test_percentile_method_option_changes_p90_only_as_defined(tmp_path, method, p50, p90, said):
    run = _ten_value_run(tmp_path)
    out = tmp_path / method
    assert (
        main([str(run), "--out", str(out), "--percentile-method", method, "--no-charts", "--quiet"])
        == 0
    )
    row = pd.read_csv(out / "summary.csv").iloc[0]
    assert (row["ttft_ms_p50"], row["ttft_ms_p90"]) == (pytest.approx(p50), pytest.approx(p90))
    assert row["percentile_method"] == method
    assert bool(row["p90_few_samples"])  # n = 10 < 20
    assert said in (out / "report.md").read_text()
