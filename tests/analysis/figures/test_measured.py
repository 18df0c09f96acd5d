"""The measured answered requests by position: the groups pandas would make, a chunk of records
at a time."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from analysis.figures import measured
from analysis.figures.measured import group_positions, measured_ok_positions


@pytest.fixture
def records(monkeypatch) -> pd.DataFrame:
    """Eleven records in no order of label or level, grouped three at a time; the labels'
    categories in an order of their own (pandas orders their groups by it)."""
    monkeypatch.setattr(measured, "GROUPED_AT_ONCE", 3)
    labels = ["b", "a", "b", "c", "a", "b", "a", "c", "b", "a", "b"]
    return pd.DataFrame(
        {
            "label": pd.Categorical(labels, categories=["c", "b", "a"]),
            "level": [4, 1, 1, 2, 4, 4, 1, 2, 1, 4, 4],
            "measure": [True, True, True, True, False, True, True, True, True, True, False],
            "ok": [True, False, True, True, True, True, True, True, True, True, True],
        }
    )


def _as_lists(groups: dict[tuple, np.ndarray]) -> list[tuple[tuple, list[int]]]:
    return [(key, index.tolist()) for key, index in groups.items()]


def test_groups_are_pandas_groups_in_pandas_order_across_chunks(records):
    expected = records.groupby(["label", "level"], observed=True).indices
    assert _as_lists(group_positions(records, ["label", "level"])) == _as_lists(expected)


def test_only_the_marked_records_are_kept_and_a_group_without_any_is_left_out(records):
    among = np.zeros(len(records), bool)
    among[[0, 5, 3]] = True
    groups = group_positions(records, ["label", "level"], among)
    assert _as_lists(groups) == [(("c", 2), [3]), (("b", 4), [0, 5])]


def test_measured_ok_positions_are_the_measured_answered_records_of_each_group(records):
    groups = measured_ok_positions(records, ["label", "level"])
    assert _as_lists(groups) == [
        (("c", 2), [3, 7]),
        (("b", 1), [2, 8]),
        (("b", 4), [0, 5]),
        (("a", 1), [6]),
        (("a", 4), [9]),
    ]
