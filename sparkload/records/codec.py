"""How every entry of the manifest reads from JSON and writes back: one reader and one writer,
driven by the dataclass fields' types.

An entry is a dataclass deriving from ``Entry`` whose fields are typed: ``str``, ``int``,
``float``, ``bool``, None, other entries, ``list[...]`` and ``dict[str, ...]`` of those, unions
of them, and ``JSONValue`` for data kept as it is. ``unknown`` holds what this version could not
read, and writing the entry puts it back as it was: keys it does not know (so a newer writer's
fields survive an older reader) and values of the wrong type. A run directory outlives the code
that wrote it, so reading is lenient:

* a missing field takes its default; so does a value of the wrong type (kept in ``unknown``);
* an entry lacking a required field (one without a default), or holding one of the wrong type,
  cannot be read: an item of a list or mapping is then left out, a field's value takes the
  field's default, and ``from_dict`` raises ValueError;
* ``upgraded`` may turn a legacy form into the current one first (the first manifests named the
  workload with a string).

How a field says "not there" is the field's own: null (the default), left out (``omitted()``:
a value its writer has only sometimes), ``{}`` (``empty()``), or the absence of its keys
(``inline()``: an entry whose fields sit in the enclosing object).

Not pydantic or cattrs: both raise on the wrong-typed values old manifests hold unless every
field gets a validator or hook, and both drop unknown keys unless each model is told to keep
them; this reader is one page driven by the annotations the classes have anyway.
"""

from __future__ import annotations

import copy
import sys
import types
import typing
from dataclasses import MISSING, Field, dataclass, field, fields
from typing import Any, Self, TypeAlias, Union

# Any JSON value, kept as it is (a request's extra body, a workload's own parameters).
JSONValue: TypeAlias = str | int | float | bool | None | list["JSONValue"] | dict[str, "JSONValue"]

_SPELLING = "sparkload.records.spelling"  # a field's metadata key: how JSON says "not there"
_OMITTED, _EMPTY, _INLINE = "omitted", "empty", "inline"


_ABSENT: Any = object()  # the default of an omitted() field not given (None once it exists)


class _Unreadable(Exception):
    """An entry that lacks a required field, or holds one of the wrong type."""


_BAD: Any = object()  # a value that does not read as the type asked for


def omitted() -> Any:
    """A field (default None) left out of the JSON object unless it was given or read: a value
    its writer has only sometimes. Given as None, it is written as null."""
    return field(default=_ABSENT, metadata={_SPELLING: _OMITTED})


def empty() -> Any:
    """An optional entry written as ``{}`` while None (a level's check before the level ends)."""
    return field(default=None, metadata={_SPELLING: _EMPTY})


def inline(optional: bool = False) -> Any:
    """An entry whose fields sit in the enclosing JSON object; ``optional``: it may be absent
    (None, none of its keys written), else it is required."""
    if optional:
        return field(default=None, metadata={_SPELLING: _INLINE})
    return field(metadata={_SPELLING: _INLINE})


@dataclass
class Entry:
    """A JSON object of the results contract (see the module's docstring)."""

    # What this version could not read: unknown keys and values of the wrong type, as read.
    unknown: dict[str, Any] = field(default_factory=dict, kw_only=True)
    # The omitted() fields neither given nor read: left out when written while still None.
    _absent: frozenset[str] = field(default=frozenset(), kw_only=True, repr=False)

    def __post_init__(self) -> None:
        absent = {f.name for f in _own_fields(type(self)) if getattr(self, f.name) is _ABSENT}
        for name in absent:
            setattr(self, name, None)
        if absent:
            self._absent = self._absent | absent

    @classmethod
    def from_dict(cls, data: object) -> Self:
        """The entry a JSON object holds; ValueError when it cannot be read as one."""
        if not isinstance(data, dict):
            raise ValueError(f"{cls.__name__}: not a JSON object")
        try:
            return cls._read(data)
        except _Unreadable as exc:
            raise ValueError(f"{cls.__name__}: {exc}") from None

    @classmethod
    def upgraded(cls, data: dict[str, Any]) -> dict[str, Any]:
        """``data`` in the current form (a class with legacy forms rewrites them here)."""
        return data

    def to_dict(self) -> dict[str, Any]:
        """The JSON object: every field in order (as its spelling says), then ``unknown``."""
        out: dict[str, Any] = {}
        for f in _own_fields(type(self)):
            value, spelling = getattr(self, f.name), f.metadata.get(_SPELLING)
            if value is None and spelling == _EMPTY:
                out[f.name] = {}
            elif spelling == _INLINE:
                out.update(_written(value) if value is not None else {})
            elif value is not None or spelling != _OMITTED or f.name not in self._absent:
                out[f.name] = _written(value)
        out.update(copy.deepcopy(self.unknown))
        return out

    @classmethod
    def _read(cls, data: dict[str, Any], keys_of_its_own: bool = False) -> Self:
        """``keys_of_its_own``: an inline entry, which leaves other keys to the enclosing one."""
        data = cls.upgraded(data)
        values: dict[str, Any] = {}
        unread: set[str] = set()  # fields whose value is of the wrong type: kept in unknown
        read: set[str] = set()
        for f, kind in _schema(cls):
            spelling = f.metadata.get(_SPELLING)
            if spelling == _INLINE:
                inner = _entry_class(kind)
                names = {g.name for g in _own_fields(inner)}
                if names & data.keys():
                    try:
                        values[f.name] = inner._read(data, keys_of_its_own=True)
                        read |= names
                    except _Unreadable:
                        pass
            elif f.name in data:
                raw = data[f.name]
                value = None if spelling == _EMPTY and raw == {} else _value(kind, raw)
                if value is _BAD:
                    unread.add(f.name)
                else:
                    values[f.name] = value
                    read.add(f.name)
        missing = [f.name for f in _own_fields(cls) if f.name not in values and _required(f)]
        if missing:
            raise _Unreadable(f"{', '.join(missing)} missing or not of its type")
        unknown = {
            key: raw
            for key, raw in data.items()
            if key in unread or (key not in read and not keys_of_its_own)
        }
        return cls(**values, unknown=unknown)


def _written(value: Any) -> Any:
    """A field's value as JSON data (a writer may still hand a plain dict for an entry)."""
    if isinstance(value, Entry):
        return value.to_dict()
    if isinstance(value, dict):
        return {key: _written(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [_written(item) for item in value]
    return value


def _value(kind: Any, raw: Any) -> Any:
    """``raw`` (JSON data) read as ``kind``, or ``_BAD``; items that do not read are left out."""
    origin, args = typing.get_origin(kind), typing.get_args(kind)
    if kind is JSONValue:
        return raw
    if origin in (Union, types.UnionType):
        return next((got for arg in args if (got := _value(arg, raw)) is not _BAD), _BAD)
    if origin is list:
        if not isinstance(raw, list):
            return _BAD
        return [got for item in raw if (got := _value(args[0], item)) is not _BAD]
    if origin is dict:
        if not isinstance(raw, dict):
            return _BAD
        return {key: got for key, item in raw.items() if (got := _value(args[1], item)) is not _BAD}
    if kind is None or kind is type(None):
        return None if raw is None else _BAD
    if isinstance(kind, type) and issubclass(kind, Entry):
        if not isinstance(raw, dict):
            return _BAD
        try:
            return kind._read(raw)
        except _Unreadable:
            return _BAD
    if kind is float:
        fits = isinstance(raw, int | float) and not isinstance(raw, bool)
    elif kind is int:
        fits = isinstance(raw, int) and not isinstance(raw, bool)
    else:
        fits = isinstance(raw, kind)
    return raw if fits else _BAD


def _entry_class(kind: Any) -> type[Entry]:
    """The entry class of an inline field's type (``X`` or ``X | None``)."""
    return next(
        arg
        for arg in (kind, *typing.get_args(kind))
        if isinstance(arg, type) and issubclass(arg, Entry)
    )


def _required(f: Field[Any]) -> bool:
    return f.default is MISSING and f.default_factory is MISSING


def _own_fields(cls: type[Entry]) -> tuple[Field[Any], ...]:
    """The fields an entry writes: all but the base's bookkeeping."""
    return tuple(f for f, _ in _schema(cls))


_SCHEMAS: dict[type, tuple[tuple[Field[Any], Any], ...]] = {}


def _schema(cls: type[Entry]) -> tuple[tuple[Field[Any], Any], ...]:
    """Each field an entry writes with its type: its annotation evaluated where its class was
    written (as ``typing.get_type_hints`` does, without unrolling the recursive ``JSONValue``);
    worked out once per class."""
    if cls not in _SCHEMAS:
        annotations: dict[str, Any] = {}
        for klass in reversed(cls.__mro__):
            namespace = vars(sys.modules[klass.__module__])
            for name, annotation in vars(klass).get("__annotations__", {}).items():
                annotations[name] = (
                    eval(annotation, namespace) if isinstance(annotation, str) else annotation
                )
        _SCHEMAS[cls] = tuple(
            (f, annotations[f.name]) for f in fields(cls) if f.name not in ("unknown", "_absent")
        )
    return _SCHEMAS[cls]
