"""A request record as a row of Arrow columns: the schema of ``RequestRecord`` and the two ways
across (record dicts → a record batch, a record batch → record dicts).

One column per ``RequestRecord`` field, typed by the field's annotation: floats and ints as
64-bit numbers, flags as booleans, repeated text (phase, model, status, error_kind, ...) as
dictionary-encoded strings, the unique ids and the reply text as plain strings, lists as lists.
``extra`` (a workload's own fields, free-form) is one JSON text column; anything a record holds
that the schema has no column for, or a value not of its column's type (a newer worker's field,
a server's odd usage figure), rides in the JSON column ``_unknown`` and comes back under its own
key, so a record dict survives the trip whole.

A record dict read back equals the one written, but for two things JSON lines never told apart
either: a float NaN reads as None (orjson writes NaN as null), and a field the record lacked
reads as None (left out again where ``RequestRecord.to_dict`` leaves it out when None).

pyarrow is imported by the master and the analysis only, never by a worker that just measures
(``sparkload.records`` does not import this module).
"""

from __future__ import annotations

import types
import typing
from collections.abc import Iterable, Iterator
from dataclasses import fields
from typing import Any

import orjson
import pyarrow as pa

from sparkload.records.requests import OMITTED_WHEN_NONE, RequestRecord

# What the file's own metadata calls its layout (a reader refuses a layout it does not know).
COLUMNAR_LAYOUT_KEY = b"sparkload.records.layout"
COLUMNAR_LAYOUT = b"1"
EXTRA_COLUMN = "extra"  # RequestRecord.extra as JSON text
UNKNOWN_COLUMN = "_unknown"  # fields without a column, and values not of their column's type
# Text unique to each record: a dictionary would only grow (plain strings, compressed on disk).
_UNIQUE_TEXT = ("request_id", "response_id", "output_text", "error")
_DICTIONARY_TEXT = pa.dictionary(pa.int32(), pa.string())


def _arrow_type(name: str, hint: Any) -> pa.DataType:
    """A record field's column type, from its annotation."""
    args = [arg for arg in typing.get_args(hint) if arg is not type(None)]
    if typing.get_origin(hint) in (typing.Union, types.UnionType):
        hint = args[0]
    if typing.get_origin(hint) is list:
        return pa.list_(_arrow_type(name, typing.get_args(hint)[0]))
    if hint is bool:
        return pa.bool_()
    if hint is int:
        return pa.int64()
    if hint is float:
        return pa.float64()
    if hint is str:
        return pa.string() if name in _UNIQUE_TEXT else _DICTIONARY_TEXT
    if hint is dict:
        return pa.string()  # JSON text
    raise TypeError(f"RequestRecord.{name}: no column type for {hint!r}")


def _schema() -> pa.Schema:
    hints = typing.get_type_hints(RequestRecord)
    columns = [pa.field(f.name, _arrow_type(f.name, hints[f.name])) for f in fields(RequestRecord)]
    return pa.schema(
        [*columns, pa.field(UNKNOWN_COLUMN, pa.string())],
        metadata={COLUMNAR_LAYOUT_KEY: COLUMNAR_LAYOUT},
    )


SCHEMA = _schema()
_FIELD_NAMES = tuple(f.name for f in fields(RequestRecord))
_KNOWN = frozenset(_FIELD_NAMES)
_OMITTED = frozenset(OMITTED_WHEN_NONE)
_CONVERSION_ERRORS = (pa.ArrowInvalid, pa.ArrowTypeError, TypeError, ValueError, OverflowError)


def _json(value: object) -> str:
    return orjson.dumps(value, option=orjson.OPT_NON_STR_KEYS).decode()


def _column(name: str, kind: pa.DataType, values: list, unknown: list[dict | None]) -> pa.Array:
    """One column of a batch; a value not of the column's type goes to the record's
    ``unknown`` (its place in the column is null). Floats' NaN are null, as in JSON lines."""
    try:
        return pa.array(values, type=kind, from_pandas=True)
    except _CONVERSION_ERRORS:
        pass
    fitting: list = []
    for row, value in enumerate(values):
        try:
            pa.array([value], type=kind, from_pandas=True)
            fitting.append(value)
        except _CONVERSION_ERRORS:
            fitting.append(None)
            unknown[row] = {**(unknown[row] or {}), name: value}
    return pa.array(fitting, type=kind, from_pandas=True)


def to_batch(records: list[dict]) -> pa.RecordBatch:
    """Record dicts (``RequestRecord.to_dict``'s, or a JSON line's) as one record batch."""
    unknown: list[dict | None] = [None] * len(records)
    for row, record in enumerate(records):
        if not _KNOWN.issuperset(record):
            unknown[row] = {key: value for key, value in record.items() if key not in _KNOWN}
    columns = []
    for field in SCHEMA:
        name = field.name
        if name == UNKNOWN_COLUMN:
            continue
        values = [record.get(name) for record in records]
        if name == EXTRA_COLUMN:
            values = [_json(extra) if extra else None for extra in values]
        columns.append(_column(name, field.type, values, unknown))
    columns.append(pa.array([_json(u) if u else None for u in unknown], type=pa.string()))
    return pa.RecordBatch.from_arrays(columns, schema=SCHEMA)


def to_records(batch: pa.RecordBatch | pa.Table) -> Iterator[dict]:
    """The record dicts of a batch, each as ``to_batch`` was given it (see the module's note)."""
    if batch.schema.metadata is None or (
        batch.schema.metadata.get(COLUMNAR_LAYOUT_KEY) != COLUMNAR_LAYOUT
    ):
        raise ValueError("not a sparkload records layout this version reads")
    names = batch.schema.names
    for row in zip(*(batch.column(i).to_pylist() for i in range(len(names))), strict=True):
        record: dict[str, Any] = {}
        unknown = None
        for name, value in zip(names, row, strict=True):
            if name == UNKNOWN_COLUMN:
                unknown = value
            elif name == EXTRA_COLUMN:
                if value is not None:
                    record[name] = orjson.loads(value)
            elif value is not None or name not in _OMITTED:
                record[name] = value
        if unknown is not None:
            record.update(orjson.loads(unknown))
        yield record


def batches_of(records: Iterable[dict], size: int) -> Iterator[pa.RecordBatch]:
    """Record dicts as record batches of at most ``size`` records each."""
    chunk: list[dict] = []
    for record in records:
        chunk.append(record)
        if len(chunk) >= size:
            yield to_batch(chunk)
            chunk = []
    if chunk:
        yield to_batch(chunk)
