"""What a stream reports beyond its timings: nothing for what it did not see, the server's id,
and failure messages that quote the server, bounded."""

from __future__ import annotations

import json

import pytest

from sparkload.apis.chat import ChatStream
from sparkload.transport.tally import StreamError


def token(text: str, chunk_id: str = "chatcmpl-1") -> bytes:
    choice = {"index": 0, "delta": {"content": text}, "finish_reason": None}
    return json.dumps({"id": chunk_id, "choices": [choice]}).encode()


def failure(data: bytes) -> StreamError:
    with pytest.raises(StreamError) as caught:
        ChatStream().feed(data, 1.0)
    return caught.value


def test_a_stream_that_saw_nothing_reports_nothing_observed():
    stream = ChatStream()
    assert (stream.ttft, stream.ttfc, stream.t_last_token, stream.t_done) == (None,) * 4
    assert (stream.usage, stream.finish_reason, stream.response_id) == (None, None, None)
    assert (stream.done, stream.chunks, stream.gaps) == (False, 0, [])
    assert (stream.output_tokens, stream.prompt_tokens, stream.cached_tokens) == (
        (0, "chunks"),
        None,
        None,
    )


def test_the_done_marker_is_when_the_stream_ended():
    stream = ChatStream()
    stream.feed(token("a"), 0.5)
    assert not stream.done and stream.t_done is None
    stream.feed(b"[DONE]", 0.75)
    assert stream.done and stream.t_done == 0.75


def test_the_completion_id_is_the_first_chunks():
    stream = ChatStream()
    for at, chunk_id in ((0.1, "chatcmpl-first"), (0.2, "chatcmpl-second")):
        stream.feed(token("a", chunk_id), at)
    assert stream.response_id == "chatcmpl-first"


def test_a_chunk_without_an_id_leaves_room_for_the_next_ones():
    stream = ChatStream()
    stream.feed(json.dumps({"choices": []}).encode(), 0.1)
    stream.feed(token("a", "chatcmpl-late"), 0.2)
    assert stream.response_id == "chatcmpl-late"


def test_an_error_event_fails_with_the_servers_message():
    error = {"error": {"message": "Internal server error", "type": "x", "code": 500}}
    assert str(failure(json.dumps(error).encode())) == "Internal server error"


def test_an_old_style_flat_error_fails_with_its_message():
    assert str(failure(json.dumps({"object": "error", "message": "boom"}).encode())) == "boom"


def test_an_error_without_a_message_is_quoted_whole():
    error = {"error": {"code": 503}}
    assert str(failure(json.dumps(error).encode())) == "{'code': 503}"


def test_an_error_given_as_plain_text_is_quoted():
    assert str(failure(json.dumps({"error": "overloaded"}).encode())) == "overloaded"


@pytest.mark.parametrize("error", [{"message": "m" * 500}, "t" * 500])
def test_an_error_message_is_cut_to_200_characters(error):
    assert len(str(failure(json.dumps({"error": error}).encode()))) == 200


def test_an_event_that_is_not_json_is_quoted_in_the_failure_cut_to_80_bytes():
    data = b"{" + b"x" * 200
    assert str(failure(data)) == f"not JSON: {data[:80]!r}"


def test_json_that_is_not_an_object_is_quoted_in_the_failure_cut_to_80_bytes():
    data = json.dumps(list(range(100))).encode()
    assert str(failure(data)) == f"not a JSON object: {data[:80]!r}"
