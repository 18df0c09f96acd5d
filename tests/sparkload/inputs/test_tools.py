"""Tools files (``--tools FILE``): OpenAI's tools list, checked; a malformed file is one line."""

from __future__ import annotations

import json

import pytest

from sparkload.errors import ConfigError
from sparkload.inputs.tools import load_tools

GOOD = [
    {
        "type": "function",
        "function": {
            "name": "get_weather",
            "description": "The weather in a city.",
            "parameters": {"type": "object", "properties": {"city": {"type": "string"}}},
        },
    },
    {"type": "function", "function": {"name": "now"}},
]


def write(tmp_path, text: str):
    path = tmp_path / "tools.json"
    path.write_text(text)
    return path


def test_a_tools_file_is_sent_as_it_is_and_described_by_its_names_and_digest(tmp_path):
    tools = load_tools(write(tmp_path, json.dumps(GOOD)))
    assert tools.tools == tuple(GOOD)
    assert tools.names == ("get_weather", "now")
    entry = tools.describe()
    assert entry["source"].endswith("tools.json") and len(entry["sha256"]) == 64


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('[{"type": "function",', "line 1: not JSON"),
        ("{}", "tools must be a non-empty JSON list"),
        ("[]", "tools must be a non-empty JSON list"),
        ('["read"]', "tool 1: expected a JSON object"),
        ('[{"type": "code", "function": {"name": "x"}}]', "tool 1: 'type' must be \"function\""),
        ('[{"type": "function"}]', "tool 1: 'function' must be an object with a name"),
        ('[{"type": "function", "function": {"name": "a b"}}]', "'function.name' must be 1-64"),
        (
            '[{"type": "function", "function": {"name": "x", "parameters": {"type": "array"}}}]',
            r"tool 1 \(x\): 'function.parameters' must be a JSON Schema of type object",
        ),
        (
            '[{"type": "function", "function": {"name": "x", "description": 3}}]',
            "'function.description' must be text",
        ),
        (json.dumps([GOOD[1], GOOD[1]]), "tool 2: the name 'now' is used twice"),
    ],
)
def test_a_malformed_tools_file_is_one_line_naming_the_file_and_the_tool(tmp_path, text, message):
    with pytest.raises(ConfigError, match=message) as caught:
        load_tools(write(tmp_path, text))
    assert str(caught.value).startswith(f"--tools: {tmp_path / 'tools.json'}")
    assert "\n" not in str(caught.value)


def test_a_missing_tools_file_is_one_line(tmp_path):
    with pytest.raises(ConfigError, match="--tools: no such file"):
        load_tools(tmp_path / "absent.json")
