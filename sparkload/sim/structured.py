"""Structured replies: a chat request's ``response_format`` answered with JSON that matches it.

The reply is an instance of the schema (``instance``: objects with every property, the first
of an enum, one item of an array at least ``minItems``, strings, numbers, booleans within their
bounds), or ``{"answer": ...}`` for ``json_object``; the engine decides the token count as
ever: each answer token carries ``CHARS_PER_TOKEN`` characters of the text, and tokens past its
end a space (JSON's own whitespace). The reply ends with ``finish_reason: stop`` once the text is
out, ``length`` when max_tokens cut it (a truncated reply, as a real server's).

``--schema-error-rate R`` breaks that share of replies on purpose, deterministically for
``--seed``: half of them are not JSON (the text cut in the middle, closed by a stray word), half
are JSON that breaks the schema (a value of the wrong type at the top).
"""

from __future__ import annotations

import json
import random
from dataclasses import dataclass
from typing import Any

from sparkload.sim.textlength import CHARS_PER_TOKEN


def instance(schema: Any) -> Any:
    """A value that matches ``schema`` (the common keywords; anything else reads as a string)."""
    if not isinstance(schema, dict):
        return "text"
    if "const" in schema:
        return schema["const"]
    if schema.get("enum"):
        return schema["enum"][0]
    for combined in ("anyOf", "oneOf", "allOf"):
        if schema.get(combined):
            return instance(schema[combined][0])
    kind = schema.get("type")
    if isinstance(kind, list):
        kind = next((k for k in kind if k != "null"), "null")
    if kind == "object" or (kind is None and "properties" in schema):
        return {name: instance(sub) for name, sub in (schema.get("properties") or {}).items()}
    if kind == "array":
        return [instance(schema.get("items", {}))] * max(1, int(schema.get("minItems", 1)))
    if kind in ("integer", "number"):
        return max(int(schema.get("minimum", 1)), 1) if kind == "integer" else 1.5
    if kind == "boolean":
        return True
    if kind == "null":
        return None
    return "x" * max(min(int(schema.get("minLength", 4)), int(schema.get("maxLength", 4))), 1)


@dataclass(frozen=True)
class PlannedJson:
    """The text of one structured reply, laid out over its answer tokens."""

    text: str

    def piece(self, start: int, stop: int) -> str:
        """The text of answer tokens ``start .. stop - 1``: the reply's, then spaces."""
        end = len(self.text)
        shown = self.text[min(start * CHARS_PER_TOKEN, end) : min(stop * CHARS_PER_TOKEN, end)]
        blank = stop - max(start, -(-end // CHARS_PER_TOKEN))
        return shown + " " * max(blank, 0)

    def complete(self, tokens: int) -> bool:
        """Whether ``tokens`` answer tokens carry the whole text."""
        return tokens * CHARS_PER_TOKEN >= len(self.text)


class StructuredReplier:
    """Plans each structured reply, breaking ``error_rate`` of them (see the module)."""

    def __init__(self, error_rate: float = 0.0, seed: int = 0) -> None:
        self.error_rate = error_rate
        self._rng = random.Random(seed)

    def plan(self, response_format: Any) -> PlannedJson | None:
        """The reply to a request's ``response_format`` (None: it asks for no JSON)."""
        if not isinstance(response_format, dict):
            return None
        kind = response_format.get("type")
        if kind == "json_object":
            value: Any = {"answer": "text"}
        elif kind == "json_schema":
            spec = response_format.get("json_schema")
            value = instance(spec.get("schema") if isinstance(spec, dict) else None)
        else:
            return None
        if self._rng.random() >= self.error_rate:
            return PlannedJson(json.dumps(value))
        if self._rng.random() < 0.5:
            text = json.dumps(value)
            return PlannedJson(text[: len(text) // 2] + " oops")
        wrong = ["not", "what", "was", "asked"] if isinstance(value, dict) else {"not": "asked"}
        return PlannedJson(json.dumps(wrong))
