"""A thinking model's and a tool call's record, measured on 127.0.0.1: what the record keeps of
the reasoning, the answer and the tool calls, and that neither a reply that never answered nor a
malformed tool-call delta breaks the client."""

from __future__ import annotations

import json

import pytest

from sparkload.records import COUNTED_BY_CHUNKS, COUNTED_BY_USAGE, STATUS_OK
from tests.servers import Script
from tests.sparkload.transport.test_client_measure import answer, measured


def event(delta: dict | None = None, finish: str | None = None, usage: dict | None = None) -> bytes:
    choices = [] if delta is None else [{"index": 0, "delta": delta, "finish_reason": finish}]
    body: dict = {"id": "chatcmpl-t", "object": "chat.completion.chunk", "choices": choices}
    if usage is not None:
        body["usage"] = usage
    return b"data: " + json.dumps(body).encode() + b"\n\n"


def served(*events: bytes):
    """The record of one request answered with ``events`` and ``[DONE]`` in one response."""
    body = b"".join(events) + b"data: [DONE]\n\n"
    (record,), _ = measured(Script(raw_response=answer(body)))
    return record


def test_reasoning_and_answer_are_counted_apart_in_the_record():
    record = served(
        event({"role": "assistant", "content": ""}),
        *(event({"reasoning_content": f" r{i}"}) for i in range(4)),
        *(event({"content": f" a{i}"}) for i in range(3)),
        event(usage={"prompt_tokens": 3, "completion_tokens": 7}),
    )
    assert record.status == STATUS_OK
    assert (record.reasoning_tokens, record.reasoning_counted_by) == (4, COUNTED_BY_CHUNKS)
    assert (record.output_tokens, record.answer_tokens) == (7, 3)
    assert record.ttft <= record.t_last_reasoning <= record.ttfo <= record.t_last_token
    assert record.ttfc == record.ttfo and record.tool_calls is None


def test_the_servers_reasoning_count_wins_over_the_chunks():
    details = {"reasoning_tokens": 6}
    record = served(
        *(event({"reasoning": f" r{i}"}) for i in range(3)),  # MTP: two tokens a chunk
        event({"content": " a"}),
        event(usage={"completion_tokens": 8, "completion_tokens_details": details}),
    )
    assert (record.reasoning_tokens, record.reasoning_counted_by) == (6, COUNTED_BY_USAGE)
    assert record.answer_tokens == 2


def test_a_reply_that_never_leaves_its_reasoning_is_an_ok_record_without_ttfo():
    record = served(
        *(event({"reasoning": f" r{i}"}) for i in range(3)),
        event({"reasoning": " r3"}, finish="length"),
        event(usage={"completion_tokens": 4}),
    )
    assert (record.status, record.error_kind, record.finish_reason) == (STATUS_OK, None, "length")
    assert record.ttft is not None and record.ttfo is None and record.ttfc is None
    assert (record.reasoning_tokens, record.answer_tokens, record.answer_tps) == (4, 0, None)
    assert "ttfo" not in record.to_dict()


def test_a_tool_call_reply_records_its_calls_their_completion_and_validity():
    def call(**fields) -> bytes:
        return event({"tool_calls": [{"index": 0, **fields}]})

    record = served(
        call(id="c0", type="function", function={"name": "run"}),
        call(function={"arguments": '{"cmd": '}),
        call(function={"arguments": '"ls"}'}),
        event({}, finish="tool_calls"),
        event(usage={"completion_tokens": 9}),
    )
    assert record.status == STATUS_OK
    assert (record.tool_calls, record.tool_args_valid) == (1, True)
    assert record.ttfo == record.ttft and record.ttfc is None
    assert record.tool_args_done == record.t_last_token
    assert record.reasoning_tokens is None and record.answer_tokens is None


def test_tool_calls_that_are_not_a_list_are_a_classified_failure_not_a_traceback():
    record = served(event({"content": "a"}), event({"tool_calls": {"index": 0}}))
    assert (record.status, record.error_kind) == ("error", "malformed_sse")
    assert "tool_calls is not a list" in record.error
    assert record.ttft is not None  # what was measured before is kept


@pytest.mark.parametrize(
    "bad",
    [
        {"index": "0", "function": {"arguments": 5}},
        {"index": None, "function": "run"},
        {"function": {"name": 3, "arguments": {"cmd": "ls"}}},
    ],
)
def test_a_tool_call_delta_with_wrong_field_types_is_tolerated(bad):
    record = served(event({"tool_calls": [bad]}), event({"content": "a"}))
    assert (record.status, record.tool_calls) == (STATUS_OK, 1)
    assert record.tool_args_valid is False


def test_a_plain_reply_keeps_its_record_as_it_was_but_for_its_ttfo():
    record = served(event({"content": "a"}), event({"content": "b"}))
    kept = record.to_dict()
    assert kept["ttfo"] == record.ttft
    assert not {"reasoning_tokens", "answer_tokens", "tool_calls", "answer_tps"} & set(kept)
