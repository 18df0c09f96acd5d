"""A thinking model's stream: TTFO (the first output token) beside TTFT (the first token of any
kind), and its reasoning tokens counted apart from its answer tokens."""

from __future__ import annotations

import pytest

from sparkload.apis.chat import ChatStream
from sparkload.apis.completions import CompletionsStream
from sparkload.records import COUNTED_BY_CHUNKS, COUNTED_BY_USAGE
from tests.sparkload.apis.test_chat_stream import chunk, feed_all


def thinking(field: str = "reasoning", usage: dict | None = None) -> ChatStream:
    """Three reasoning chunks (0.1-0.3 s), then two answer chunks (0.5, 0.6 s)."""
    events = [
        (0.05, chunk({"role": "assistant", "content": ""})),
        (0.1, chunk({field: "Let"})),
        (0.2, chunk({field: " me"})),
        (0.3, chunk({field: " think"})),
        (0.5, chunk({"content": "Paris"})),
        (0.6, chunk({"content": "."}, finish_reason="stop")),
    ]
    if usage is not None:
        events.append((0.61, chunk(choices=False, usage=usage)))
    return feed_all([*events, (0.62, "[DONE]")])


@pytest.mark.parametrize("field", ["reasoning", "reasoning_content"])
def test_ttfo_is_the_first_answer_token_and_ttft_the_first_reasoning_token(field):
    stream = thinking(field)
    assert (stream.ttft, stream.ttfo, stream.ttfc) == (0.1, 0.5, 0.5)
    assert (stream.reasoning_chunks, stream.t_last_reasoning) == (3, 0.3)


def test_a_plain_reply_has_its_ttfo_at_its_ttft_and_no_reasoning():
    stream = feed_all([(0.2, chunk({"content": "Hi"})), (0.3, chunk({"content": "!"}))])
    assert stream.ttft == stream.ttfo == 0.2
    assert stream.reasoning_tokens == (None, None) and stream.answer_tokens is None
    assert stream.t_last_reasoning is None


def test_a_role_only_chunk_or_an_empty_content_string_is_not_output():
    stream = feed_all(
        [
            (0.1, chunk({"role": "assistant"})),
            (0.2, chunk({"role": "assistant", "content": ""})),
            (0.3, chunk({"reasoning": "hm", "content": ""})),
            (0.4, chunk({"content": ""})),
            (0.5, chunk({"content": "A"})),
        ]
    )
    assert (stream.ttft, stream.ttfo) == (0.3, 0.5)


def test_fields_sent_as_nulls_are_neither_tokens_nor_output():
    nulls = {"role": None, "reasoning_content": None, "tool_calls": None}
    stream = feed_all(
        [
            (0.1, chunk({**nulls, "content": None})),
            (0.2, chunk({**nulls, "content": "A"})),
            (0.3, chunk({**nulls, "content": "B"})),
        ]
    )
    assert (stream.ttft, stream.ttfo, stream.chunks, stream.reasoning_chunks) == (0.2, 0.2, 2, 0)


def test_a_chunk_that_ends_the_reasoning_and_begins_the_answer_is_both():
    """vLLM's reasoning parser splits a multi-token (MTP) delta at ``</think>`` into both fields."""
    stream = feed_all(
        [
            (0.1, chunk({"reasoning": "so"})),
            (0.2, chunk({"reasoning": " yes", "content": "Yes"})),
            (0.3, chunk({"content": "."})),
        ]
    )
    assert (stream.ttfo, stream.t_last_reasoning, stream.reasoning_chunks) == (0.2, 0.2, 2)
    assert stream.chunks == 3


def test_without_the_usage_details_reasoning_is_counted_from_its_chunks():
    """A lower bound with MTP, where one chunk can carry several tokens: the record says so."""
    stream = thinking(usage={"prompt_tokens": 9, "completion_tokens": 12})
    assert stream.reasoning_tokens == (3, COUNTED_BY_CHUNKS)
    assert stream.output_tokens == (12, COUNTED_BY_USAGE)
    assert stream.answer_tokens == 9  # output tokens − reasoning tokens


def test_the_usage_details_count_the_reasoning_where_the_server_gives_them():
    usage = {
        "prompt_tokens": 9,
        "completion_tokens": 12,
        "completion_tokens_details": {"reasoning_tokens": 8},
    }
    stream = thinking(usage=usage)
    assert stream.reasoning_tokens == (8, COUNTED_BY_USAGE)
    assert stream.answer_tokens == 4


def test_a_zero_in_the_usage_details_beside_streamed_reasoning_is_a_placeholder():
    """A proxy that fills ``completion_tokens_details`` in with zeros does not count reasoning."""
    usage = {"completion_tokens": 12, "completion_tokens_details": {"reasoning_tokens": 0}}
    assert thinking(usage=usage).reasoning_tokens == (3, COUNTED_BY_CHUNKS)


def test_a_zero_in_the_usage_details_of_a_reply_without_reasoning_is_a_count():
    usage = {"completion_tokens": 2, "completion_tokens_details": {"reasoning_tokens": 0}}
    stream = feed_all(
        [
            (0.1, chunk({"content": "A"})),
            (0.2, chunk({"content": "B"})),
            (0.3, chunk(choices=False, usage=usage)),
        ]
    )
    assert (stream.reasoning_tokens, stream.answer_tokens) == ((0, COUNTED_BY_USAGE), 2)


@pytest.mark.parametrize(
    "details", [None, "8", {"reasoning_tokens": "8"}, {"reasoning_tokens": -1}]
)
def test_usage_details_that_are_not_a_count_fall_back_to_the_chunks(details):
    stream = thinking(usage={"completion_tokens": 12, "completion_tokens_details": details})
    assert stream.reasoning_tokens == (3, COUNTED_BY_CHUNKS)


def test_more_reasoning_than_output_in_the_counts_leaves_no_negative_answer():
    stream = thinking(usage={"completion_tokens": 2})  # a server whose usage undercounts
    assert stream.answer_tokens == 0


def test_a_reply_that_never_leaves_its_reasoning_has_no_ttfo():
    """Stopped by max_tokens inside its reasoning: TTFT, tokens, and no first output token."""
    stream = feed_all(
        [
            (0.1, chunk({"reasoning": "a"})),
            (0.2, chunk({"reasoning": " b"}, finish_reason="length")),
            (0.3, chunk(choices=False, usage={"completion_tokens": 2})),
            (0.4, "[DONE]"),
        ]
    )
    assert (stream.ttft, stream.ttfo, stream.chunks, stream.finish_reason) == (
        0.1,
        None,
        2,
        "length",
    )
    assert (stream.reasoning_tokens, stream.answer_tokens) == ((2, COUNTED_BY_CHUNKS), 0)


def test_a_completions_streams_first_text_is_its_first_output():
    stream = CompletionsStream()
    stream.feed(b'{"choices": [{"index": 0, "text": ""}]}', 0.1)
    stream.feed(b'{"choices": [{"index": 0, "text": "Once"}]}', 0.2)
    assert (stream.ttft, stream.ttfo) == (0.2, 0.2)
