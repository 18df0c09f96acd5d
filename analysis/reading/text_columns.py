"""Per-record tests of the loader's text columns (categoricals), made on their categories and
codes: a test per distinct text, not a Python string per record, which at 10,000,000 records
cost seconds each time a table asked (issue 47)."""

from __future__ import annotations

import numpy as np
import pandas as pd


def equals(column: pd.Series, value: str) -> np.ndarray:
    """Per record, whether the text is ``value``: what ``column.astype(str) == value`` says
    (a missing text reads as "nan")."""
    if not isinstance(column.dtype, pd.CategoricalDtype):
        return column.astype(str).to_numpy() == value
    # a missing text's code, -1, indexes the last entry: whether "nan" is ``value``
    matches = np.array([str(c) == value for c in column.cat.categories] + [value == "nan"])
    return matches[column.cat.codes.to_numpy()]


_AT_ONCE = 1 << 20  # records read at a time: the temporaries of a million, not of all


def distinct_by_label(records: pd.DataFrame, column: str, among: np.ndarray) -> dict[str, int]:
    """Per label with any, how many different texts of ``column`` its records marked in
    ``among`` hold (a missing text not counted, as ``nunique``), from the columns' codes: a
    selection of the two columns and pandas' grouping of it held some 300 MB at 10,000,000."""
    labels, texts = records["label"], records[column]
    if not isinstance(texts.dtype, pd.CategoricalDtype):
        texts = texts.astype("category")
    label_codes, text_codes = labels.cat.codes.to_numpy(), texts.cat.codes.to_numpy()
    # a missing text's code, -1, marks the last column, left out of the count
    seen = np.zeros((len(labels.cat.categories), len(texts.cat.categories) + 1), bool)
    for start in range(0, len(records), _AT_ONCE):
        part = slice(start, start + _AT_ONCE)
        chosen = among[part]
        seen[label_codes[part][chosen], text_codes[part][chosen]] = True
    counts = seen[:, :-1].sum(axis=1)
    return {str(label): int(n) for label, n in zip(labels.cat.categories, counts, strict=True) if n}
