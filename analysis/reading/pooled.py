"""Every run's batches of record columns as one frame, built a column at a time (``load`` calls
it).

At 10,000,000 records the frame is most of the analysis' memory, so it is never held twice:
each column is joined from its batches and the batches' pieces let go before the next column
(joining each run's columns first held a run twice over, the runs before it besides), and the frame
takes the joined arrays as they are (no copy into pandas' blocks). A float column that no run
has a value in stays sparse (all NaN, no memory per record); text columns are categoricals
whose categories are the texts used, sorted, whatever the runs held.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from pandas.api.types import union_categoricals

from analysis import allocator


def absent_as_sparse(values):
    """A column without a single value as a sparse one (no memory per record): a float column
    all NaN, or an object column all None (the accepted-drafts histograms of a run without
    drafting). A plain run's records carry no reasoning, server or workload figures, about 40
    columns that at 10,000,000 records would be 3.2 GB of NaN."""
    if not isinstance(values, np.ndarray):
        return values
    if values.dtype.kind == "f" and np.isnan(values).all():
        return absent(len(values))
    if values.dtype.kind == "O" and all(value is None for value in values):
        return absent(len(values), object)
    return values


def has_values(values) -> bool:
    """Whether a column holds any value: a sparse one (``absent``) holds none."""
    if isinstance(values, pd.arrays.SparseArray):
        return values.npoints > 0
    return bool(np.isfinite(np.asarray(values, np.float64)).any())


def absent(length: int, dtype: type = np.float64) -> pd.arrays.SparseArray:
    """A column of ``length`` without values (NaN), sparse without ever being dense (80 MB at
    10,000,000 records, for each of a run's forty such columns in turn)."""
    return pd.arrays.SparseArray.from_indices(
        np.empty(0, dtype=dtype), np.empty(0, np.int64), length, np.nan, dtype=dtype
    )


def one_text_shared(values: pd.Categorical) -> pd.Categorical:
    """A text column that holds one text for every record (most of a plain run's fifteen: ""
    throughout) with that one code shared, read-only, by every record: no memory per record
    (135 MB of codes at 10,000,000 records)."""
    codes = values.codes
    if len(values.categories) != 1 or not len(codes) or codes.min() != 0 or codes.max() != 0:
        return values
    return pd.Categorical.from_codes(
        np.broadcast_to(codes.dtype.type(0), len(codes)), categories=values.categories
    )


def as_text(values: pd.Categorical) -> pd.Categorical:
    """The categories as text, so that pieces join whatever their own categories' dtype (a
    piece with no text at all has object categories, one with some has strings)."""
    return pd.Categorical.from_codes(values.codes, categories=values.categories.astype(str))


def joined(pieces: list) -> np.ndarray | pd.Categorical | pd.arrays.SparseArray:
    """One column from its pieces (a run's batches, or the runs'): sparse where no piece has a
    value, a categorical of the texts used, sorted, whatever each piece's categories were (made
    so piece by piece: a pooled column's unique codes cost a sort of 10,000,000), else joined."""
    if all(isinstance(p, pd.arrays.SparseArray) for p in pieces):
        return absent(sum(len(p) for p in pieces), pieces[0].dtype.subtype)
    if any(isinstance(p, pd.Categorical) for p in pieces):
        used = [as_text(pd.Categorical(p).remove_unused_categories()) for p in pieces]
        return one_text_shared(union_categoricals(used, sort_categories=True, ignore_order=True))
    return np.concatenate([np.asarray(p) for p in pieces])


def frame(batches: list[dict]) -> pd.DataFrame:
    """One frame of every batch's columns, in order (each batch's dict is emptied)."""
    names = list(batches[0])
    columns = {}
    for name in names:
        columns[name] = joined([batch.pop(name) for batch in batches])
        allocator.give_back()  # the batches' pieces of this column (analysis/allocator.py)
    return pd.DataFrame(columns, copy=False)
