"""Grading a reply's tool calls against a BFCL item's possible answers (``bfcl`` reads them).

The rules are BFCL's AST checker's (its ``simple``, ``multiple`` and ``parallel`` checkers),
applied to the calls the server streamed back (``transport.tally.ToolCall``, arguments as a
JSON object) rather than to Python source:

1. none wanted (an ``irrelevance`` item): right when nothing is called, else ``unwanted_call``;
   any wanted (a ``relevance`` item): right when anything is called, else ``no_call``;
2. calls wanted, none made: ``no_call``; a call's arguments not a JSON object:
   ``bad_arguments``; as many calls as wanted, else ``wrong_count``;
3. each call, against the wanted call it is matched with (parallel calls in any order, each
   wanted call taking the first unmatched call that passes, as BFCL's no-order checker does):
   the same function (``wrong_function``); every argument the function requires present
   (``missing_argument``); no argument the function or the answer does not know
   (``extra_argument``); each value of its type and among the allowed ones (``wrong_value``);
   an argument left out only where the answer allows ``""`` (``missing_argument``).

A value is among the allowed ones when it equals one of them as BFCL compares: strings with
spaces and ``,./-_*^`` removed, case folded and ``'`` read as ``"``; numbers by value (an int
where a float is asked is accepted; a boolean is never a number); lists element by element in
order; dicts key by key, each key's value among its own allowed values, a key left out only
where ``""`` is allowed. Types are checked as BFCL checks Python's: ``string``, ``integer``,
``float``/``number``, ``boolean``, ``array``/``tuple``, ``dict``/``object``; ``any`` and other
names are not checked.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from typing import Any

from sparkload.quality.items import ToolAnswer
from sparkload.records import (
    BAD_ARGUMENTS,
    EXTRA_ARGUMENT,
    MISSING_ARGUMENT,
    NO_CALL,
    TOOL_CALL_FAILURES,
    UNWANTED_CALL,
    WRONG_COUNT,
    WRONG_FUNCTION,
    WRONG_VALUE,
)
from sparkload.transport.tally import ToolCall

FAILURES = tuple(TOOL_CALL_FAILURES)  # why a tool-call item is wrong (``Grade.failure``)
EXTRACTED_CHARS = 200  # the most of the calls' text kept as the extracted answer
OPTIONAL = ""  # an allowed value that lets the argument be left out
_IGNORED = re.compile(r"[ ,./\-_*^]")
_TYPES: dict[str, tuple[type, ...]] = {
    "string": (str,),
    "integer": (int,),
    "float": (int, float),
    "number": (int, float),
    "boolean": (bool,),
    "array": (list,),
    "tuple": (list,),
    "dict": (dict,),
    "object": (dict,),
}

Said = tuple[str, dict[str, Any] | None]  # a call made: the item's name, arguments (None: bad)


def said_calls(answer: ToolAnswer, calls: Sequence[ToolCall]) -> list[Said]:
    """The calls made, under the item's own names, their arguments parsed."""
    return [(answer.names.get(call.name, call.name), _arguments(call)) for call in calls]


def extracted(said: list[Said]) -> str | None:
    """The calls made as text (``f({"a": 1}); g({})``), what quality.json shows was read."""
    if not said:
        return None
    text = "; ".join(f"{name}({json.dumps(args, ensure_ascii=False)})" for name, args in said)
    return text[:EXTRACTED_CHARS]


def failure(answer: ToolAnswer, said: list[Said]) -> str | None:
    """Why the calls made are wrong (one of ``FAILURES``), or None: they are right."""
    if answer.any_call:
        return None if said else NO_CALL
    if not answer.calls:
        return UNWANTED_CALL if said else None
    if not said:
        return NO_CALL
    if any(args is None for _, args in said):
        return BAD_ARGUMENTS
    if len(said) != len(answer.calls):
        return WRONG_COUNT
    unmatched = [(name, args or {}) for name, args in said]
    for wanted in answer.calls:
        verdicts = [call_failure(answer, wanted, call) for call in unmatched]
        if None in verdicts:
            unmatched.pop(verdicts.index(None))
            continue
        same_name = [v for v, call in zip(verdicts, unmatched, strict=True) if call[0] == wanted[0]]
        return same_name[0] if same_name else WRONG_FUNCTION
    return None


def call_failure(
    answer: ToolAnswer, wanted: tuple[str, dict[str, list[Any]]], call: tuple[str, dict[str, Any]]
) -> str | None:
    """Why one call is not the wanted one (None: it is)."""
    name, args = call
    function, allowed = wanted
    if name != function:
        return WRONG_FUNCTION
    parameters = answer.functions.get(function, {})
    properties = parameters.get("properties") or {}
    required = parameters.get("required") or []
    if any(argument not in args for argument in required):
        return MISSING_ARGUMENT
    if any(argument not in properties or argument not in allowed for argument in args):
        return EXTRA_ARGUMENT
    for argument, value in args.items():
        kind = (properties.get(argument) or {}).get("type")
        if not _of_type(value, kind) or not among(value, allowed[argument]):
            return WRONG_VALUE
    if any(argument not in args and OPTIONAL not in values for argument, values in allowed.items()):
        return MISSING_ARGUMENT
    return None


def among(value: Any, allowed: list[Any]) -> bool:
    """``value`` equals one of the allowed values, as BFCL compares (see the module)."""
    return any(same(value, each) for each in allowed)


def same(value: Any, expected: Any) -> bool:
    if isinstance(value, str) and isinstance(expected, str):
        return standardized(value) == standardized(expected)
    if isinstance(value, bool) or isinstance(expected, bool):
        return type(value) is type(expected) and value == expected
    if isinstance(value, (int, float)) and isinstance(expected, (int, float)):
        return float(value) == float(expected)
    if isinstance(value, list) and isinstance(expected, list):
        return len(value) == len(expected) and all(map(same, value, expected))
    if isinstance(value, dict) and isinstance(expected, dict):
        return _same_dict(value, expected)
    return bool(value == expected)


def standardized(text: str) -> str:
    """A string as BFCL compares it: no spaces or ``,./-_*^``, case folded, ``'`` as ``"``."""
    return _IGNORED.sub("", text).lower().replace("'", '"')


def _same_dict(value: dict[str, Any], expected: dict[str, Any]) -> bool:
    """Key by key; an expected key's value is its allowed values (a list) or the one value."""

    def options(key: str) -> list[Any]:
        found = expected[key]
        return found if isinstance(found, list) else [found]

    if any(key not in expected or not among(each, options(key)) for key, each in value.items()):
        return False
    return all(key in value or OPTIONAL in options(key) for key in expected)


def _of_type(value: Any, kind: Any) -> bool:
    wanted = _TYPES.get(kind) if isinstance(kind, str) else None
    if wanted is None:
        return True
    if isinstance(value, bool) and bool not in wanted:
        return False
    return isinstance(value, wanted)


def _arguments(call: ToolCall) -> dict[str, Any] | None:
    """The call's arguments (none streamed: an empty object), None when not a JSON object."""
    if not call.malformed and not call.arguments.strip():
        return {}
    if not call.arguments_valid:
        return None
    parsed = json.loads(call.arguments)
    return parsed if isinstance(parsed, dict) else None
