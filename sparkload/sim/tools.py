"""Tool calls, as vLLM answers a chat request that carries ``tools`` when it serves a tool-calling
model with ``--enable-auto-tool-choice --tool-call-parser qwen3_coder`` (pure: no server).

- ``parse_tools``: a body's ``tools`` and ``tool_choice``, checked as vLLM's request model checks
  them (``ToolsError`` → a 400 with an OpenAI error object), and the tools' text as Qwen3's chat
  template renders it into the prompt (one JSON object a line), which counts as prompt tokens.
- ``ToolCaller.plan``: whether a request is answered with a tool call, which tool, and the call's
  arguments. ``auto`` answers a seeded share (``--tool-call-rate``), ``required`` and a named
  function always, ``none`` never. The n-th request with tools draws from its own generator,
  seeded by ``--seed`` and n, so a run's sequence of answers is the same for a seed whatever the
  lengths asked.
- The arguments are a JSON object that holds to the tool's ``parameters`` schema (``arguments``,
  a small generator by type: objects with their required properties and some optional ones,
  strings, numbers and integers within their bounds, enums, consts, arrays, local ``$ref``s),
  padded (a free string property, else whitespace) to exactly ``CHARS_PER_TOKEN`` characters a
  token of the answer, so the call's length in tokens is the decode length. An answer too
  short to hold them cuts them, as ``max_tokens`` cuts a real call. A ``--tool-call-error-rate``
  share is spoiled on purpose: cut short (the text ends mid-object) or not JSON (single
  quotes), so a client's validity figure can be tested end to end.

Why a generator of our own: the libraries that build instances from a JSON schema
(hypothesis-jsonschema, jsf) bring a property-testing engine or Faker, draw from their own
randomness, and cannot be asked for an instance of a given length; 100 lines cover the schemas
tools have (flat objects of strings, numbers, enums and arrays).
"""

from __future__ import annotations

import json
import math
import random
from dataclasses import dataclass
from typing import Any

from sparkload.sim.textlength import CHARS_PER_TOKEN

AUTO, REQUIRED, NONE, NAMED = "auto", "required", "none", "named"
TOOL_CALL_ID_PREFIX = "chatcmpl-tool-"  # vLLM's make_tool_call_id: chatcmpl-tool-<uuid hex>
NAMED_USAGE = 'Correct usage: `{"type": "function", "function": {"name": "my_function"}}`'
FILLER = "the load test runs on a small box and it must stay fast so we can trust each token "
MAX_DEPTH = 4  # nested objects and arrays deeper than this get their simplest value


class ToolsError(ValueError):
    """A request's ``tools`` or ``tool_choice`` that vLLM would refuse with a 400."""

    def __init__(self, message: str, param: str) -> None:
        super().__init__(message)
        self.param = param


@dataclass(frozen=True)
class ToolRequest:
    """A request's tools as the simulator acts on them."""

    tools: tuple[dict[str, Any], ...]  # each {"type": "function", "function": {...}}
    choice: str  # auto | required | none | named
    name: str | None = None  # the named function (choice named)

    @property
    def calls_possible(self) -> bool:
        """A tool parser reads the answer: there are tools and the choice allows a call."""
        return bool(self.tools) and self.choice != NONE


@dataclass(frozen=True)
class PlannedCall:
    """One tool call to stream: its answer's first token is the call's header (the parser's
    name delta), every later token ``CHARS_PER_TOKEN`` characters of ``arguments``."""

    id: str
    name: str
    arguments: str
    spoiled: str | None = None  # "cut" or "not_json": spoiled on purpose (error rate)

    def argument_text(self, first: int, end: int) -> str:
        """The arguments that answer tokens ``first .. end - 1`` carry (token 0: the header)."""
        first, end = max(first, 1), max(end, 1)
        return self.arguments[(first - 1) * CHARS_PER_TOKEN : (end - 1) * CHARS_PER_TOKEN]

    def message(self) -> dict[str, Any]:
        """The call as a non-streaming response's ``message.tool_calls`` holds it."""
        return {
            "id": self.id,
            "type": "function",
            "function": {"name": self.name, "arguments": self.arguments},
        }


def tools_text(tools: tuple[dict[str, Any], ...] | list[Any]) -> str:
    """The tools as Qwen3's chat template writes them into the system prompt (``tool | tojson``,
    one a line): what they add to a prompt's length and to its cached prefix."""
    return "\n".join(json.dumps(tool, ensure_ascii=False) for tool in tools)


def parse_tools(body: dict[str, Any]) -> ToolRequest | None:
    """The body's tools and tool choice (None: no tools and no choice); ``ToolsError`` for what
    vLLM's ``ChatCompletionRequest`` refuses."""
    tools, choice = body.get("tools"), body.get("tool_choice")
    if tools is None and choice is None:
        return None
    checked = _checked_tools(tools)
    if choice is None:
        choice = AUTO if checked else NONE
    if choice == NONE:
        return ToolRequest(checked, NONE)
    if tools is None:
        raise ToolsError("When using `tool_choice`, `tools` must be set.", "tool_choice")
    if choice in (AUTO, REQUIRED):
        return ToolRequest(checked, choice if checked else NONE)
    if not isinstance(choice, dict):
        raise ToolsError(
            f"Invalid value for `tool_choice`: {choice!r}! Only named tools, "
            '"none", "auto" or "required" are supported.',
            "tool_choice",
        )
    function = choice.get("function")
    if not isinstance(function, dict):
        raise ToolsError(
            f"Invalid value for `function`: `{function}` in `tool_choice`! {NAMED_USAGE}",
            "tool_choice",
        )
    name = function.get("name")
    if not isinstance(name, str) or not name:
        raise ToolsError(
            f"Invalid `name` in `function`: `{name}` in `tool_choice`! {NAMED_USAGE}",
            "tool_choice",
        )
    if not any(tool["function"]["name"] == name for tool in checked):
        raise ToolsError(
            "The tool specified in `tool_choice` does not match any of the specified `tools`",
            "tool_choice",
        )
    return ToolRequest(checked, NAMED, name)


def _checked_tools(tools: Any) -> tuple[dict[str, Any], ...]:
    if tools is None:
        return ()
    if not isinstance(tools, list):
        raise ToolsError("tools: a list of function tools is required", "tools")
    for i, tool in enumerate(tools):
        where = f"tools[{i}]"
        if not isinstance(tool, dict):
            raise ToolsError(f"{where}: an object is required", "tools")
        if tool.get("type", "function") != "function":
            raise ToolsError(f"{where}.type: only 'function' is supported", "tools")
        function = tool.get("function")
        if not isinstance(function, dict):
            raise ToolsError(f"{where}.function: an object is required", "tools")
        name = function.get("name")
        if not isinstance(name, str) or not name:
            raise ToolsError(f"{where}.function.name: a non-empty string is required", "tools")
        if not isinstance(function.get("description", ""), str | None):
            raise ToolsError(f"{where}.function.description: a string is required", "tools")
        if not isinstance(function.get("parameters", {}), dict | None):
            raise ToolsError(
                f"{where}.function.parameters: a JSON schema object is required", "tools"
            )
    return tuple(tools)


class ToolCaller:
    """Decides the server's tool calls, deterministically for a seed (see the module)."""

    def __init__(self, rate: float, error_rate: float = 0.0, seed: int = 0) -> None:
        self.rate, self.error_rate, self.seed = rate, error_rate, seed
        self._drawn = 0

    def plan(self, request: ToolRequest, answer_tokens: int) -> PlannedCall | None:
        """The tool call that answers ``request`` in ``answer_tokens`` tokens, or None (text)."""
        if not request.calls_possible:
            return None
        rng = random.Random(f"sparkload-sim-tools:{self.seed}:{self._drawn}")
        self._drawn += 1
        calls, spoil, pick, kind = rng.random(), rng.random(), rng.random(), rng.random()
        if request.choice == AUTO and calls >= self.rate:
            return None
        if request.choice == NAMED:
            tool = next(t for t in request.tools if t["function"]["name"] == request.name)
        else:
            tool = request.tools[int(pick * len(request.tools))]
        function = tool["function"]
        spoiled = None if spoil >= self.error_rate else "cut" if kind < 0.5 else "not_json"
        length = max(0, answer_tokens - 1) * CHARS_PER_TOKEN  # the header takes the first token
        text, spoiled = arguments(function.get("parameters") or {}, length, rng, spoiled)
        call_id = f"{TOOL_CALL_ID_PREFIX}{rng.getrandbits(128):032x}"
        return PlannedCall(call_id, function["name"], text, spoiled)


def arguments(
    schema: dict[str, Any], length: int, rng: random.Random, spoiled: str | None = None
) -> tuple[str, str | None]:
    """A JSON object for ``schema``, exactly ``length`` characters long: padded where it is
    shorter, without its optional properties where they make it longer, and cut where even then
    it is longer (then not JSON). ``spoiled``: ``cut`` ends it before its end, ``not_json``
    quotes it the Python way (an empty object is cut instead). Returns the text and how it was
    spoiled."""
    value = instance(schema, rng, schema)
    if not isinstance(value, dict):
        value = {}
    room = length + (max(CHARS_PER_TOKEN, length // 4) if spoiled == "cut" else 0)
    if len(json.dumps(value, ensure_ascii=False)) > room:  # the optional ones make no room
        required = _list(_resolved(schema, schema).get("required"))
        value = {key: item for key, item in value.items() if key in required}
    if spoiled == "not_json" and not value:
        spoiled = "cut"
        room = length + max(CHARS_PER_TOKEN, length // 4)
    text = _padded(value, _free_string(schema, value), room)
    if spoiled == "not_json":
        text = text.replace('"', "'")
    return text[:length], spoiled


def _padded(value: dict[str, Any], key: str | None, length: int) -> str:
    text = json.dumps(value, ensure_ascii=False)
    short = length - len(text)
    if short <= 0:
        return text
    if key is not None:
        return json.dumps({**value, key: value[key] + _filler(short)}, ensure_ascii=False)
    return text[:-1] + " " * short + "}"


def _filler(length: int) -> str:
    return (" " + FILLER * (length // len(FILLER) + 1))[:length]


def _free_string(schema: dict[str, Any], value: dict[str, Any]) -> str | None:
    """A top-level string property of ``value`` that any length of filler still fits."""
    for key, prop in _dict(_resolved(schema, schema).get("properties")).items():
        prop = _resolved(prop, schema)
        free = not {"enum", "const", "maxLength", "pattern", "format"} & set(prop)
        if free and _types(prop)[:1] == ["string"] and isinstance(value.get(key), str):
            return str(key)
    return None


def instance(schema: Any, rng: random.Random, root: Any, depth: int = 0) -> Any:
    """A value that holds to ``schema`` (the subset of JSON Schema that tools use); any other
    schema, even a malformed one, still gets a value, never an exception."""
    schema = _resolved(schema, root)
    if "const" in schema:
        return schema["const"]
    if isinstance(schema.get("enum"), list) and schema["enum"]:
        return rng.choice(schema["enum"])
    for key in ("anyOf", "oneOf"):
        if isinstance(schema.get(key), list) and schema[key]:
            return instance(schema[key][0], rng, root, depth + 1)
    if isinstance(schema.get("allOf"), list) and schema["allOf"]:
        parts = [_resolved(part, root) for part in schema["allOf"]]
        merged = {
            "type": "object",
            "properties": {k: v for p in parts for k, v in _dict(p.get("properties")).items()},
            "required": [r for p in parts for r in _list(p.get("required"))],
        }
        return instance(merged, rng, root, depth + 1)
    kind = (_types(schema) or ["object" if "properties" in schema else "string"])[0]
    if kind == "object":
        return _object(schema, rng, root, depth)
    if kind == "array":
        return _array(schema, rng, root, depth)
    if kind in ("integer", "number"):
        return _number(schema, rng, kind == "integer")
    if kind == "boolean":
        return rng.random() < 0.5
    if kind == "null":
        return None
    return _string(schema, rng)


def _object(schema: dict[str, Any], rng: random.Random, root: Any, depth: int) -> dict:
    if depth > 3 * MAX_DEPTH:  # a schema that requires itself: stop somewhere
        return {}
    properties = _dict(schema.get("properties"))
    required = {key for key in _list(schema.get("required")) if isinstance(key, str)}
    value = {}
    for key, prop in properties.items():
        if key in required or (depth < MAX_DEPTH and rng.random() < 0.5):
            value[str(key)] = instance(prop, rng, root, depth + 1)
    for key in sorted(required - set(properties)):
        value[key] = "value"
    return value


def _array(schema: dict[str, Any], rng: random.Random, root: Any, depth: int) -> list:
    low = _whole(schema.get("minItems"), 0 if depth >= MAX_DEPTH else 1)
    high = max(low, _whole(schema.get("maxItems"), max(low, 3 if depth < MAX_DEPTH else 0)))
    items = schema.get("items", {"type": "string"})
    if depth > 3 * MAX_DEPTH:
        return []
    return [instance(items, rng, root, depth + 1) for _ in range(rng.randint(low, min(high, 8)))]


def _number(schema: dict[str, Any], rng: random.Random, integer: bool) -> int | float:
    low, high = _real(schema.get("minimum"), None), _real(schema.get("maximum"), None)
    step = 1 if integer else 0.01
    above, below = (
        _real(schema.get("exclusiveMinimum"), None),
        _real(schema.get("exclusiveMaximum"), None),
    )
    low = above + step if above is not None and (low is None or above >= low) else low
    high = below - step if below is not None and (high is None or below <= high) else high
    low = (0 if high is None else min(0, high - 100)) if low is None else low
    high = max(low, low + 100 if high is None else high)
    if integer:
        return rng.randint(math.ceil(low), max(math.ceil(low), math.floor(high)))
    return min(high, max(low, round(rng.uniform(low, high), 2)))


def _string(schema: dict[str, Any], rng: random.Random) -> str:
    low = _whole(schema.get("minLength"), 1)
    high = max(low, _whole(schema.get("maxLength"), max(low, 24)))
    size = rng.randint(low, min(high, max(low, 24)))
    words = FILLER.split()
    text = " ".join(rng.choice(words) for _ in range(1 + size // 3))
    return (text + "x" * size)[:size]


def _whole(value: Any, default: int) -> int:
    whole = isinstance(value, int) and not isinstance(value, bool) and value >= 0
    return value if whole else default


def _real(value: Any, default: float | None) -> float | None:
    if isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value):
        return value
    return default


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def _types(schema: dict[str, Any]) -> list[str]:
    kind = schema.get("type")
    kinds = [k for k in (kind if isinstance(kind, list) else [kind]) if isinstance(k, str)]
    return [k for k in kinds if k != "null"] or kinds


def _resolved(schema: Any, root: Any) -> dict[str, Any]:
    """``schema`` as an object, a local ``$ref`` (``#/$defs/X``, ``#/definitions/X``) followed;
    anything else (``true``, a malformed schema) as the empty schema."""
    for _ in range(8):
        if not isinstance(schema, dict):
            return {}
        ref = schema.get("$ref")
        if not isinstance(ref, str) or not (ref == "#" or ref.startswith("#/")):
            return schema
        target: Any = root
        for part in ref[2:].split("/") if ref != "#" else []:
            target = target.get(part) if isinstance(target, dict) else None
        schema = target
    return {}
