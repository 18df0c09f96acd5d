"""The derived per-level rates of add_rates, each by its formula (metrics' module docstring),
on a summary built by hand: closed-loop rows by C, an open-loop row by offered rate."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from analysis.figures.metrics import add_rates


def levels() -> pd.DataFrame:
    return pd.DataFrame(
        {
            "label": ["b", "b", "a", "a", "open"],
            "loop": ["closed", "closed", "closed", "closed", "open"],
            "concurrency": pd.array([4, 1, 2, 8, pd.NA], dtype="Int64"),
            "n": [40, 10, 20, 80, 30],
            "latency_s_mean": [4.0, 2.0, 2.5, 5.0, 1.0],
            "tps_mean": [25.0, 50.0, 40.0, 20.0, 60.0],
            "wall_s": [40.0, 20.0, 25.0, 50.0, 15.0],
            "output_tokens_sum": [5120.0, 1280.0, 2560.0, 10240.0, 3840.0],
        }
    )


def column(name: str) -> list[float]:
    return list(add_rates(levels())[name])


def test_per_stream_rps_is_one_over_the_mean_latency_and_empty_for_open_loop():
    assert column("throughput_rps")[:4] == [0.25, 0.5, 0.4, 0.2]
    assert np.isnan(column("throughput_rps")[4])


def test_system_rps_is_c_over_the_mean_latency():
    assert column("system_rps")[:4] == [1.0, 0.5, 0.8, 1.6]
    assert np.isnan(column("system_rps")[4])


def test_measured_rps_is_requests_over_the_levels_wall_time():
    assert column("measured_rps") == [1.0, 0.5, 0.8, 1.6, 2.0]


def test_total_tps_is_mean_tps_times_c():
    assert column("total_tps")[:4] == [100.0, 50.0, 80.0, 160.0]
    assert np.isnan(column("total_tps")[4])


def test_measured_total_tps_is_output_tokens_over_the_wall_time():
    assert column("measured_total_tps") == [128.0, 64.0, 102.4, 204.8, 256.0]


def test_saturation_is_mean_tps_against_the_lowest_c_of_the_same_label():
    saturation = column("saturation_pct")
    assert saturation[:4] == pytest.approx([50.0, 100.0, 100.0, 50.0])
    assert np.isnan(saturation[4])


def test_p90_is_marked_as_resting_on_few_samples_below_20_requests():
    assert column("p90_few_samples") == [False, True, False, False, False]


def test_the_rates_leave_the_given_columns_alone():
    given = levels()
    out = add_rates(given)
    pd.testing.assert_frame_equal(out[given.columns], given)
    pd.testing.assert_frame_equal(given, levels())
