"""Which requests a tool call answers, and its arguments (sim/tools.py), without a network. The
arguments are checked by an independent validator (jsonschema), not by the generator's rules."""

from __future__ import annotations

import json
import random

import jsonschema
import pytest

from sparkload.sim.textlength import CHARS_PER_TOKEN
from sparkload.sim.tools import (
    AUTO,
    NAMED,
    NONE,
    REQUIRED,
    ToolCaller,
    ToolRequest,
    ToolsError,
    arguments,
    parse_tools,
    tools_text,
)

READ = {
    "type": "object",
    "properties": {
        "path": {"type": "string", "description": "the file"},
        "start_line": {"type": "integer", "minimum": 1},
        "end_line": {"type": "integer", "minimum": 1, "maximum": 100000},
    },
    "required": ["path"],
}
RUN = {
    "type": "object",
    "properties": {
        "command": {"type": "string"},
        "timeout": {"type": "number", "exclusiveMinimum": 0, "maximum": 600},
        "shell": {"type": "string", "enum": ["bash", "sh"]},
        "env": {"type": "array", "items": {"type": "string", "maxLength": 12}, "maxItems": 3},
    },
    "required": ["command", "shell"],
}
EDIT = {
    "type": "object",
    "properties": {
        "edits": {"type": "array", "items": {"$ref": "#/$defs/edit"}, "minItems": 1},
        "dry_run": {"type": "boolean"},
    },
    "required": ["edits"],
    "$defs": {
        "edit": {
            "type": "object",
            "properties": {"old": {"type": "string"}, "new": {"type": ["string", "null"]}},
            "required": ["old", "new"],
        }
    },
}
FLAGS = {  # no string to pad: whitespace fills it
    "type": "object",
    "properties": {"level": {"type": "integer", "maximum": 3}, "on": {"const": True}},
    "required": ["level", "on"],
}
SCHEMAS = {"read_file": READ, "run_command": RUN, "edit_file": EDIT, "set_flags": FLAGS}


def tool(name: str, parameters: dict | None = None) -> dict:
    function = {"name": name, "description": f"{name} for the agent"}
    if parameters is not None:
        function["parameters"] = parameters
    return {"type": "function", "function": function}


TOOLS = tuple(tool(name, schema) for name, schema in SCHEMAS.items())


def parsed(tools: object = TOOLS, choice: object = None) -> ToolRequest | None:
    body: dict = {"tools": list(tools) if isinstance(tools, tuple) else tools}
    if choice is not None:
        body["tool_choice"] = choice
    return parse_tools(body)


def decisions(caller: ToolCaller, request: ToolRequest, n: int, tokens: int = 64) -> list:
    return [caller.plan(request, tokens) for _ in range(n)]


@pytest.mark.parametrize("name", sorted(SCHEMAS))
@pytest.mark.parametrize("seed", range(5))
def test_arguments_parse_as_json_that_holds_to_the_tools_schema(name, seed):
    text, spoiled = arguments(SCHEMAS[name], 60 * CHARS_PER_TOKEN, random.Random(seed))
    assert spoiled is None
    jsonschema.validate(json.loads(text), SCHEMAS[name])


@pytest.mark.parametrize("tokens", [1, 7, 40, 300])
def test_arguments_are_exactly_as_long_as_their_tokens(tokens):
    for name, schema in SCHEMAS.items():
        text, _ = arguments(schema, tokens * CHARS_PER_TOKEN, random.Random(1))
        assert len(text) == tokens * CHARS_PER_TOKEN, name


def test_a_short_answer_drops_the_optional_properties_before_it_cuts_the_arguments():
    text, _ = arguments(READ, 6 * CHARS_PER_TOKEN, random.Random(3))
    assert set(json.loads(text)) == {"path"}
    cut, _ = arguments(READ, 2 * CHARS_PER_TOKEN, random.Random(3))
    assert cut == '{"path":'


@pytest.mark.parametrize("kind", ["cut", "not_json"])
def test_spoiled_arguments_keep_their_length_and_are_not_json(kind):
    for schema in SCHEMAS.values():
        text, spoiled = arguments(schema, 50 * CHARS_PER_TOKEN, random.Random(2), kind)
        assert spoiled == kind and len(text) == 50 * CHARS_PER_TOKEN
        with pytest.raises(ValueError):
            json.loads(text)


def test_an_empty_object_is_cut_where_it_cannot_be_quoted_wrongly():
    text, spoiled = arguments({}, 10 * CHARS_PER_TOKEN, random.Random(0), "not_json")
    assert spoiled == "cut" and text.startswith("{") and not text.endswith("}")


@pytest.mark.parametrize(
    "schema",
    [
        {"type": "object", "properties": "junk", "required": 5},
        {"type": "object", "properties": {"a": {"type": "integer", "minimum": "x"}}},
        {"type": "object", "properties": {"me": {"$ref": "#"}}, "required": ["me"]},
        {"type": "object", "properties": {"x": {"$ref": "#/$defs/missing"}}, "required": ["x"]},
        {"type": "object", "properties": {"x": True, "y": {"type": 7}}, "required": ["x", "y"]},
        {"allOf": [{"properties": {"a": {"type": "string"}}, "required": ["a"]}, 3]},
    ],
)
def test_a_malformed_or_endless_schema_still_gets_arguments_not_an_exception(schema):
    text, _ = arguments(schema, 30 * CHARS_PER_TOKEN, random.Random(0))
    assert len(text) == 30 * CHARS_PER_TOKEN


def test_auto_answers_a_share_of_requests_with_a_tool_call_the_same_for_a_seed():
    request = parsed()
    first = decisions(ToolCaller(0.7, seed=3), request, 400)
    again = decisions(ToolCaller(0.7, seed=3), request, 400)
    other = decisions(ToolCaller(0.7, seed=4), request, 400)
    assert first == again and first != other
    share = sum(call is not None for call in first) / len(first)
    assert 0.63 < share < 0.77


def test_the_answers_sequence_does_not_depend_on_the_lengths_asked():
    request = parsed()
    short = [c is None for c in decisions(ToolCaller(0.5, seed=1), request, 50, tokens=8)]
    long = [c is None for c in decisions(ToolCaller(0.5, seed=1), request, 50, tokens=500)]
    assert short == long


@pytest.mark.parametrize("rate", [0.0, 1.0])
def test_a_rate_of_0_never_and_1_always_calls_a_tool(rate):
    calls = decisions(ToolCaller(rate), parsed(), 50)
    assert all((call is not None) == bool(rate) for call in calls)


def test_required_always_calls_a_tool_and_picks_among_the_tools():
    calls = decisions(ToolCaller(0.0), parsed(choice=REQUIRED), 100)
    assert all(call is not None for call in calls)
    assert {call.name for call in calls} == set(SCHEMAS)


def test_none_never_calls_a_tool():
    request = parsed(choice=NONE)
    assert request is not None and request.choice == NONE
    assert decisions(ToolCaller(1.0), request, 20) == [None] * 20


def test_a_named_function_is_always_the_one_called():
    request = parsed(choice={"type": "function", "function": {"name": "run_command"}})
    assert request is not None and request.choice == NAMED
    calls = decisions(ToolCaller(0.0), request, 20)
    assert {call.name for call in calls} == {"run_command"}
    jsonschema.validate(json.loads(calls[0].arguments), RUN)


def test_the_error_rate_spoils_that_share_of_calls_whose_arguments_then_do_not_parse():
    calls = decisions(ToolCaller(1.0, error_rate=0.3, seed=5), parsed(), 300)
    spoiled = [call for call in calls if call.spoiled]
    assert 0.22 < len(spoiled) / len(calls) < 0.38
    assert {call.spoiled for call in spoiled} == {"cut", "not_json"}
    for call in calls:
        if call.spoiled:
            with pytest.raises(ValueError):
                json.loads(call.arguments)
        else:
            json.loads(call.arguments)


def test_a_call_takes_its_first_token_for_the_header_and_four_characters_per_later_token():
    (call,) = decisions(ToolCaller(1.0), parsed(choice=REQUIRED), 1, tokens=20)
    assert call.id.startswith("chatcmpl-tool-") and len(call.id) == len("chatcmpl-tool-") + 32
    assert len(call.arguments) == 19 * CHARS_PER_TOKEN
    assert call.argument_text(0, 1) == ""
    pieces = [call.argument_text(i, i + 1) for i in range(20)]
    assert "".join(pieces) == call.arguments and {len(p) for p in pieces[1:]} == {4}


def test_no_tools_and_no_choice_is_no_tool_request():
    assert parse_tools({"messages": []}) is None


@pytest.mark.parametrize(
    ("tools", "choice"),
    [([], None), ([], REQUIRED), ([], AUTO)],
)
def test_an_empty_tool_list_allows_no_call(tools, choice):
    request = parsed(tools, choice)
    assert request is not None and not request.calls_possible


@pytest.mark.parametrize(
    ("tools", "choice", "message"),
    [
        ("read_file", None, "tools: a list"),
        (["read_file"], None, "tools[0]: an object"),
        ([{"type": "retrieval"}], None, "tools[0].type"),
        ([{"type": "function"}], None, "tools[0].function: an object"),
        ([{"type": "function", "function": {"name": ""}}], None, "tools[0].function.name"),
        ([tool("a", "schema")], None, "tools[0].function.parameters"),
        ([{"type": "function", "function": {"name": "a", "description": 3}}], None, "descr"),
        (None, REQUIRED, "`tools` must be set"),
        (TOOLS, "sometimes", "Invalid value for `tool_choice`"),
        (TOOLS, {"type": "function"}, "Invalid value for `function`"),
        (TOOLS, {"type": "function", "function": {"name": 3}}, "Invalid `name`"),
        (TOOLS, {"type": "function", "function": {"name": "nope"}}, "does not match any"),
    ],
)
def test_bad_tools_or_tool_choice_are_refused_as_vllm_refuses_them(tools, choice, message):
    body = {"tool_choice": choice} if choice is not None else {}
    if tools is not None:
        body["tools"] = list(tools) if isinstance(tools, tuple) else tools
    with pytest.raises(ToolsError, match=message.replace("[", r"\[").replace("]", r"\]")):
        parse_tools(body)


def test_tool_choice_none_needs_no_tools():
    assert parse_tools({"tool_choice": NONE}) == ToolRequest((), NONE)


def test_the_tools_text_is_one_json_object_a_line_as_the_chat_template_writes_them():
    lines = tools_text(TOOLS).splitlines()
    assert [json.loads(line) for line in lines] == list(TOOLS)
    assert lines[0].startswith('{"type": "function", "function": {"name": "read_file"')
