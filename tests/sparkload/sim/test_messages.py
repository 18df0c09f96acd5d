"""The simulator's Messages API: a Messages body read as the chat body it means, and its event
stream read by sparkload's Messages reader to what the chat stream of the same request reads to
(tokens, reasoning, tool calls, prompt and cached tokens, the end)."""

from __future__ import annotations

import json

from sparkload.apis.messages import MessagesStream
from sparkload.sim.bodies import parse_chat_request, parse_messages_request
from sparkload.sim.messages import MessagesWriter, chat_body
from sparkload.sim.tools import PlannedCall
from sparkload.transport.tally import ReplyTally
from tests.sim_streams import beside_chat, frames

SCHEMA = {"type": "object", "properties": {"path": {"type": "string"}}}


def both(reasoning: int = 0, call: PlannedCall | None = None, outputs=(1, 1, 2, 1, 1)):
    """The chat and the Messages stream of the same request, each read by its reader."""
    return beside_chat(MessagesWriter, MessagesStream, reasoning, call, outputs)


def figures(s: ReplyTally) -> tuple:
    return (
        s.chunks,
        s.reasoning_chunks,
        s.output_tokens,
        s.prompt_tokens,
        s.cached_tokens,
        s.finish_reason,
        s.ttfo is None,
    )


def test_an_answer_reads_as_its_chat_stream_does():
    chat, messages = both()
    assert figures(messages) == figures(chat)
    assert messages.response_id == "id1"


def test_reasoning_reads_as_its_chat_stream_does():
    chat, messages = both(reasoning=3)
    assert figures(messages) == figures(chat)
    assert messages.reasoning_tokens == (3, "chunks")  # Anthropic's usage has no reasoning count


def test_a_tool_call_reads_as_its_chat_stream_does():
    call = PlannedCall("call-1", "read", '{"path": "a.txt"}')
    chat, messages = both(reasoning=2, call=call, outputs=(1, 1, 1, 3, 2))
    assert figures(messages) == figures(chat)
    assert [(c.id, c.name, c.arguments) for c in messages.tool_calls] == [
        (c.id, c.name, c.arguments) for c in chat.tool_calls
    ]


def test_a_thinking_block_closes_with_its_signature_before_the_text_block():
    kinds = [
        (event["type"], event.get("delta", event.get("content_block", {})).get("type"))
        for event in map(json.loads, frames(MessagesWriter("id1", "m", 20, 1), [1, 1], False))
    ]
    assert kinds == [
        ("message_start", None),
        ("content_block_start", "thinking"),
        ("content_block_delta", "thinking_delta"),
        ("content_block_delta", "signature_delta"),
        ("content_block_stop", None),
        ("content_block_start", "text"),
        ("content_block_delta", "text_delta"),
        ("content_block_stop", None),
        ("message_delta", None),
        ("message_stop", None),
    ]


def test_a_failed_stream_ends_with_an_error_event():
    event = json.loads(MessagesWriter("id1", "m", 20).failed().split(b"data: ")[1])
    assert (event["type"], event["error"]["type"]) == ("error", "api_error")


def test_a_messages_body_means_the_chat_body_of_its_system_blocks_and_tools():
    body = {
        "model": "m",
        "system": "Be brief.",
        "messages": [
            {"role": "user", "content": "Q"},
            {
                "role": "assistant",
                "content": [{"type": "tool_use", "id": "c1", "name": "read", "input": {}}],
            },
            {
                "role": "user",
                "content": [
                    {"type": "tool_result", "tool_use_id": "c1", "content": "file"},
                    {"type": "text", "text": "next?"},
                ],
            },
        ],
        "max_tokens": 9,
        "tools": [{"name": "read", "input_schema": SCHEMA}],
        "tool_choice": {"type": "any"},
        "thinking": {"type": "disabled"},
        "stream": True,
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
        {"role": "user", "content": [{"type": "text", "text": "next?"}]},
    ]
    assert (chat["max_tokens"], chat["tool_choice"], chat["stream"]) == (9, "required", True)
    assert chat["tools"] == [
        {"type": "function", "function": {"name": "read", "parameters": SCHEMA}}
    ]
    assert chat["chat_template_kwargs"] == {"enable_thinking": False}


def test_a_messages_request_counts_the_prompt_of_its_chat_request():
    chat = {"model": "m", "messages": [{"role": "user", "content": "hello " * 50}], "max_tokens": 7}
    messages = {"model": "m", "messages": chat["messages"], "max_tokens": 7, "stream": True}
    a, b = parse_chat_request(chat, "m", 0), parse_messages_request(messages, "m", 0)
    assert (a.prompt_text, a.max_tokens) == (b.prompt_text, b.max_tokens)
    assert not b.include_usage  # the usage comes in message_delta
