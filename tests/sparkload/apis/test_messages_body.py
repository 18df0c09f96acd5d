"""The Messages API's body: chat's planned messages, tools and tool choice in Anthropic's form
(system apart, tool_use and tool_result blocks, input_schema, alternating turns), thinking off,
image parts as base64 image blocks, the stream on."""

from __future__ import annotations

import orjson
import pytest

from sparkload.apis.messages import anthropic_choice, anthropic_messages, image_block
from sparkload.body import BodyTemplate
from sparkload.workloads.contract import PlannedRequest

TOOL = {
    "type": "function",
    "function": {
        "name": "read_file",
        "description": "Read a file",
        "parameters": {"type": "object", "properties": {"path": {"type": "string"}}},
    },
}
CALL = {
    "id": "call_1",
    "type": "function",
    "function": {"name": "read_file", "arguments": '{"path": "a.txt"}'},
}


def sent(request: PlannedRequest, extras: dict | None = None, **template) -> dict:
    return orjson.loads(BodyTemplate("m", 8, "messages", extras or {}, **template).encode(request))


def test_a_prompt_is_one_user_turn_with_the_length_and_the_stream():
    body = sent(PlannedRequest("hi", 12))
    assert body == {
        "model": "m",
        "max_tokens": 12,
        "messages": [{"role": "user", "content": [{"type": "text", "text": "hi"}]}],
        "stream": True,
    }


def test_system_messages_become_the_system_field():
    system, turns = anthropic_messages(
        [
            {"role": "system", "content": "Be brief."},
            {"role": "system", "content": [{"type": "text", "text": "Use tools."}]},
            {"role": "user", "content": "hi"},
        ]
    )
    assert system == "Be brief.\n\nUse tools."
    assert turns == [{"role": "user", "content": [{"type": "text", "text": "hi"}]}]


def test_tool_calls_become_tool_use_blocks_and_results_tool_result_blocks():
    _, turns = anthropic_messages(
        [
            {"role": "user", "content": "read a.txt"},
            {"role": "assistant", "content": None, "tool_calls": [CALL]},
            {"role": "tool", "tool_call_id": "call_1", "content": "hello"},
        ]
    )
    assert turns[1:] == [
        {
            "role": "assistant",
            "content": [
                {
                    "type": "tool_use",
                    "id": "call_1",
                    "name": "read_file",
                    "input": {"path": "a.txt"},
                }
            ],
        },
        {
            "role": "user",
            "content": [{"type": "tool_result", "tool_use_id": "call_1", "content": "hello"}],
        },
    ]


def test_consecutive_turns_of_one_role_are_merged():
    two_calls = [CALL, {**CALL, "id": "call_2"}]
    _, turns = anthropic_messages(
        [
            {"role": "user", "content": "go"},
            {"role": "assistant", "content": "Reading.", "tool_calls": two_calls},
            {"role": "tool", "tool_call_id": "call_1", "content": "one"},
            {"role": "tool", "tool_call_id": "call_2", "content": "two"},
            {"role": "user", "content": "and now?"},
        ]
    )
    assert [turn["role"] for turn in turns] == ["user", "assistant", "user"]
    assert [block["type"] for block in turns[1]["content"]] == ["text", "tool_use", "tool_use"]
    assert [block["type"] for block in turns[2]["content"]] == [
        "tool_result",
        "tool_result",
        "text",
    ]


def test_a_cut_tool_calls_arguments_become_an_empty_input():
    cut = {**CALL, "function": {"name": "read_file", "arguments": '{"path": "a'}}
    _, turns = anthropic_messages([{"role": "assistant", "content": None, "tool_calls": [cut]}])
    assert turns[0]["content"][0]["input"] == {}


def test_an_empty_assistant_reply_leaves_no_empty_turn():
    _, turns = anthropic_messages(
        [
            {"role": "user", "content": "a"},
            {"role": "assistant", "content": ""},
            {"role": "user", "content": "b"},
        ]
    )
    assert turns == [
        {"role": "user", "content": [{"type": "text", "text": "a"}, {"type": "text", "text": "b"}]}
    ]


def test_tools_go_in_anthropics_form_with_their_input_schema():
    body = sent(PlannedRequest("hi", 8, tools=(TOOL,), tool_choice="auto"))
    assert body["tools"] == [
        {
            "name": "read_file",
            "description": "Read a file",
            "input_schema": TOOL["function"]["parameters"],
        }
    ]


@pytest.mark.parametrize(
    ("chat", "anthropic"),
    [
        ("auto", {"type": "auto"}),
        ("required", {"type": "any"}),
        ("none", {"type": "none"}),
        (
            {"type": "function", "function": {"name": "read_file"}},
            {"type": "tool", "name": "read_file"},
        ),
    ],
)
def test_tool_choice_maps_to_anthropics(chat, anthropic):
    assert anthropic_choice(chat) == anthropic


def test_a_planned_tool_choice_is_sent_in_anthropics_form():
    body = sent(PlannedRequest("hi", 8, tools=(TOOL,), tool_choice="required"))
    assert body["tool_choice"] == {"type": "any"}


def test_no_thinking_turns_thinking_off_and_keeps_the_template_kwargs():
    body = sent(PlannedRequest("hi", 8), {"chat_template_kwargs": {"enable_thinking": False}})
    assert body["thinking"] == {"type": "disabled"}
    assert body["chat_template_kwargs"] == {"enable_thinking": False}


def test_thinking_left_on_sends_no_thinking_field():
    assert "thinking" not in sent(PlannedRequest("hi", 8), {"temperature": 0})


def test_an_image_data_url_becomes_a_base64_image_block():
    part = {"type": "image_url", "image_url": {"url": "data:image/png;base64,iVBORw0KGgo="}}
    _, turns = anthropic_messages(
        [{"role": "user", "content": [{"type": "text", "text": "what is it?"}, part]}]
    )
    assert turns[0]["content"] == [
        {"type": "text", "text": "what is it?"},
        {
            "type": "image",
            "source": {"type": "base64", "media_type": "image/png", "data": "iVBORw0KGgo="},
        },
    ]


def test_an_image_http_url_becomes_a_url_source():
    assert image_block({"url": "http://127.0.0.1:9/a.jpg"}) == {
        "type": "image",
        "source": {"type": "url", "url": "http://127.0.0.1:9/a.jpg"},
    }


def test_a_json_schema_format_goes_in_output_config():
    schema = {"type": "object", "properties": {"a": {"type": "integer"}}}
    fmt = {"type": "json_schema", "json_schema": {"name": "x", "schema": schema}}
    body = sent(PlannedRequest("hi", 8), response_format=fmt)
    assert body["output_config"] == {"format": {"type": "json_schema", "schema": schema}}
    assert "response_format" not in body
