"""The Messages API reader: each event's meaning, fed one by one; a stream in Anthropic's form
(``data/anthropic_messages_thinking_tool.sse``: ping, thinking and signature deltas, text, a
tool_use block and its input_json_delta fragments, cached input) and vLLM's recorded streams
(``data/vllm_messages_*.sse``: vLLM's CPU server, a tiny random Qwen3 with its reasoning and
qwen3_coder tool parsers) read to the figures their events and usage say."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from sparkload.apis.messages import MessagesStream, chat_usage
from sparkload.transport.tally import Reply, StreamError

DATA = Path(__file__).parent / "data"


def event(kind: str, **fields) -> bytes:
    return json.dumps({"type": kind, **fields}).encode()


def delta(kind: str, index: int = 0, **fields) -> bytes:
    return event("content_block_delta", index=index, delta={"type": kind, **fields})


def text(piece: str) -> bytes:
    return delta("text_delta", text=piece)


def thinking(piece: str) -> bytes:
    return delta("thinking_delta", thinking=piece)


def tool_use(index: int, call_id: str = "toolu_1", name: str = "read_file") -> bytes:
    block = {"type": "tool_use", "id": call_id, "name": name, "input": {}}
    return event("content_block_start", index=index, content_block=block)


def arguments(fragment: str, index: int) -> bytes:
    return delta("input_json_delta", index=index, partial_json=fragment)


def stop(reason: str, **usage) -> bytes:
    return event("message_delta", delta={"stop_reason": reason}, usage=usage)


def fed(*events: bytes, reply: Reply | None = None) -> MessagesStream:
    stream = MessagesStream(reply)
    for i, data in enumerate(events):
        if stream.feed(data, (i + 1) / 10):
            break
    return stream


def recorded(name: str) -> list[bytes]:
    """The ``data:`` payloads of a stream, in order."""
    lines = (DATA / name).read_bytes().splitlines()
    return [line.removeprefix(b"data: ") for line in lines if line.startswith(b"data: ")]


def test_message_start_is_not_a_token_the_first_text_delta_is():
    start = event("message_start", message={"id": "msg_1", "usage": {"input_tokens": 5}})
    s = fed(start, event("ping"), text("a"), text("b"))
    assert (s.chunks, s.ttft, s.ttfo, s.ttfc, s.response_id) == (2, 0.3, 0.3, 0.3, "msg_1")
    assert s.gaps == pytest.approx([0.1])


def test_thinking_deltas_are_tokens_and_reasoning_but_not_output():
    s = fed(thinking("x"), thinking("y"), delta("signature_delta", signature="sig"), text("a"))
    assert (s.chunks, s.reasoning_chunks, s.ttft, s.t_last_reasoning) == (3, 2, 0.1, 0.2)
    assert s.ttfo == pytest.approx(0.4)


def test_a_tool_use_block_starts_a_call_its_json_deltas_fill_it():
    s = fed(tool_use(1), arguments('{"path":', 1), arguments(' "a"}', 1), stop("tool_use"))
    (call,) = s.tool_calls
    assert (call.id, call.name, call.arguments, call.arguments_valid) == (
        "toolu_1",
        "read_file",
        '{"path": "a"}',
        True,
    )
    assert (s.ttfo, s.t_tool_args, s.chunks, s.finish_reason) == (0.1, 0.3, 3, "tool_calls")


def test_two_tool_use_blocks_are_two_calls():
    s = fed(tool_use(0, "t1"), arguments("{}", 0), tool_use(1, "t2"), arguments('{"a":1}', 1))
    assert [(c.id, c.arguments) for c in s.tool_calls] == [("t1", "{}"), ("t2", '{"a":1}')]


def test_a_reply_kept_gets_the_answer_text_and_the_calls_never_the_thinking():
    reply = Reply()
    fed(thinking("hm"), text("I'll"), text(" read"), tool_use(2), arguments("{}", 2), reply=reply)
    assert reply.content == "I'll read"
    assert [call.name for call in reply.tool_calls] == ["read_file"]


@pytest.mark.parametrize(
    ("reason", "finish"),
    [
        ("end_turn", "stop"),
        ("stop_sequence", "stop"),
        ("max_tokens", "length"),
        ("tool_use", "tool_calls"),
        ("refusal", "refusal"),
    ],
)
def test_the_stop_reason_is_chats_finish_reason(reason, finish):
    assert fed(text("a"), stop(reason)).finish_reason == finish


def test_message_stop_ends_the_stream():
    s = MessagesStream()
    assert s.feed(text("a"), 0.1) is False
    assert s.feed(event("message_stop"), 0.5) is True
    assert (s.done, s.t_done) == (True, 0.5)


def test_vllms_placeholder_arguments_of_a_call_cut_by_max_tokens_are_dropped():
    s = fed(tool_use(1), arguments("{}", 1), stop("max_tokens"))
    assert (s.tool_calls[0].arguments, s.tool_args_truncated) == ("", True)


def test_a_complete_empty_object_is_kept_when_the_call_ended_by_itself():
    s = fed(tool_use(1), arguments("{}", 1), stop("tool_use"))
    assert (s.tool_calls[0].arguments, s.tool_args_valid) == ("{}", True)


def test_an_error_event_is_a_server_error_event_with_its_message():
    error = event("error", error={"type": "overloaded_error", "message": "Overloaded"})
    s = MessagesStream()
    s.feed(text("a"), 0.1)
    with pytest.raises(StreamError) as raised:
        s.feed(error, 0.2)
    assert raised.value.kind == "server_error_event"
    assert str(raised.value) == "overloaded_error: Overloaded"
    assert s.chunks == 1  # what came before it is kept


def test_an_event_that_is_not_json_is_malformed_sse():
    with pytest.raises(StreamError) as raised:
        MessagesStream().feed(b'{"type": "content_block_del', 0.1)
    assert raised.value.kind == "malformed_sse"


def test_the_usage_counts_cached_input_in_the_prompt_in_chats_names():
    usage = {
        "input_tokens": 12,
        "cache_creation_input_tokens": 100,
        "cache_read_input_tokens": 2048,
        "output_tokens": 37,
    }
    assert chat_usage(usage) == {
        "prompt_tokens": 2160,
        "prompt_tokens_details": {"cached_tokens": 2048},
        "completion_tokens": 37,
    }


def test_message_delta_usage_is_merged_over_message_starts():
    start = event("message_start", message={"usage": {"input_tokens": 9, "output_tokens": 1}})
    s = fed(start, text("a"), stop("end_turn", output_tokens=4))
    assert (s.prompt_tokens, s.output_tokens) == (9, (4, "usage"))


def test_anthropics_stream_reads_to_exactly_its_figures():
    s = fed(*recorded("anthropic_messages_thinking_tool.sse"))
    assert (s.done, s.response_id, s.finish_reason) == (
        True,
        "msg_01XFDUDYJgAACzvnptvVoYEL",
        "tool_calls",
    )
    assert (s.prompt_tokens, s.cached_tokens, s.output_tokens) == (2160, 2048, (37, "usage"))
    assert (s.reasoning_tokens, s.answer_tokens) == ((4, "chunks"), 33)
    assert s.chunks == 4 + 3 + 1 + 3  # thinking, text, the tool_use block, its fragments
    (call,) = s.tool_calls
    assert (call.id, call.name, call.arguments) == (
        "toolu_01T1x1fJ34qAmk2tNTrN7Up6",
        "read_file",
        '{"path": "a.txt"}',
    )
    assert (s.ttft, s.ttfo, s.tool_args_valid) == (0.4, 1.1, True)


def test_vllms_recorded_thinking_stream_reads_to_its_usage():
    s = fed(*recorded("vllm_messages_reasoning.sse"))
    assert (s.done, s.finish_reason, s.prompt_tokens, s.cached_tokens) == (True, "length", 31, 0)
    # the usage has no reasoning count: its 14 thinking deltas are counted (the think tag's two
    # tokens are never streamed)
    assert (s.output_tokens, s.reasoning_tokens, s.ttfo) == ((16, "usage"), (14, "chunks"), None)


def test_vllms_recorded_tool_call_cut_by_max_tokens_reads_as_truncated():
    s = fed(*recorded("vllm_messages_tool_call.sse"))
    assert (s.prompt_tokens, s.output_tokens, s.finish_reason) == (236, (48, "usage"), "length")
    (call,) = s.tool_calls
    assert (call.name, call.arguments, s.tool_args_truncated) == ("read_file", "", True)
