"""Speed beside accuracy per label, and the speed-accuracy chart."""

from __future__ import annotations

import numpy as np
import pandas as pd

from analysis.views import speed_accuracy


def summary() -> pd.DataFrame:
    return pd.DataFrame(
        {
            "label": ["a", "a", "a", "b", "b"],
            "concurrency": [1, 4, 16, 1, 4],
            "measured_total_tps": [20.0, 90.0, 70.0, 25.0, 120.0],
        }
    )


def graded(*labels: str) -> pd.DataFrame:
    shares = {"a": (160, 200), "b": (190, 200)}
    rows = [
        {
            "label": label,
            "probe": "arithmetic",
            "n": shares[label][1],
            "correct": shares[label][0],
            "accuracy": shares[label][0] / shares[label][1],
            "low": 0.7,
            "high": 0.9,
        }
        for label in labels
    ]
    return pd.DataFrame(rows)


def nodes() -> pd.DataFrame:
    return pd.DataFrame(
        {
            "label": ["a", "a", "b"],
            "concurrency": [4, 16, 4],
            "node": ["n1", "n1", "n1"],
            "joules": [100.0, 100.0, 60.0],
            "mean_w": [50.0, 50.0, 40.0],
            "j_per_output_token": [0.5, 0.6, 0.3],
            "output_tokens_per_j": [2.0, 1.7, 3.3],
            "energy_method": ["counter", "counter", "counter"],
        }
    )


def test_a_label_s_speed_and_energy_are_its_fastest_level_s() -> None:
    rows = speed_accuracy.per_label(summary(), graded("a", "b"), nodes(), {"a": 6.5})
    a = rows[rows["label"] == "a"].iloc[0]
    assert (a["output_tps"], a["at_concurrency"], a["j_per_output_token"]) == (90.0, 4, 0.5)
    assert a["capacity"] == 6.5 and a["accuracy"] == 0.8


def test_a_label_without_a_capacity_has_none() -> None:
    rows = speed_accuracy.per_label(summary(), graded("a", "b"), nodes(), {"a": 6.5})
    assert rows[rows["label"] == "b"]["capacity"].isna().all()


def test_a_label_without_a_graded_probe_has_no_row() -> None:
    rows = speed_accuracy.per_label(summary(), graded("a"), nodes())
    assert list(rows["label"]) == ["a"]


def test_the_chart_has_one_point_per_label_with_its_interval_on_accuracy() -> None:
    chart = speed_accuracy.chart(speed_accuracy.per_label(summary(), graded("a", "b"), nodes()))
    assert chart is not None
    points = [(s.texts, s.x.tolist(), s.y.tolist()) for s in chart.series]
    assert points == [(["a"], [80.0], [90.0]), (["b"], [95.0], [120.0])]
    assert all(np.allclose([s.x_low[0], s.x_high[0]], [70.0, 90.0]) for s in chart.series)


def test_one_label_draws_no_chart() -> None:
    assert speed_accuracy.chart(speed_accuracy.per_label(summary(), graded("a"), nodes())) is None
