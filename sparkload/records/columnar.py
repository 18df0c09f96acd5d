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
import pyarrow.json as pa_json

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


_NONE = type(None)
_INTS: frozenset[type] = frozenset((int, _NONE))
_FLOATS: frozenset[type] = frozenset((float, int, _NONE))
_LISTS: frozenset[type] = frozenset((list, _NONE))


def _all_of(values: list, types_: frozenset[type]) -> bool:
    return set(map(type, values)) <= types_


def _ints(values: list) -> bool:
    return _all_of(values, _INTS)


def _floats(values: list) -> bool:
    return _all_of(values, _FLOATS)


def _int_lists(values: list) -> bool:
    return _all_of(values, _LISTS) and _ints([item for value in values if value for item in value])


def _float_lists(values: list) -> bool:
    return _all_of(values, _LISTS) and _floats(
        [item for value in values if value for item in value]
    )


# What pyarrow would convert with a loss (a float into an int column: truncated; a flag into a
# float column: 1.0), checked here, a column at a time; it refuses every other misfit itself.
_CHECKS = {
    pa.int64(): _ints,
    pa.float64(): _floats,
    pa.list_(pa.int64()): _int_lists,
    pa.list_(pa.float64()): _float_lists,
}


def _column(name: str, kind: pa.DataType, values: list, unknown: list[dict | None]) -> pa.Array:
    """One column of a batch; a value not of the column's type goes to the record's
    ``unknown`` (its place in the column is null). Floats' NaN are null, as in JSON lines."""
    check = _CHECKS.get(kind)
    if check is None or check(values):
        try:
            return pa.array(values, type=kind, from_pandas=True)
        except _CONVERSION_ERRORS:
            pass
    fitting: list = []
    for row, value in enumerate(values):
        try:
            if check is not None and not check([value]):
                raise TypeError(name)
            pa.array([value], type=kind)
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
    """The record dicts of a batch, each as ``to_batch`` was given it (see the module's note),
    its keys in ``RequestRecord.to_dict``'s order."""
    if batch.schema.metadata is None or (
        batch.schema.metadata.get(COLUMNAR_LAYOUT_KEY) != COLUMNAR_LAYOUT
    ):
        raise ValueError("not a sparkload records layout this version reads")
    rows = batch.num_rows
    names: list[str] = []
    values: list[list] = []
    sparse: list[str] = []  # left out where None, and None in some rows here
    extras: list = [None] * rows
    unknowns: list = [None] * rows
    for name, column in zip(batch.schema.names, batch.columns, strict=True):
        if name == EXTRA_COLUMN:
            extras = column.to_pylist()
        elif name == UNKNOWN_COLUMN:
            unknowns = column.to_pylist()
        elif name not in _OMITTED or column.null_count < rows:
            names.append(name)
            values.append(column.to_pylist())
            if name in _OMITTED and column.null_count:
                sparse.append(name)
    for row, extra, unknown in zip(zip(*values, strict=True), extras, unknowns, strict=True):
        record = dict(zip(names, row, strict=True))
        for name in sparse:
            if record[name] is None:
                del record[name]
        if extra is not None:
            record[EXTRA_COLUMN] = orjson.loads(extra)
        if unknown is not None:
            record.update(orjson.loads(unknown))
        yield record


def side_columns(record: dict) -> tuple[str | None, str | None]:
    """The two JSON text columns of a record dict: its ``extra``, and its fields the schema has
    no column for (``_unknown``; values not of their column's type are not looked for here)."""
    extra = record.get(EXTRA_COLUMN)
    unknown = None
    if not _KNOWN.issuperset(record):
        unknown = _json({key: value for key, value in record.items() if key not in _KNOWN})
    return (_json(extra) if extra else None), unknown


# The typed columns as read from JSON text: dictionaries are encoded after (the reader makes
# plain strings), extra and _unknown come from ``side_columns``.
_TYPED = pa.schema(
    [
        pa.field(f.name, pa.string() if pa.types.is_dictionary(f.type) else f.type)
        for f in SCHEMA
        if f.name not in (EXTRA_COLUMN, UNKNOWN_COLUMN)
    ]
)
_JSON_PARSE = pa_json.ParseOptions(explicit_schema=_TYPED, unexpected_field_behavior="ignore")
_JSON_READ = pa_json.ReadOptions(block_size=16 << 20)


def lines_table(path: str, sides: list[tuple[str | None, str | None]]) -> pa.Table | None:
    """The records of a JSON lines file (``record_line``'s, one a record) as a table, read by
    Arrow's C++ JSON reader (a third of ``to_batch``'s CPU, and without the GIL); ``sides`` are
    the records' ``side_columns``. None when a value does not fit its column as read (the reader
    refuses a float in an int column, a flag in a float column, text in a number's): such
    records go through ``to_batch``, which keeps the value in ``_unknown``."""
    try:
        typed = pa_json.read_json(path, read_options=_JSON_READ, parse_options=_JSON_PARSE)
    except pa.ArrowException:
        return None
    if typed.num_rows != len(sides):
        return None
    extras, unknowns = zip(*sides, strict=True) if sides else ((), ())
    columns = [
        pa.array(extras, type=pa.string())
        if field.name == EXTRA_COLUMN
        else pa.array(unknowns, type=pa.string())
        if field.name == UNKNOWN_COLUMN
        else typed.column(field.name).cast(field.type)
        for field in SCHEMA
    ]
    return pa.Table.from_arrays(columns, schema=SCHEMA)


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
