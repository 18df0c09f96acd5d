"""The Responses API reader: each event's meaning, fed one by one, and vLLM's recorded streams
(``data/vllm_responses_*.sse``: vLLM's CPU server, a tiny random Qwen3 with its reasoning
parser) read to the figures their events and usage say."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from sparkload.apis.responses import ResponsesStream, chat_usage
from sparkload.transport.tally import Reply, StreamError

DATA = Path(__file__).parent / "data"


def event(kind: str, **fields) -> bytes:
    return json.dumps({"type": kind, **fields}).encode()


def text(delta: str) -> bytes:
    return event("response.output_text.delta", delta=delta, output_index=0)


def reasoning(delta: str) -> bytes:
    return event("response.reasoning_text.delta", delta=delta, output_index=0)


def completed(status: str = "completed", usage: dict | None = None, reason=None) -> bytes:
    details = {"reason": reason} if reason else None
    response = {"id": "resp_1", "status": status, "usage": usage, "incomplete_details": details}
    return event("response.completed", response=response)


def fed(*events: bytes, reply: Reply | None = None) -> ResponsesStream:
    stream = ResponsesStream(reply)
    for i, data in enumerate(events):
        if stream.feed(data, (i + 1) / 10):
            break
    return stream


def recorded(name: str) -> list[bytes]:
    """The ``data:`` payloads of a recorded stream, in order."""
    lines = (DATA / name).read_bytes().splitlines()
    return [line.removeprefix(b"data: ") for line in lines if line.startswith(b"data: ")]


def test_answer_deltas_are_tokens_and_output():
    s = fed(event("response.created", response={"id": "resp_9"}), text("a"), text("b"))
    assert (s.chunks, s.ttft, s.ttfo, s.ttfc, s.response_id) == (2, 0.2, 0.2, 0.2, "resp_9")
    assert s.gaps == pytest.approx([0.1])


def test_reasoning_deltas_are_tokens_but_not_output():
    s = fed(reasoning("x"), reasoning("y"), text("a"))
    assert (s.chunks, s.reasoning_chunks, s.ttft, s.t_last_reasoning) == (3, 2, 0.1, 0.2)
    assert s.ttfo == pytest.approx(0.3)


def test_reasoning_summary_deltas_are_not_counted():
    s = fed(event("response.reasoning_summary_text.delta", delta="short"), text("a"))
    assert (s.chunks, s.reasoning_chunks) == (1, 0)


def test_a_function_call_is_named_by_its_item_and_filled_by_its_argument_deltas():
    item = {"type": "function_call", "call_id": "call_7", "name": "read_file", "arguments": ""}
    s = fed(
        event("response.output_item.added", item=item, output_index=1),
        event("response.function_call_arguments.delta", delta='{"path":', output_index=1),
        event("response.function_call_arguments.delta", delta='"a"}', output_index=1),
        completed(),
    )
    (call,) = s.tool_calls
    assert (call.id, call.name, call.arguments, call.arguments_valid) == (
        "call_7",
        "read_file",
        '{"path":"a"}',
        True,
    )
    assert (s.ttfo, s.t_tool_args, s.chunks, s.finish_reason) == (0.1, 0.3, 3, "tool_calls")


def test_completed_ends_the_stream_with_its_usage_in_chats_names():
    usage = {
        "input_tokens": 40,
        "input_tokens_details": {"cached_tokens": 32},
        "output_tokens": 9,
        "output_tokens_details": {"reasoning_tokens": 5},
    }
    s = ResponsesStream()
    assert s.feed(text("a"), 0.1) is False
    assert s.feed(completed(usage=usage), 0.5) is True
    assert (s.done, s.t_done, s.finish_reason) == (True, 0.5, "stop")
    assert (s.prompt_tokens, s.cached_tokens, s.output_tokens, s.reasoning_tokens) == (
        40,
        32,
        (9, "usage"),
        (5, "usage"),
    )


def test_an_incomplete_response_cut_by_max_output_tokens_finishes_by_length():
    s = fed(text("a"), completed("incomplete", reason="max_output_tokens"))
    assert (s.done, s.finish_reason) == (True, "length")


def test_openais_response_incomplete_event_also_ends_the_stream():
    response = {"status": "incomplete", "incomplete_details": {"reason": "content_filter"}}
    s = fed(text("a"), event("response.incomplete", response=response))
    assert (s.done, s.finish_reason) == (True, "content_filter")


@pytest.mark.parametrize(
    ("payload", "message"),
    [
        (event("response.failed", response={"error": {"message": "engine died"}}), "engine died"),
        (event("error", code="server_error", message="overloaded"), "overloaded"),
    ],
)
def test_failed_and_error_events_are_server_error_events(payload, message):
    with pytest.raises(StreamError) as caught:
        fed(text("a"), payload)
    assert (caught.value.kind, str(caught.value)) == ("server_error_event", message)


def test_a_payload_that_is_not_json_is_a_malformed_stream():
    with pytest.raises(StreamError) as caught:
        fed(b"{oops")
    assert caught.value.kind == "malformed_sse"


def test_a_done_marker_neither_ends_nor_breaks_the_stream():
    s = ResponsesStream()
    assert s.feed(b"[DONE]", 0.1) is False
    assert not s.done


def test_the_reply_stream_keeps_the_answer_text_and_the_tool_calls():
    reply = Reply()
    item = {"type": "function_call", "call_id": "c1", "name": "f"}
    fed(
        reasoning("hidden"),
        text("Hel"),
        text("lo"),
        event("response.output_item.added", item=item, output_index=1),
        event("response.function_call_arguments.delta", delta="{}", output_index=1),
        reply=reply,
    )
    assert reply.content == "Hello"
    assert [(c.id, c.name, c.arguments) for c in reply.tool_calls] == [("c1", "f", "{}")]


def test_a_usage_field_the_server_left_out_stays_out():
    assert chat_usage({"output_tokens": 3}) == {"completion_tokens": 3}


def test_zero_reasoning_tokens_read_as_no_reasoning_count_as_on_chat():
    s = fed(
        text("a"),
        completed(usage={"output_tokens": 1, "output_tokens_details": {"reasoning_tokens": 0}}),
    )
    assert s.reasoning_tokens == (None, None)


def test_vllms_recorded_reasoning_stream_is_read_to_its_usage():
    s = fed(*recorded("vllm_responses_reasoning.sse"))
    assert s.done and s.response_id == "resp_9625073b10ebfec9"
    assert (s.chunks, s.reasoning_chunks, s.ttfo, s.finish_reason) == (15, 15, None, "length")
    assert (s.prompt_tokens, s.cached_tokens, s.output_tokens, s.reasoning_tokens) == (
        37,
        0,
        (16, "usage"),
        (15, "usage"),
    )


def test_vllms_recorded_answer_stream_is_read_to_its_text():
    reply = Reply()
    s = fed(*recorded("vllm_responses_text.sse"), reply=reply)
    assert (s.done, s.chunks, s.reasoning_chunks, s.output_tokens) == (True, 11, 0, (12, "usage"))
    done = [json.loads(p) for p in recorded("vllm_responses_text.sse") if b"output_text.done" in p]
    assert reply.content == done[0]["text"]


def test_vllms_recorded_tool_call_stream_is_read_to_its_call():
    s = fed(*recorded("vllm_responses_tool_call.sse"))
    (call,) = s.tool_calls
    assert (call.id, call.name, call.arguments) == (
        "chatcmpl-tool-bc671f5128caa1cc",
        "read_file",
        "{}",
    )
    assert (s.done, s.chunks, s.ttfo is not None, s.output_tokens) == (True, 2, True, (32, "usage"))
