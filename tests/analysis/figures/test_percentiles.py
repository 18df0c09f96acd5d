"""The two percentile definitions and the order-statistic bootstrap."""

from __future__ import annotations

import statistics

import numpy as np
import pandas as pd
import pytest

from analysis.cli import main
from analysis.figures import percentiles
from tests.analysis_synthetic import make_record, write_run

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


# Sample sizes where q·n is not whole for q = 0.9 and 0.99, so that ceil and floor differ.
AWKWARD_SIZES = (9, 17, 79)


def nearest_rank(values: list[float], percent: int) -> float:
    """The textbook nearest rank: the smallest value with at least ``percent`` % at or below it."""
    ordered = sorted(values)
    n = len(ordered)
    return next(ordered[k - 1] for k in range(1, n + 1) if 100 * k >= percent * n)


def interpolated(values: list[float], q: float) -> float:
    """Linear interpolation of the points (i / (n − 1), i-th smallest value)."""
    ordered = sorted(values)
    return float(np.interp(q, np.linspace(0.0, 1.0, len(ordered)), ordered))


@pytest.mark.parametrize("n", AWKWARD_SIZES)
@pytest.mark.parametrize("percent", [90, 99])
def test_cordatus_is_the_nearest_rank_when_q_times_n_is_not_whole(n, percent):
    values = np.sort(np.random.default_rng(n).lognormal(size=n))
    got = percentiles.quantile(values, percent / 100, "cordatus")
    assert got == nearest_rank(list(values), percent)


@pytest.mark.parametrize("n", AWKWARD_SIZES)
@pytest.mark.parametrize("q", [0.5, 0.9, 0.99])
def test_linear_is_the_interpolated_definition_at_awkward_sizes(n, q):
    values = np.sort(np.random.default_rng(n).lognormal(size=n))
    assert percentiles.quantile(values, q, "linear") == pytest.approx(interpolated(list(values), q))


@pytest.mark.parametrize("method", percentiles.METHODS)
def test_a_level_with_a_failure_takes_percentiles_over_its_79_successes(tmp_path, method):
    ttft_ms = [float(v) for v in np.random.default_rng(79).permutation(np.arange(100.0, 180.0))]
    records = [
        make_record(1, 0, ttft=t / 1000, itl=0.05, tps=20, latency=6.0, start_time=1000 + 6 * i)
        for i, t in enumerate(ttft_ms[:79])
    ]
    records.append(
        make_record(
            1,
            0,
            ttft=ttft_ms[79] / 1000,
            itl=None,
            tps=None,
            latency=None,
            start_time=2000.0,
            status="error",
            error_kind="timeout",
        )
    )
    out = tmp_path / "out"
    run = write_run(tmp_path / "results", "failing", records)
    argv = [str(run), "--out", str(out), "--percentile-method", method, "--no-charts", "--quiet"]
    assert main(argv) == 0
    row = pd.read_csv(out / "summary.csv").iloc[0]
    assert (row["n"], row["failures"]) == (79, 1)
    definition = {
        "cordatus": lambda values: nearest_rank(values, 90),
        "linear": lambda values: interpolated(values, 0.9),
    }[method]
    assert row["ttft_ms_p90"] == pytest.approx(definition(ttft_ms[:79]))
