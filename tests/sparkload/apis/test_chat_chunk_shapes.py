"""A chunk of the usual shape is read into only the fields the stream needs; every other shape
is read whole. Both readings must agree on everything a record is filled from."""

from __future__ import annotations

import pytest

from sparkload.apis.chat import ChatStream
from sparkload.apis.completions import CompletionsStream
from sparkload.records import ERROR_MALFORMED_SSE, ERROR_SERVER_EVENT
from sparkload.transport.tally import Reply, ReplyTally, StreamError

CHUNKS = [
    b'{"id":"c1","choices":[{"index":0,"delta":{"role":"assistant","content":""}}]}',
    b'{"id":"c1","choices":[{"delta":{"content":"Hi"},"logprobs":null,"finish_reason":null}]}',
    b'{"id":"c1","choices":[{"delta":{"content":" there","reasoning":null,"tool_calls":null}}]}',
    b'{"id":"c1","choices":[{"delta":{"reasoning":"think"}}]}',
    b'{"id":"c1","choices":[{"delta":{"reasoning_content":"more","content":"x"}}]}',
    b'{"id":"c1","choices":[{"delta":{"tool_calls":[{"index":0,"id":"t","function":'
    b'{"name":"f","arguments":"{\\"a\\""}}]}}]}',
    b'{"id":"c1","choices":[{"delta":{"tool_calls":[{"index":0,"function":{"arguments":":1}"}}]}}]}',
    b'{"id":"c1","choices":[{"delta":{"tool_calls":[]}}]}',
    b'{"id":"c1","choices":[{"delta":{}}]}',
    b'{"id":"c1","choices":[{"delta":null}]}',
    b'{"id":"c1","choices":[]}',
    b'{"id":"c1","choices":null}',
    b'{"id":"c1"}',
    b'{"id":7,"choices":[{"delta":{"content":"id not a string"}}]}',
    b'{"id":"c1","object":5,"choices":[{"delta":{"content":"object not a string"}}]}',
    b'{"id":"c1","choices":[{"delta":{"content":"y"},"finish_reason":"stop"}]}',
    b'{"id":"c1","choices":[{"delta":{"content":"z"},"finish_reason":7}]}',
    b'{"id":"c1","choices":[{"delta":{"content":["not","text"]}}]}',
    b'{"id":"c1","choices":[{"delta":{"content":"u"}}],"usage":{"completion_tokens":9}}',
    b'{"id":"c1","choices":[],"usage":{"prompt_tokens":3,"completion_tokens":12,'
    b'"prompt_tokens_details":{"cached_tokens":2}}}',
    b'{"id":"c1","choices":[],"usage":null}',
    b'{"id":"c1","choices":[],"usage":{}}',
    b'{"id":"c1","choices":[],"usage":{"completion_tokens":4},"metrics":{"queue_time_ms":1.5,'
    b'"speculative_decoding":{"acceptance_histogram":[0,1,3],"num_spec_steps":4}}}',
    b'{"id":"c1","choices":[],"metrics":null}',
    b'{"id":"c1","choices":[],"metrics":"not an object"}',
]


def state(stream: ChatStream) -> dict:
    """Everything a record is filled from."""
    calls = [(c.index, c.id, c.name, c.arguments, c.malformed) for c in stream.tool_calls]
    return {
        name: getattr(stream, name)
        for name in ReplyTally.__slots__
        if name not in ("tool_calls", "reply")
    } | {"calls": calls, "reply": stream.reply and stream.reply.content}


@pytest.mark.parametrize("keeps_reply", [False, True])
@pytest.mark.parametrize("chunk", CHUNKS)
def test_a_chunk_read_by_shape_is_counted_as_a_chunk_read_whole(keeps_reply, chunk):
    by_shape = ChatStream(Reply() if keeps_reply else None)
    whole = ChatStream(Reply() if keeps_reply else None)
    for feed in (by_shape.feed, whole._feed_any):
        feed(CHUNKS[1], 0.5)  # a token before, so gaps and first-token times show
        feed(chunk, 1.25)
    assert state(by_shape) == state(whole)


@pytest.mark.parametrize(
    "chunk",
    [
        b'{"choices":[{"text":"a"}]}',
        b'{"choices":[{"text":""}]}',
        b'{"choices":[{"text":null,"finish_reason":"length"}]}',
        b'{"choices":[{"text":5}]}',
    ],
)
def test_a_completions_chunk_read_by_shape_is_counted_as_one_read_whole(chunk):
    by_shape, whole = CompletionsStream(), CompletionsStream()
    by_shape.feed(chunk, 1.0)
    whole._feed_any(chunk, 1.0)
    assert state(by_shape) == state(whole)


@pytest.mark.parametrize(
    "chunk", [b'{"error":null,"choices":[]}', b'{"error":{"message":"no"}}', b'{"object":"error"}']
)
def test_a_chunk_with_an_error_field_even_a_null_one_is_the_servers_error(chunk):
    with pytest.raises(StreamError) as caught:
        ChatStream().feed(chunk, 1.0)
    assert caught.value.kind == ERROR_SERVER_EVENT


@pytest.mark.parametrize("chunk", [b'{"choices":[{"delta":{"tool_calls":5}}]}', b"[1]", b"{"])
def test_a_malformed_chunk_fails_as_it_did_when_every_chunk_was_read_whole(chunk):
    with pytest.raises(StreamError) as caught:
        ChatStream().feed(chunk, 1.0)
    assert caught.value.kind == ERROR_MALFORMED_SSE
