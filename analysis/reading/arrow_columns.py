"""A columnar run's records (``requests.parquet/``) as the loader's column arrays, column by
column: only the columns the analysis reads come off the disk, numbers go from Arrow buffers to
numpy arrays and repeated text from Arrow's dictionaries to pandas categoricals, with no Python
object per record (issue 47: 10,000,000 records in bounded memory).

What it gives is what ``load``'s reader of JSON lines gives for the same records (the same
names, dtypes and missing values: NaN for a number, "" for a text, None for a histogram), so
everything downstream reads one kind of column whatever wrote the run. Two things still cost a
Python object per record, and only where records carry them: ``extra`` (a workload's own fields,
one JSON text per record) and ``spec_histogram`` (a list per record).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

import numpy as np
import orjson
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from analysis.reading import per_request, pooled
from sparkload.records import PHASE_MEASURE, STATUS_OK
from sparkload.records.requests_files import RequestsReader

EXTRA = "extra"  # columnar.EXTRA_COLUMN: a workload's fields, JSON text


def _floats(column: pa.Array) -> np.ndarray:
    """Any numeric or boolean column as float64, null → NaN."""
    return pc.cast(column, pa.float64()).to_numpy(zero_copy_only=False)


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


def read(
    reader: RequestsReader,
    numeric: Iterable[str],
    texts: Iterable[str],
    extra_numeric: Iterable[str],
    extra_texts: Iterable[str],
    floats_of: Callable[[list], np.ndarray],
) -> dict[str, np.ndarray | pd.Categorical]:
    """The loader's columns of every record of ``reader``'s run: ``numeric`` fields as floats,
    ``texts`` as categoricals ("" where none), ``extra_<name>`` of ``extra``'s fields (numbers
    through ``floats_of``, the loader's own rule for a JSON value), per_request.FIELDS,
    ``measure``, ``ok``, ``error_kind`` (NaN where none) and ``reasoning_counted_by``."""
    numeric, texts = tuple(numeric), tuple(texts)
    extra_numeric, extra_texts = tuple(extra_numeric), tuple(extra_texts)
    text_fields = tuple(dict.fromkeys((*texts, per_request.CATEGORY, "reasoning_counted_by")))
    wanted = [*numeric, *per_request.SERVER_FIELDS, per_request.HISTOGRAM, *text_fields]
    wanted += ["phase", "status", "error_kind", EXTRA]
    wanted = list(dict.fromkeys(wanted))  # "phase" is a text field too
    parts: dict[str, list] = {}

    def add(name: str, values) -> None:
        parts.setdefault(name, []).append(values)

    for batch in reader.arrow_batches(wanted):
        n = batch.num_rows
        for name in (*numeric, *per_request.SERVER_FIELDS):
            add(name, pooled.absent_as_sparse(_floats(batch.column(name))))
        for name in text_fields:
            add(name, _categorical(batch.column(name)))
        add("error_kind", _categorical(batch.column("error_kind"), missing=None))
        add("measure", _equals(batch.column("phase"), PHASE_MEASURE))
        add("ok", _equals(batch.column("status"), STATUS_OK))
        histograms = np.full(n, None, dtype=object)
        lists = batch.column(per_request.HISTOGRAM)
        if lists.null_count < n:
            histograms[:] = [per_request.histogram(h) for h in lists.to_pylist()]
        add(per_request.HISTOGRAM, pooled.absent_as_sparse(histograms))
        extras = _extras(batch.column(EXTRA))
        for name in extra_numeric:
            add(
                f"extra_{name}",
                pooled.absent_as_sparse(
                    np.full(n, np.nan)
                    if extras is None
                    else floats_of([e.get(name) if e else None for e in extras])
                ),
            )
        for name in extra_texts:
            values = [""] * n if extras is None else [_text(e, name) for e in extras]
            add(f"extra_{name}", pd.Categorical(values))
    # each column's pieces let go once it is joined, not after the last column (a run's
    # columns twice over: 1.2 GB more at 2,000,000 records a run)
    return {name: pooled.joined(parts.pop(name)) for name in list(parts)}


def _text(extra: dict | None, name: str) -> str:
    value = extra.get(name) if extra else None
    return value if isinstance(value, str) else ""
