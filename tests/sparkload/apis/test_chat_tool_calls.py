"""Tool calls in a stream: the first tool-call delta is output (TTFO), the calls are assembled
from their deltas (one code path for every stream), the last delta says when the arguments were
complete, and malformed deltas are tolerated or classified, never a traceback."""

from __future__ import annotations

import pytest

from sparkload.apis.chat import ChatStream
from sparkload.transport.tally import Reply, StreamError
from tests.sparkload.apis.test_chat_stream import chunk, feed_all


def part(index=0, **function) -> dict:
    return {"index": index, "function": function}


def calls(*parts) -> str:
    return chunk({"tool_calls": list(parts)})


def read_file_call() -> list[tuple[float, str]]:
    """A reply that is only a tool call: its name, then its arguments in three fragments."""
    return [
        (0.05, chunk({"role": "assistant", "content": ""})),
        (
            0.1,
            calls({"index": 0, "id": "call_0", "type": "function", "function": {"name": "read"}}),
        ),
        (0.2, calls(part(arguments='{"path"'))),
        (0.3, calls(part(arguments=': "a.py"'))),
        (0.4, calls(part(arguments="}"))),
        (0.5, chunk({}, finish_reason="tool_calls")),
        (0.6, "[DONE]"),
    ]


def test_a_reply_that_is_only_a_tool_call_has_its_ttfo_at_the_calls_first_delta():
    stream = feed_all(read_file_call())
    assert (stream.ttft, stream.ttfo, stream.ttfc) == (0.1, 0.1, None)
    assert [(c.id, c.name, c.arguments) for c in stream.tool_calls] == [
        ("call_0", "read", '{"path": "a.py"}')
    ]
    assert (stream.t_tool_args, stream.tool_args_valid) == (0.4, True)


def test_reasoning_before_a_tool_call_is_not_output():
    stream = feed_all([(0.05, chunk({"reasoning": "I should read it"})), *read_file_call()[1:]])
    assert (stream.ttft, stream.ttfo, stream.reasoning_chunks) == (0.05, 0.1, 1)


def test_the_last_tool_call_delta_is_when_the_arguments_were_complete():
    stream = feed_all(
        [
            (0.1, calls({"index": 0, "id": "a", "function": {"name": "ls", "arguments": "{}"}})),
            (0.2, calls({"index": 1, "id": "b", "function": {"name": "cat"}})),
            (0.3, calls(part(1, arguments='{"f": 1}'))),
            (0.4, chunk({"content": "done"})),
        ]
    )
    assert [c.index for c in stream.tool_calls] == [0, 1]
    assert (stream.t_tool_args, stream.tool_args_valid, stream.t_last_token) == (0.3, True, 0.4)


@pytest.mark.parametrize("arguments", ['{"path": "a.py"', "[1, 2]", '"a.py"', ""])
def test_arguments_that_do_not_parse_as_a_json_object_are_not_valid(arguments):
    stream = feed_all(
        [
            (0.1, calls({"index": 0, "id": "a", "function": {"name": "ls", "arguments": "{}"}})),
            (
                0.2,
                calls({"index": 1, "id": "b", "function": {"name": "x", "arguments": arguments}}),
            ),
        ]
    )
    assert len(stream.tool_calls) == 2 and stream.tool_args_valid is False


def test_a_stream_without_tool_calls_has_no_verdict_on_their_arguments():
    stream = feed_all([(0.1, chunk({"content": "hi"}))])
    assert (stream.tool_calls, stream.t_tool_args, stream.tool_args_valid) == ([], None, None)


def test_an_empty_tool_call_list_is_no_token():
    stream = feed_all([(0.1, chunk({"tool_calls": []})), (0.2, chunk({"content": "a"}))])
    assert (stream.ttft, stream.ttfo, stream.tool_calls) == (0.2, 0.2, [])


def test_the_reply_stream_gets_the_calls_the_stream_assembled():
    stream = feed_all(read_file_call(), ChatStream(Reply()))
    assert stream.reply is not None
    assert stream.reply.tool_calls is stream.tool_calls and len(stream.tool_calls) == 1
    assert stream.reply.content == ""


# Malformed deltas: tolerated where the calls can still be read, classified where they cannot.


@pytest.mark.parametrize("value", [{"index": 0}, "read", 7])
def test_tool_calls_that_are_not_a_list_are_a_malformed_stream(value):
    with pytest.raises(StreamError) as caught:
        feed_all([(0.1, chunk({"tool_calls": value}))])
    assert caught.value.kind == "malformed_sse" and "tool_calls is not a list" in str(caught.value)


def test_a_tool_call_that_is_not_an_object_is_a_malformed_stream():
    with pytest.raises(StreamError) as caught:
        feed_all([(0.1, chunk({"tool_calls": ["read"]}))])
    assert caught.value.kind == "malformed_sse"


@pytest.mark.parametrize("index", [None, "0", 0.0, True])
def test_an_index_that_is_not_an_int_continues_the_call_under_way(index):
    stream = feed_all(
        [
            (0.1, calls({"index": index, "id": "a", "function": {"name": "read"}})),
            (0.2, calls({"index": index, "function": {"arguments": '{"p": '}})),
            (0.3, calls({"index": index, "function": {"arguments": "1}"}})),
            (
                0.4,
                calls({"index": index, "id": "b", "function": {"name": "ls", "arguments": "{}"}}),
            ),
        ]
    )
    assert [(c.id, c.name, c.arguments) for c in stream.tool_calls] == [
        ("a", "read", '{"p": 1}'),
        ("b", "ls", "{}"),
    ]
    assert stream.tool_args_valid is True


def test_deltas_without_any_index_form_one_call_per_id():
    stream = feed_all(
        [
            (0.1, calls({"id": "a", "function": {"name": "read", "arguments": '{"p": 1}'}})),
            (0.2, calls({"id": "a", "function": {"arguments": ""}})),
            (0.3, calls({"id": "b", "function": {"name": "ls", "arguments": "{}"}})),
        ]
    )
    assert [(c.index, c.id) for c in stream.tool_calls] == [(0, "a"), (1, "b")]


@pytest.mark.parametrize("arguments", [{"path": "a.py"}, 3, ["a"]])
def test_arguments_that_are_not_a_string_make_the_call_invalid_not_the_request(arguments):
    stream = feed_all(
        [
            (0.1, calls({"index": 0, "id": "a", "function": {"name": "read"}})),
            (0.2, calls(part(arguments=arguments))),
            (0.3, chunk({"content": "ok"})),
        ]
    )
    assert stream.tool_calls[0].malformed and stream.tool_args_valid is False
    assert (stream.ttfo, stream.chunks) == (0.1, 3)


@pytest.mark.parametrize("function", [None, "read", ["read"], {"name": 5, "arguments": None}])
def test_a_function_that_is_not_an_object_or_a_name_that_is_no_string_is_ignored(function):
    stream = feed_all([(0.1, calls({"index": 0, "id": "a", "function": function}))])
    assert [(c.id, c.name, c.arguments) for c in stream.tool_calls] == [("a", "", "")]
    assert stream.ttfo == 0.1


def test_a_plain_chat_stream_assembles_tool_calls_too():
    """For the arguments' verdict; the reply (its text) is kept only when one is given."""
    stream = feed_all(read_file_call(), ChatStream())
    assert stream.reply is None and len(stream.tool_calls) == 1


def forced_call_cut_at_the_limit(last_arguments: str = "{}") -> list[tuple[float, str]]:
    """vLLM's forced tool call that max_tokens cut: its name, half its arguments, then a last
    chunk with ``"arguments": "{}"`` and finish ``length``, 0.4 s after the last real delta."""
    return [
        (
            0.1,
            calls({"index": 0, "id": "call_0", "type": "function", "function": {"name": "read"}}),
        ),
        (0.2, calls(part(arguments='{"path": "src/ma'))),
        (
            0.6,
            chunk(
                {"tool_calls": [part(arguments=last_arguments)]},
                finish_reason="length",
                usage={"completion_tokens": 8},
            ),
        ),
        (0.7, "[DONE]"),
    ]


def test_a_tool_call_cut_at_max_tokens_is_truncated_never_valid():
    stream = feed_all(forced_call_cut_at_the_limit())
    assert (stream.tool_args_truncated, stream.tool_args_valid) == (True, None)


def test_the_stub_arguments_of_a_call_cut_at_max_tokens_are_not_the_calls():
    stream = feed_all(forced_call_cut_at_the_limit())
    assert stream.tool_calls[0].arguments == '{"path": "src/ma'


def test_the_stub_arguments_are_no_token_and_do_not_move_when_the_arguments_were_done():
    stream = feed_all(forced_call_cut_at_the_limit())
    assert (stream.t_tool_args, stream.t_last_token, stream.chunks) == (0.2, 0.2, 2)
    assert stream.gaps == [pytest.approx(0.1)]


def test_a_call_cut_at_max_tokens_with_only_the_stub_for_arguments_is_truncated_too():
    events = forced_call_cut_at_the_limit()
    del events[1]  # no argument delta before the stub: "{}" alone would parse
    stream = feed_all(events)
    assert stream.tool_calls[0].arguments == ""
    assert (stream.tool_args_truncated, stream.tool_args_valid) == (True, None)


def test_real_arguments_in_the_last_chunk_of_a_cut_call_are_kept():
    stream = feed_all(forced_call_cut_at_the_limit(last_arguments='in.py", "st'))
    assert stream.tool_calls[0].arguments == '{"path": "src/main.py", "st'
    assert (stream.t_tool_args, stream.chunks, stream.tool_args_truncated) == (0.6, 3, True)


def test_empty_arguments_in_the_last_chunk_of_a_finished_call_are_its_arguments():
    events = [
        (0.1, calls({"index": 0, "id": "c", "type": "function", "function": {"name": "ls"}})),
        (0.2, chunk({"tool_calls": [part(arguments="{}")]}, finish_reason="tool_calls")),
    ]
    stream = feed_all(events)
    assert (stream.tool_calls[0].arguments, stream.t_tool_args) == ("{}", 0.2)
    assert (stream.tool_args_truncated, stream.tool_args_valid) == (False, True)
