"""Tests of the loader's text columns made on their categories and codes, not per record."""

from __future__ import annotations

import numpy as np
import pandas as pd

from analysis.reading import text_columns


def frame(labels: list[str], texts: list[str | None]) -> pd.DataFrame:
    return pd.DataFrame({"label": pd.Categorical(labels), "model": pd.Categorical(texts)})


def test_a_text_test_reads_a_missing_text_as_nan():
    records = frame(["a", "a", "b"], ["x", None, "y"])
    assert text_columns.equals(records["model"], "x").tolist() == [True, False, False]
    assert text_columns.equals(records["model"], "nan").tolist() == [False, True, False]


def test_distinct_texts_per_label_count_what_nunique_counts_among_the_chosen_records():
    labels = ["a", "a", "a", "b", "b", "c"]
    texts = ["x", "y", "", "x", None, "z"]
    among = np.array([True, True, True, True, True, False])
    records = frame(labels, texts)
    expected = records[among].groupby("label", observed=True)["model"].nunique()
    assert text_columns.distinct_by_label(records, "model", among) == expected.to_dict()
    assert text_columns.distinct_by_label(records, "model", among) == {"a": 3, "b": 1}
