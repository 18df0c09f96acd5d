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
