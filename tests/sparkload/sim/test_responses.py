"""The simulator's Responses API: a Responses body read as the chat body it means, and its
event stream read by sparkload's Responses reader to what the chat stream of the same request
reads to (tokens, reasoning, tool calls, usage, the end)."""

from __future__ import annotations

import json

from sparkload.apis.chat import ChatStream
from sparkload.apis.responses import ResponsesStream
from sparkload.sim.bodies import parse_chat_request, parse_responses_request
from sparkload.sim.responses import ResponsesWriter, chat_body
from sparkload.sim.tools import PlannedCall
from tests.sim_streams import beside_chat, frames

FLAT = {"type": "function", "name": "read", "parameters": {"type": "object"}}
NESTED = {"type": "function", "function": {"name": "read", "parameters": {"type": "object"}}}


def both(reasoning: int = 0, call: PlannedCall | None = None, outputs=(1, 1, 2, 1, 1)):
    """The chat and the Responses stream of the same request, each read by its reader."""
    return beside_chat(ResponsesWriter, ResponsesStream, reasoning, call, outputs)


def figures(s: ChatStream) -> tuple:
    return (
        s.chunks,
        s.reasoning_chunks,
        s.output_tokens,
        s.reasoning_tokens,
        s.prompt_tokens,
        s.cached_tokens,
        s.finish_reason,
        s.ttfo is None,
    )


def test_an_answer_reads_as_its_chat_stream_does():
    chat, responses = both()
    assert figures(responses) == figures(chat)
    assert responses.response_id == "id1"


def test_reasoning_reads_as_its_chat_stream_does():
    chat, responses = both(reasoning=3)
    assert figures(responses) == figures(chat)
    assert responses.reasoning_tokens == (3, "usage")


def test_a_tool_call_reads_as_its_chat_stream_does():
    call = PlannedCall("call-1", "read", '{"path": "a.txt"}')
    chat, responses = both(reasoning=2, call=call, outputs=(1, 1, 1, 3, 2))
    assert figures(responses) == figures(chat)
    assert [(c.id, c.name, c.arguments) for c in responses.tool_calls] == [
        (c.id, c.name, c.arguments) for c in chat.tool_calls
    ]


def test_the_stream_ends_with_response_completed_and_no_done():
    payloads = frames(ResponsesWriter("id1", "m", 20), [1, 1], False)
    assert json.loads(payloads[-1])["type"] == "response.completed"
    assert b"[DONE]" not in payloads


def test_a_failed_stream_ends_with_an_error_event():
    event = json.loads(ResponsesWriter("id1", "m", 20).failed().split(b"data: ")[1])
    assert (event["type"], event["code"]) == ("error", "server_error")


def test_a_responses_body_means_the_chat_body_of_its_instructions_and_items():
    body = {
        "model": "m",
        "instructions": "Be brief.",
        "input": [
            {"role": "user", "content": "Q"},
            {"type": "function_call", "call_id": "c1", "name": "read", "arguments": "{}"},
            {"type": "function_call_output", "call_id": "c1", "output": "file"},
        ],
        "max_output_tokens": 9,
        "tools": [FLAT],
        "tool_choice": {"type": "function", "name": "read"},
        "text": {"format": {"type": "json_schema", "name": "s", "schema": {}}},
        "stream": True,
        "temperature": 0.5,
    }
    chat = chat_body(body)
    assert chat["messages"] == [
        {"role": "system", "content": "Be brief."},
        {"role": "user", "content": "Q"},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {"id": "c1", "type": "function", "function": {"name": "read", "arguments": "{}"}}
            ],
        },
        {"role": "tool", "tool_call_id": "c1", "content": "file"},
    ]
    assert (chat["max_tokens"], chat["tools"], chat["tool_choice"]) == (
        9,
        [NESTED],
        {"type": "function", "function": {"name": "read"}},
    )
    assert chat["response_format"] == {
        "type": "json_schema",
        "json_schema": {"name": "s", "schema": {}},
    }
    assert (chat["stream"], chat["temperature"]) == (True, 0.5)


def test_a_responses_request_counts_the_prompt_of_its_chat_request():
    chat = {"model": "m", "messages": [{"role": "user", "content": "hello " * 50}], "max_tokens": 7}
    responses = {"model": "m", "input": "hello " * 50, "max_output_tokens": 7, "stream": True}
    a, b = parse_chat_request(chat, "m", 0), parse_responses_request(responses, "m", 0)
    assert (a.prompt_text, a.max_tokens) == (b.prompt_text, b.max_tokens)
    assert not b.include_usage  # the usage comes in response.completed
