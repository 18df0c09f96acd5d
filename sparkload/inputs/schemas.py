"""Structured output: the ``--response-format`` a run asks for, and each reply's verdict.

``json_object`` asks for any JSON object; ``json_schema:FILE`` for JSON matching the schema in
``FILE``; ``json_schema:builtin-NAME`` for one of ``BUILTIN_SCHEMAS``, of growing difficulty
(``flat``: a flat object; ``nested``: nested objects with enums; ``array``: an array of objects).
A schema file is read and checked once, before any load, with the ``jsonschema`` library (the
maintained reference implementation of JSON Schema): a file that is not JSON, not an object, or
that the library rejects (``check_schema`` under the schema's own ``$schema`` draft) is one
``ConfigError`` line naming the file and the problem.

Each reply is judged strictly (``ReplyChecker.verdict``): the reply's content (never its
reasoning) must parse as JSON as it is; whitespace around it is JSON's own and allowed, a
markdown fence (```json ... ```) is not stripped and reads as a ``parse_error``: a server that
decodes under the grammar sends bare JSON, and a lenient checker would hide a reply a client
parsing it would reject. A reply cut by ``max_tokens`` (finish_reason ``length``) is
``truncated``, whatever its text. A ``parse_error`` is named by its kind
(``parse_error_kind``, ``RequestRecord.structured_error``): empty, not JSON at all, a raw control
character in a string (vLLM's grammar lets them through), incomplete, trailing data, or another
syntax error.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import jsonschema
import orjson

from sparkload.errors import ConfigError
from sparkload.inputs import files
from sparkload.records import (
    PARSE_CONTROL_CHARACTER,
    PARSE_EMPTY,
    PARSE_INCOMPLETE,
    PARSE_NOT_JSON,
    PARSE_SYNTAX,
    PARSE_TRAILING_DATA,
    STRUCTURED_PARSE_ERROR,
    STRUCTURED_SCHEMA_ERROR,
    STRUCTURED_TRUNCATED,
    STRUCTURED_VALID,
)

JSON_OBJECT = "json_object"
JSON_SCHEMA = "json_schema"
BUILTIN = "builtin-"

_NAME = {"type": "string", "minLength": 1, "maxLength": 40}
_COUNT = {"type": "integer", "minimum": 0, "maximum": 1000}
BUILTIN_SCHEMAS: dict[str, dict[str, Any]] = {
    "flat": {
        "type": "object",
        "properties": {"name": _NAME, "age": _COUNT, "member": {"type": "boolean"}},
        "required": ["name", "age", "member"],
        "additionalProperties": False,
    },
    "nested": {
        "type": "object",
        "properties": {
            "title": _NAME,
            "priority": {"type": "string", "enum": ["low", "medium", "high"]},
            "owner": {
                "type": "object",
                "properties": {
                    "name": _NAME,
                    "role": {"type": "string", "enum": ["author", "reviewer", "maintainer"]},
                },
                "required": ["name", "role"],
                "additionalProperties": False,
            },
            "estimate": {"type": "number", "minimum": 0},
        },
        "required": ["title", "priority", "owner", "estimate"],
        "additionalProperties": False,
    },
    "array": {
        "type": "object",
        "properties": {
            "items": {
                "type": "array",
                "minItems": 1,
                "maxItems": 5,
                "items": {
                    "type": "object",
                    "properties": {
                        "sku": _NAME,
                        "quantity": {"type": "integer", "minimum": 1},
                        "status": {"type": "string", "enum": ["in_stock", "backorder"]},
                    },
                    "required": ["sku", "quantity", "status"],
                    "additionalProperties": False,
                },
            }
        },
        "required": ["items"],
        "additionalProperties": False,
    },
}


@dataclass(frozen=True)
class ResponseFormat:
    """What every request of a run asks its reply to be: any JSON object, or a schema's."""

    kind: str  # JSON_OBJECT | JSON_SCHEMA
    name: str = ""  # the schema's name in the request (the file's stem, or the built-in's)
    schema: dict[str, Any] = field(default_factory=dict)
    # the option's text (json_schema:FILE): the value back on a command line
    given: str = field(default="", compare=False)

    def __str__(self) -> str:
        """The option's text: a matrix writes its runs' command lines with it."""
        return self.given

    def body(self) -> dict[str, Any]:
        """OpenAI's chat ``response_format`` field (strict: the server must keep to it)."""
        if self.kind == JSON_OBJECT:
            return {"type": JSON_OBJECT}
        return {
            "type": JSON_SCHEMA,
            JSON_SCHEMA: {"name": self.name, "schema": self.schema, "strict": True},
        }


def parse_response_format(flag: str, value: Any) -> ResponseFormat | None:
    """The option's value: empty (no format), ``json_object``, ``json_schema:FILE`` or
    ``json_schema:builtin-NAME``; a ConfigError of one line otherwise."""
    if isinstance(value, ResponseFormat) or value is None:
        return value
    text = str(value).strip()
    if not text:
        return None
    if text == JSON_OBJECT:
        return ResponseFormat(JSON_OBJECT, given=text)
    kind, _, source = text.partition(":")
    if kind != JSON_SCHEMA or not source:
        builtins = ", ".join(BUILTIN + name for name in BUILTIN_SCHEMAS)
        raise ConfigError(
            f"{flag}: {text!r}: give json_object, json_schema:FILE or json_schema:NAME ({builtins})"
        )
    if source.startswith(BUILTIN):
        name = source.removeprefix(BUILTIN)
        if name not in BUILTIN_SCHEMAS:
            raise ConfigError(
                f"{flag}: no built-in schema {name!r}; give one of {', '.join(BUILTIN_SCHEMAS)}"
            )
        return ResponseFormat(JSON_SCHEMA, name, BUILTIN_SCHEMAS[name], text)
    path = Path(source).expanduser()
    return ResponseFormat(JSON_SCHEMA, _schema_name(path.stem), read_schema(flag, path), text)


def read_schema(flag: str, path: Path) -> dict[str, Any]:
    """The JSON Schema in ``path``, checked by ``jsonschema`` under its own draft."""
    return checked_schema(f"{flag}: {path}", files.read(flag, path).json())


def checked_schema(where: str, schema: Any) -> dict[str, Any]:
    """``schema`` if it is a JSON Schema object the library accepts; a ConfigError naming
    ``where`` and the problem otherwise."""
    if not isinstance(schema, dict):
        raise ConfigError(f"{where}: not a JSON Schema (a schema is a JSON object)")
    try:
        jsonschema.validators.validator_for(schema).check_schema(schema)
    except jsonschema.SchemaError as exc:
        at = "/".join(str(part) for part in exc.path) or "the top"
        raise ConfigError(f"{where}: not a valid JSON Schema at {at}: {exc.message}") from None
    return schema


def _schema_name(stem: str) -> str:
    """A name OpenAI accepts (letters, digits, ``_`` and ``-``, at most 64)."""
    name = "".join(c if c.isalnum() or c in "_-" else "_" for c in stem)[:64]
    return name or "schema"


class ReplyChecker:
    """The verdict on each reply of a run's format; the validator is compiled once a run."""

    def __init__(self, response_format: ResponseFormat) -> None:
        self.object_only = response_format.kind == JSON_OBJECT
        schema = response_format.schema
        self._validator = (
            None if self.object_only else jsonschema.validators.validator_for(schema)(schema)
        )

    def verdict(self, text: str, finish_reason: str | None) -> str:
        """``STRUCTURED_*`` of one reply's content (see the module's docstring)."""
        if finish_reason == "length":
            return STRUCTURED_TRUNCATED
        try:
            value = orjson.loads(text)
        except orjson.JSONDecodeError:
            return STRUCTURED_PARSE_ERROR
        if self._validator is None:
            return STRUCTURED_VALID if isinstance(value, dict) else STRUCTURED_SCHEMA_ERROR
        return STRUCTURED_VALID if self._validator.is_valid(value) else STRUCTURED_SCHEMA_ERROR


JSON_STARTS = frozenset('{["-0123456789tfn')  # what a JSON text's first character can be


def parse_error_kind(text: str) -> str:
    """Why ``text`` (a reply the checker could not parse) is not JSON: one of
    ``PARSE_ERROR_KINDS``, from the standard library's reading of the same text (only failed
    replies are read twice)."""
    stripped = text.strip()
    if not stripped:
        return PARSE_EMPTY
    if stripped[0] not in JSON_STARTS:
        return PARSE_NOT_JSON
    try:
        json.loads(stripped)
    except json.JSONDecodeError as exc:
        if exc.msg.startswith("Invalid control character"):
            return PARSE_CONTROL_CHARACTER
        if exc.msg == "Extra data":
            return PARSE_TRAILING_DATA
        if exc.pos >= len(stripped) or exc.msg.startswith("Unterminated string"):
            return PARSE_INCOMPLETE
    return PARSE_SYNTAX
