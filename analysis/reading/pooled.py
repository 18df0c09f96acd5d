"""Several runs' record columns as one frame, built a column at a time (``load`` calls it).

At 10,000,000 records the frame is most of the analysis' memory, so it is never held twice:
each column is joined from its runs' pieces and the pieces let go before the next column
(``pd.concat`` of whole frames held every run's frame and the pooled one at once), and the frame
takes the joined arrays as they are (no copy into pandas' blocks). A float column that no run
has a value in stays sparse (all NaN, no memory per record); text columns are categoricals
whose categories are the texts used, sorted, whatever the runs held.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from pandas.api.types import union_categoricals


def absent_as_sparse(values):
    """A float column without a single value as a sparse all-NaN column (no memory per record:
    a plain run's records carry no reasoning, server or workload figures, about 40 columns that
    at 10,000,000 records would be 3.2 GB of NaN)."""
    if isinstance(values, np.ndarray) and values.dtype.kind == "f" and np.isnan(values).all():
        return pd.arrays.SparseArray(values)
    return values


def as_text(values: pd.Categorical) -> pd.Categorical:
    """The categories as text, so that pieces join whatever their own categories' dtype (a
    piece with no text at all has object categories, one with some has strings)."""
    return pd.Categorical.from_codes(values.codes, categories=values.categories.astype(str))


def _joined(pieces: list):
    if all(isinstance(p, pd.arrays.SparseArray) for p in pieces):
        return absent_as_sparse(np.full(sum(len(p) for p in pieces), np.nan))
    if any(isinstance(p, pd.Categorical) for p in pieces):
        joined = union_categoricals(
            [as_text(pd.Categorical(p)) for p in pieces], sort_categories=True, ignore_order=True
        )
        return joined.remove_unused_categories()
    return np.concatenate([np.asarray(p) for p in pieces])


def frame(runs: list[dict]) -> pd.DataFrame:
    """One frame of every run's columns, in run order (each run's dict is emptied)."""
    names = list(runs[0])
    columns = {}
    for name in names:
        columns[name] = _joined([run.pop(name) for run in runs])
    return pd.DataFrame(columns, copy=False)
