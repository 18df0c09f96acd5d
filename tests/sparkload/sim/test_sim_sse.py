"""Chunk framing, without a network."""

import json

from sparkload.sim.sse import ChunkWriter, malformed_frame


def frames(data: bytes) -> list[dict]:
    return [json.loads(line[6:]) for line in data.split(b"\n\n") if line.startswith(b"data: {")]


def test_role_chunk_has_empty_content_and_counts_no_tokens():
    writer = ChunkWriter("id", "m", prompt_tokens=10, continuous_usage=True)
    writer.tokens(3, visible_from=0, last=False)
    (role,) = frames(writer.role())
    assert role["choices"][0]["delta"] == {"role": "assistant", "content": ""}
    assert role["usage"]["completion_tokens"] == 0


def test_hidden_first_token_produces_no_chunk_but_counts_in_usage():
    writer = ChunkWriter("id", "m", prompt_tokens=10)
    assert writer.tokens(1, visible_from=1, last=False) == b""
    (chunk,) = frames(writer.tokens(2, visible_from=1, last=False))
    assert chunk["choices"][0]["delta"]["content"] == " load test"
    assert writer.usage()["completion_tokens"] == 3


def test_reasoning_tokens_come_before_content_in_the_chosen_field():
    writer = ChunkWriter("id", "m", 10, reasoning_tokens=2, reasoning_field="reasoning_content")
    reasoning, content = frames(writer.tokens(4, visible_from=0, last=False))
    assert reasoning["choices"][0]["delta"] == {"reasoning_content": " the load"}
    assert content["choices"][0]["delta"] == {"content": " test runs"}


def test_last_token_chunk_carries_finish_reason_length():
    writer = ChunkWriter("id", "m", 10)
    (chunk,) = frames(writer.tokens(2, visible_from=0, last=True))
    assert chunk["choices"][0]["finish_reason"] == "length"


def test_continuous_usage_counts_tokens_so_far():
    writer = ChunkWriter("id", "m", 10, continuous_usage=True)
    writer.tokens(3, 0, False)
    (chunk,) = frames(writer.tokens(4, 0, False))
    assert chunk["usage"] == {"prompt_tokens": 10, "total_tokens": 17, "completion_tokens": 7}


def test_usage_chunk_has_no_choices_and_reports_cached_tokens():
    writer = ChunkWriter("id", "m", 10, cached_tokens=16)
    writer.tokens(5, 0, True)
    (chunk,) = frames(writer.usage_chunk())
    assert chunk["choices"] == []
    assert chunk["usage"]["prompt_tokens_details"] == {"cached_tokens": 16}


def test_malformed_frame_is_a_data_line_that_is_not_json():
    line = malformed_frame("id").strip()
    assert line.startswith(b"data: {")
    try:
        json.loads(line[6:])
    except ValueError:
        return
    raise AssertionError("malformed frame parsed as JSON")
