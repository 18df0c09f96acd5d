"""Chunk framing, without a network."""

import json

from sparkload.sim.sse import ChunkWriter, malformed_frame
from sparkload.sim.tools import PlannedCall


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


CALL = PlannedCall("chatcmpl-tool-0123", "read_file", '{"path": "src/main.py", "n": 12}')  # 8 tok


class AnyText(str):
    def __eq__(self, other: object) -> bool:
        return isinstance(other, str) and other != ""

    __hash__ = str.__hash__


ANY_TEXT = AnyText()


def deltas(data: bytes) -> list[dict]:
    return [chunk["choices"][0]["delta"] for chunk in frames(data)]


def test_a_tool_call_streams_its_name_first_then_argument_fragments_then_finish_tool_calls():
    writer = ChunkWriter("id", "m", 10, tool_call=CALL)
    first = frames(writer.tokens(1, 0, False))
    middle = [frames(writer.tokens(2, 0, False)) for _ in range(3)]
    last = frames(writer.tokens(2, 0, True))
    assert [c["choices"][0]["delta"] for c in first] == [
        {
            "tool_calls": [
                {
                    "index": 0,
                    "id": "chatcmpl-tool-0123",
                    "type": "function",
                    "function": {"name": "read_file", "arguments": ""},
                }
            ]
        }
    ]
    fragments = [c[0]["choices"][0]["delta"]["tool_calls"] for c in [*middle, last]]
    for fragment in fragments:
        assert fragment == [{"index": 0, "function": {"arguments": ANY_TEXT}}]
    assert "".join(f[0]["function"]["arguments"] for f in fragments) == CALL.arguments
    assert [c[0]["choices"][0]["finish_reason"] for c in [*middle, last]] == [None] * 3 + [
        "tool_calls"
    ]


def test_one_engine_output_with_the_calls_first_tokens_is_its_name_then_its_first_fragment():
    writer = ChunkWriter("id", "m", 10, tool_call=CALL)
    header, fragment = deltas(writer.tokens(3, 0, False))
    assert header["tool_calls"][0]["function"] == {"name": "read_file", "arguments": ""}
    assert fragment["tool_calls"][0]["function"]["arguments"] == '{"path":'


def test_reasoning_comes_before_the_tool_call():
    writer = ChunkWriter("id", "m", 10, reasoning_tokens=2, tool_call=CALL)
    kinds = [next(iter(d)) for n in range(5) for d in deltas(writer.tokens(1, 0, False))]
    assert kinds == ["reasoning", "reasoning", "tool_calls", "tool_calls", "tool_calls"]


def test_a_non_streaming_reply_carries_the_tool_call_in_the_message():
    writer = ChunkWriter("id", "m", 10, reasoning_tokens=1, tool_call=CALL)
    writer.tokens(10, 0, True)
    choice = writer.completion(0)["choices"][0]
    assert choice["finish_reason"] == "tool_calls"
    assert choice["message"]["content"] is None and choice["message"]["reasoning"] == " the"
    assert choice["message"]["tool_calls"] == [CALL.message()]


def test_holdback_sends_nothing_for_the_first_n_answer_tokens_then_them_with_the_next():
    writer = ChunkWriter("id", "m", 10, reasoning_tokens=2, holdback=3)
    out = [deltas(writer.tokens(1, 0, False)) for _ in range(6)]
    assert out[:2] == [[{"reasoning": " the"}], [{"reasoning": " load"}]]
    assert out[2:5] == [[], [], []]
    assert out[5] == [{"content": " test runs on a"}]  # answer tokens 1..4 in one chunk


def test_holdback_counts_tokens_so_an_mtp_output_past_n_releases_them():
    writer = ChunkWriter("id", "m", 10, holdback=3)
    assert writer.tokens(2, 0, False) == b""
    assert deltas(writer.tokens(3, 0, False)) == [{"content": " the load test runs on"}]
    assert deltas(writer.tokens(1, 0, False)) == [{"content": " a"}]


def test_holdback_of_a_tool_call_releases_its_name_and_first_fragment_together():
    writer = ChunkWriter("id", "m", 10, tool_call=CALL, holdback=2)
    assert writer.tokens(1, 0, False) + writer.tokens(1, 0, False) == b""
    header, fragment = deltas(writer.tokens(1, 0, False))
    assert header["tool_calls"][0]["function"]["name"] == "read_file"
    assert fragment["tool_calls"][0]["function"]["arguments"] == '{"path":'


def test_an_answer_shorter_than_the_holdback_comes_whole_with_the_last_token():
    writer = ChunkWriter("id", "m", 10, reasoning_tokens=1, holdback=8)
    writer.tokens(1, 0, False)
    assert writer.tokens(1, 0, False) == b""
    (chunk,) = frames(writer.tokens(1, 0, True))
    assert chunk["choices"][0]["delta"] == {"content": " load test"}
    assert chunk["choices"][0]["finish_reason"] == "length"


def test_usage_counts_reasoning_tokens_apart_without_the_hidden_think_tag():
    writer = ChunkWriter("id", "m", 10, reasoning_tokens=4)
    writer.tokens(9, visible_from=1, last=True)
    (chunk,) = frames(writer.usage_chunk())
    assert chunk["usage"]["completion_tokens"] == 9
    assert chunk["usage"]["completion_tokens_details"] == {"reasoning_tokens": 4}


def test_continuous_usage_counts_reasoning_tokens_so_far():
    writer = ChunkWriter("id", "m", 10, reasoning_tokens=4, continuous_usage=True)
    (chunk,) = frames(writer.tokens(3, 0, False))
    assert chunk["usage"]["completion_tokens_details"] == {"reasoning_tokens": 3}


def test_usage_without_reasoning_details_when_switched_off_or_not_reasoning():
    off = ChunkWriter("id", "m", 10, reasoning_tokens=4, reasoning_usage=False)
    plain = ChunkWriter("id", "m", 10)
    for writer in (off, plain):
        writer.tokens(6, 0, True)
        assert "completion_tokens_details" not in writer.usage()
