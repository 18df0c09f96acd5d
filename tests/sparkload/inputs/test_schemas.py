"""--response-format: schema files checked before the load, and each reply's verdict."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from sparkload.errors import ConfigError
from sparkload.inputs.schemas import (
    BUILTIN_SCHEMAS,
    JSON_OBJECT,
    ReplyChecker,
    ResponseFormat,
    parse_error_kind,
    parse_response_format,
)

FLAG = "--response-format"
FLAT = ReplyChecker(parse_response_format(FLAG, "json_schema:builtin-flat"))


def schema_file(tmp_path: Path, text: str) -> str:
    path = tmp_path / "order.json"
    path.write_text(text)
    return f"json_schema:{path}"


def test_an_empty_value_asks_for_no_format():
    assert parse_response_format(FLAG, "") is None


def test_a_schema_file_is_read_and_named_after_its_stem(tmp_path):
    fmt = parse_response_format(FLAG, schema_file(tmp_path, '{"type": "object"}'))
    assert fmt == ResponseFormat("json_schema", "order", {"type": "object"})


def test_every_builtin_schema_is_a_valid_schema():
    for name in BUILTIN_SCHEMAS:
        assert parse_response_format(FLAG, f"json_schema:builtin-{name}").name == name


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ("{not json", "line 1: not JSON (Expecting property name enclosed in double quotes)"),
        ("[1, 2]", "not a JSON Schema (a schema is a JSON object)"),
        ('{"type": "objekt"}', "not a valid JSON Schema at type"),
        ('{"properties": {"a": {"minimum": "ten"}}}', "not a valid JSON Schema at properties/a"),
    ],
)
def test_a_bad_schema_file_is_one_line_naming_the_file_and_the_problem(tmp_path, text, said):
    with pytest.raises(ConfigError) as caught:
        parse_response_format(FLAG, schema_file(tmp_path, text))
    message = str(caught.value)
    assert "order.json" in message and said in message and "\n" not in message


def test_a_missing_file_an_unknown_builtin_and_an_unknown_kind_are_refused(tmp_path):
    for value in (f"json_schema:{tmp_path}/none.json", "json_schema:builtin-deep", "xml"):
        with pytest.raises(ConfigError, match=FLAG):
            parse_response_format(FLAG, value)


def test_a_reply_that_matches_the_schema_is_valid_whitespace_around_it_allowed():
    reply = json.dumps({"name": "a", "age": 3, "member": True})
    assert FLAT.verdict(f"\n {reply}\n", "stop") == "valid"


def test_a_reply_that_is_not_json_is_a_parse_error_a_fenced_one_too():
    reply = json.dumps({"name": "a", "age": 3, "member": True})
    assert FLAT.verdict("{name: a}", "stop") == "parse_error"
    assert FLAT.verdict(f"```json\n{reply}\n```", "stop") == "parse_error"


def test_json_that_breaks_the_schema_is_a_schema_error():
    assert FLAT.verdict('{"name": "a", "age": -1, "member": true}', "stop") == "schema_error"


def test_a_reply_cut_by_max_tokens_is_truncated_whatever_its_text():
    assert FLAT.verdict('{"name": "a", "age": 3, "member": true}', "length") == "truncated"


def test_json_object_mode_asks_only_for_a_json_object():
    checker = ReplyChecker(ResponseFormat(JSON_OBJECT))
    assert checker.verdict('{"any": 1}', "stop") == "valid"
    assert checker.verdict("[1]", "stop") == "schema_error"


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        ("", "empty"),
        ("  \n", "empty"),
        ("Sure, here it is: {}", "not_json"),
        ('```json\n{"name": "a"}\n```', "not_json"),
        ('{"name": "line one\nline two"}', "control_character"),
        ('{"name": "tab\there"}', "control_character"),
        ('{"name": "a", "age": 3', "incomplete"),
        ('{"name": "a', "incomplete"),
        ('{"name": "a"} and more', "trailing_data"),
        ('{"name": "a"}{"name": "b"}', "trailing_data"),
        ('{"name": "a",}', "syntax"),
        ("{name: 1}", "syntax"),
    ],
)
def test_a_parse_error_is_named_by_its_kind(text, kind):
    assert FLAT.verdict(text, "stop") == "parse_error"
    assert parse_error_kind(text) == kind
