"""A columnar run's record batch (``requests.parquet/``) as the loader's column arrays: only
the columns the analysis reads come off the disk, numbers go from Arrow buffers to numpy arrays
and repeated text from Arrow's dictionaries to pandas categoricals, with no Python object per
record (issue 47: 10,000,000 records in bounded memory).

What it gives is what ``json_columns`` gives for the same records as JSON lines (the same
names, dtypes and missing values: NaN for a number, "" for a text, None for a histogram), so
everything downstream reads one kind of column whatever wrote the run. Two things still cost a
Python object per record, and only where records carry them: ``extra`` (a workload's own fields,
one JSON text per record) and ``spec_histogram`` (a list per record).
"""

from __future__ import annotations

import numpy as np
import orjson
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from analysis.reading import per_request, pooled
from analysis.reading.record_fields import (
    EXTRA_FIELDS,
    EXTRA_TEXT_FIELDS,
    NUMERIC_FIELDS,
    TEXT_FIELDS,
    THINKING_FIELDS,
    floats,
)
from sparkload.records import PHASE_MEASURE, STATUS_OK

EXTRA = "extra"  # columnar.EXTRA_COLUMN: a workload's fields, JSON text


def _floats(column: pa.Array) -> np.ndarray:
    """Any numeric or boolean column as float64, null → NaN, in numpy's own memory: a view of
    Arrow's buffer would keep it from Arrow's pool, which would grow by every batch held until
    the frame is made (900 MB more at 10,000,000 records) instead of reusing one batch's."""
    return np.array(pc.cast(column, pa.float64()).to_numpy(zero_copy_only=False), copy=True)


def _categorical(column: pa.Array, missing: str | None = "") -> pd.Categorical:
    """A dictionary (or plain) text column as a categorical: its dictionary's values become the
    categories, its indices the codes; a null reads as ``missing`` (None: missing, NaN)."""
    if not pa.types.is_dictionary(column.type):
        column = pc.dictionary_encode(column)
    categories = column.dictionary.to_pylist()
    codes = pc.fill_null(column.indices, -1).to_numpy(zero_copy_only=False).astype(np.int32)
    if missing is not None and column.null_count:
        if missing not in categories:
            categories.append(missing)
        codes[codes < 0] = categories.index(missing)
    # a dictionary may hold one value twice (batches written apart): fold them
    unique = list(dict.fromkeys(categories))
    if len(unique) < len(categories):
        remap = np.array([unique.index(c) for c in categories], dtype=np.int32)
        codes = np.where(codes >= 0, remap[np.maximum(codes, 0)], -1)
    return pd.Categorical.from_codes(codes, categories=unique)


def _equals(column: pa.Array, value: str) -> np.ndarray:
    """Per record, whether a text column holds ``value`` (a null never does)."""
    return pc.fill_null(pc.equal(pc.cast(column, pa.string()), value), False).to_numpy(
        zero_copy_only=False
    )


def _extras(column: pa.Array) -> list[dict | None] | None:
    """The records' ``extra`` dicts (None: no record has one, the usual case)."""
    if column.null_count == len(column):
        return None
    return [
        value if isinstance(value, dict) else None
        for value in (
            orjson.loads(text) if text is not None else None for text in column.to_pylist()
        )
    ]


# The records' columns the loader reads off the disk ("phase" is a text field too)
WANTED = list(
    dict.fromkeys(
        [
            *NUMERIC_FIELDS, *THINKING_FIELDS, *per_request.SERVER_FIELDS, per_request.HISTOGRAM,
            *TEXT_FIELDS, per_request.CATEGORY, "reasoning_counted_by", "phase", "status",
            "error_kind", EXTRA,
        ]
    )
)  # fmt: skip
_TEXTS = tuple(dict.fromkeys((*TEXT_FIELDS, per_request.CATEGORY, "reasoning_counted_by")))


def columns(batch: pa.RecordBatch) -> dict[str, np.ndarray | pd.Categorical]:
    """The loader's columns of a record batch of ``WANTED`` (``record_fields.COLUMNS``):
    numbers as floats, texts as categoricals ("" where none), ``extra_<name>`` of ``extra``'s
    fields (numbers by ``record_fields.floats``, the rule for a JSON value), ``measure``,
    ``ok``, ``error_kind`` (NaN where none)."""
    n = batch.num_rows
    out: dict[str, np.ndarray | pd.Categorical] = {}
    for name in (*NUMERIC_FIELDS, *THINKING_FIELDS, *per_request.SERVER_FIELDS):
        out[name] = pooled.absent_as_sparse(_floats(batch.column(name)))
    for name in _TEXTS:
        out[name] = pooled.one_text_shared(_categorical(batch.column(name)))
    out["error_kind"] = _categorical(batch.column("error_kind"), missing=None)
    out["measure"] = _equals(batch.column("phase"), PHASE_MEASURE)
    out["ok"] = _equals(batch.column("status"), STATUS_OK)
    histograms = np.full(n, None, dtype=object)
    lists = batch.column(per_request.HISTOGRAM)
    if lists.null_count < n:
        histograms[:] = [per_request.histogram(h) for h in lists.to_pylist()]
    out[per_request.HISTOGRAM] = pooled.absent_as_sparse(histograms)
    extras = _extras(batch.column(EXTRA))
    for name in EXTRA_FIELDS:
        values = (
            np.full(n, np.nan)
            if extras is None
            else floats([e.get(name) if e else None for e in extras])
        )
        out[f"extra_{name}"] = pooled.absent_as_sparse(values)
    for name in EXTRA_TEXT_FIELDS:
        texts = [""] * n if extras is None else [_text(e, name) for e in extras]
        out[f"extra_{name}"] = pd.Categorical(texts)
    return out


def _text(extra: dict | None, name: str) -> str:
    value = extra.get(name) if extra else None
    return value if isinstance(value, str) else ""
