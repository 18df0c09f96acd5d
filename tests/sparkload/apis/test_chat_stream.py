"""The chat stream interpreter: which chunks count, when, and how failures are classified."""

import json

import pytest

from sparkload.apis.chat import ChatStream
from sparkload.apis.completions import CompletionsStream
from sparkload.transport.tally import Reply, StreamError


def chunk(delta=None, finish_reason=None, usage=None, choices=True) -> str:
    body = {"id": "chatcmpl-1", "object": "chat.completion.chunk"}
    body["choices"] = (
        [{"index": 0, "delta": delta or {}, "finish_reason": finish_reason}] if choices else []
    )
    if usage is not None:
        body["usage"] = usage
    return json.dumps(body)


def feed_all(events: list[tuple[float, str]], stream: ChatStream | None = None) -> ChatStream:
    stream = stream or ChatStream()
    for at, data in events:
        if stream.feed(data.encode(), at):
            break
    return stream


def test_role_only_and_empty_chunks_do_not_count_as_tokens():
    stream = feed_all(
        [
            (0.1, chunk({"role": "assistant", "content": ""})),
            (0.2, chunk({"content": ""})),
            (0.3, chunk({"content": "Hi"})),
        ]
    )
    assert stream.ttft == pytest.approx(0.3)
    assert stream.chunks == 1


def test_role_chunk_carrying_the_first_token_counts():
    stream = feed_all([(0.25, chunk({"role": "assistant", "content": "Hello"}))])
    assert stream.ttft == pytest.approx(0.25)


@pytest.mark.parametrize("field", ["reasoning", "reasoning_content"])
def test_reasoning_delta_sets_ttft_but_not_ttfc(field):
    stream = feed_all(
        [
            (0.2, chunk({field: "thinking"})),
            (0.5, chunk({"content": "answer"})),
        ]
    )
    assert stream.ttft == pytest.approx(0.2)
    assert stream.ttfc == pytest.approx(0.5)


def test_tool_call_delta_counts_as_a_token():
    stream = feed_all([(0.4, chunk({"tool_calls": [{"index": 0, "function": {"name": "f"}}]}))])
    assert stream.ttft == pytest.approx(0.4)


def test_gaps_are_measured_between_token_chunks_only():
    stream = feed_all(
        [
            (0.1, chunk({"content": "a"})),
            (0.2, chunk({}, finish_reason=None)),
            (0.3, chunk({"content": "b"})),
            (0.6, chunk({"content": "c"})),
        ]
    )
    assert stream.gaps == pytest.approx([0.2, 0.3])
    assert stream.t_last_token == pytest.approx(0.6)


def test_usage_chunk_gives_output_tokens_even_when_chunks_carry_several():
    stream = feed_all(
        [
            (0.1, chunk({"content": "a b c"})),
            (0.2, chunk({"content": "d e"})),
            (
                0.3,
                chunk(
                    choices=False,
                    usage={
                        "prompt_tokens": 128,
                        "completion_tokens": 5,
                        "prompt_tokens_details": {"cached_tokens": 96},
                    },
                ),
            ),
            (0.31, "[DONE]"),
        ]
    )
    assert stream.output_tokens == (5, "usage")
    assert stream.chunks == 2
    assert stream.prompt_tokens == 128
    assert stream.cached_tokens == 96
    assert stream.done


def test_without_usage_output_tokens_fall_back_to_chunk_count():
    stream = feed_all(
        [(0.1, chunk({"content": "a"})), (0.2, chunk({"content": "b"})), (0.3, "[DONE]")]
    )
    assert stream.output_tokens == (2, "chunks")


def test_finish_reason_is_kept():
    stream = feed_all([(0.1, chunk({"content": "a"})), (0.2, chunk({}, finish_reason="length"))])
    assert stream.finish_reason == "length"


def test_done_marker_ends_the_stream():
    stream = ChatStream()
    assert stream.feed(b"[DONE]", 1.0) is True


def test_invalid_json_is_a_malformed_sse_failure():
    with pytest.raises(StreamError) as caught:
        ChatStream().feed(b'{"choices": [', 1.0)
    assert caught.value.kind == "malformed_sse"


def test_json_that_is_not_an_object_is_malformed():
    with pytest.raises(StreamError) as caught:
        ChatStream().feed(b"[1, 2]", 1.0)
    assert caught.value.kind == "malformed_sse"


def test_error_object_inside_a_200_stream_is_a_server_error_event():
    error = json.dumps(
        {
            "error": {
                "message": "Internal server error",
                "type": "InternalServerError",
                "param": None,
                "code": 500,
            }
        }
    )
    with pytest.raises(StreamError) as caught:
        ChatStream().feed(error.encode(), 1.0)
    assert caught.value.kind == "server_error_event"
    assert "Internal server error" in str(caught.value)


def test_old_style_flat_error_object_is_a_server_error_event():
    with pytest.raises(StreamError) as caught:
        ChatStream().feed(json.dumps({"object": "error", "message": "boom"}).encode(), 1.0)
    assert caught.value.kind == "server_error_event"


def completion(text: str | None) -> str:
    return json.dumps(
        {"id": "cmpl-1", "object": "text_completion", "choices": [{"index": 0, "text": text}]}
    )


def test_completions_chunks_count_by_their_text():
    stream = CompletionsStream()
    for at, data in [(0.1, completion("")), (0.2, completion("Hi")), (0.5, completion(" there"))]:
        stream.feed(data.encode(), at)
    assert (stream.ttft, stream.ttfc, stream.chunks) == (0.2, 0.2, 2)
    assert stream.gaps == pytest.approx([0.3])


def test_a_chat_delta_means_nothing_to_a_completions_stream():
    stream = CompletionsStream()
    stream.feed(chunk({"content": "Hi"}).encode(), 0.1)
    assert stream.chunks == 0


def test_a_reply_stream_keeps_the_replys_text_without_reasoning_or_tool_calls():
    stream = feed_all(
        [
            (0.1, chunk({"reasoning_content": "let me think"})),
            (0.2, chunk({"role": "assistant", "content": "Hel"})),
            (0.3, chunk({"tool_calls": [{"index": 0, "function": {"name": "f"}}]})),
            (0.4, chunk({"content": "lo"})),
            (0.5, "[DONE]"),
        ],
        ChatStream(Reply()),
    )
    assert stream.reply is not None and stream.reply.content == "Hello"
    assert (stream.chunks, stream.ttft, stream.ttfc) == (4, 0.1, 0.2)


def test_a_reply_stream_assembles_each_tool_call_from_its_deltas():
    def call(index, **function):
        return chunk({"tool_calls": [{"index": index, "function": function}]})

    stream = feed_all(
        [
            (0.1, chunk({"tool_calls": [{"index": 0, "id": "c0", "function": {"name": "read"}}]})),
            (0.2, call(0, arguments='{"path": ')),
            (0.3, chunk({"tool_calls": [{"index": 1, "id": "c1", "function": {"name": "ls"}}]})),
            (0.4, call(0, arguments='"a.py"}')),
            (0.5, call(1, arguments="{}")),
            (0.6, "[DONE]"),
        ],
        ChatStream(Reply()),
    )
    assert stream.reply is not None
    calls = [(c.index, c.id, c.name, c.arguments) for c in stream.reply.tool_calls]
    assert calls == [(0, "c0", "read", '{"path": "a.py"}'), (1, "c1", "ls", "{}")]
    assert stream.reply.content == ""


def test_a_reply_stream_keeps_a_completions_text():
    events = [json.dumps({"choices": [{"index": 0, "text": piece}]}) for piece in ("Once", " upon")]
    stream = CompletionsStream(Reply())
    for at, data in enumerate(events):
        stream.feed(data.encode(), at)
    assert stream.reply.content == "Once upon"


def test_a_plain_chat_stream_keeps_no_text():
    stream = feed_all([(0.1, chunk({"content": "Hi"}))])
    assert stream.reply is None
