"""The embeddings API: its body (the inputs, the run's extras, no stream) and its reader of the
one JSON body (usage's prompt tokens; no token, no TTFT, no output count; each failure class)."""

import orjson
import pytest

from sparkload.apis import wire_api
from sparkload.apis.embeddings import EmbeddingsBody
from sparkload.body import BodyTemplate
from sparkload.records import (
    API_EMBEDDINGS,
    ERROR_EMPTY_OUTPUT,
    ERROR_MALFORMED_BODY,
    ERROR_SERVER_EVENT,
)
from sparkload.transport.tally import StreamError
from sparkload.workloads.contract import PlannedRequest


def sent(planned: PlannedRequest, extras: dict | None = None) -> dict:
    return orjson.loads(BodyTemplate("m", 64, API_EMBEDDINGS, extras or {}).encode(planned))


def answer(**fields) -> bytes:
    body = {
        "id": "embd-1",
        "object": "list",
        "data": [{"index": 0, "object": "embedding", "embedding": [0.1, 0.2]}],
        "usage": {"prompt_tokens": 42, "total_tokens": 42, "completion_tokens": 0},
        **fields,
    }
    return orjson.dumps(body)


def test_body_sends_the_planned_inputs_as_input():
    planned = PlannedRequest("first", 64, inputs=("first", "second", "third"))
    assert sent(planned) == {"model": "m", "input": ["first", "second", "third"]}


def test_body_sends_a_request_of_one_text_as_a_list_of_one():
    assert sent(PlannedRequest("only", 64))["input"] == ["only"]


def test_body_carries_the_runs_extras_but_no_stream_or_output_length():
    body = sent(PlannedRequest("x", 64), {"encoding_format": "float", "dimensions": 4})
    assert body == {"model": "m", "input": ["x"], "encoding_format": "float", "dimensions": 4}


def test_api_reads_one_body_and_carries_neither_messages_nor_tools():
    api = wire_api(API_EMBEDDINGS)
    assert (api.route, api.streams, api.batches_inputs) == ("/embeddings", False, True)
    assert not api.carries_messages and not api.carries_tools


def test_reader_takes_the_body_whole_with_the_usages_prompt_tokens():
    tally = EmbeddingsBody()
    assert tally.feed(answer(), 0.25) is True
    assert (tally.done, tally.t_done, tally.prompt_tokens) == (True, 0.25, 42)
    assert tally.response_id == "embd-1"


def test_reader_times_no_token_and_counts_no_output():
    tally = EmbeddingsBody()
    tally.feed(answer(), 0.25)
    assert (tally.ttft, tally.t_last_token, tally.chunks) == (None, None, 0)
    assert tally.output_tokens == (None, None)
    assert tally.answer_tokens is None


def test_reader_without_usage_leaves_the_prompt_tokens_unknown():
    tally = EmbeddingsBody()
    tally.feed(answer(usage=None), 0.1)
    assert tally.prompt_tokens is None


@pytest.mark.parametrize(
    ("body", "kind"),
    [
        (b"{not json", ERROR_MALFORMED_BODY),
        (b"[1, 2]", ERROR_MALFORMED_BODY),
        (orjson.dumps({"object": "list"}), ERROR_MALFORMED_BODY),
        (answer(data=[]), ERROR_EMPTY_OUTPUT),
        (orjson.dumps({"error": {"message": "too long"}}), ERROR_SERVER_EVENT),
    ],
    ids=["not-json", "not-an-object", "no-data", "no-embedding", "error-object"],
)
def test_reader_classifies_a_body_it_cannot_take(body, kind):
    with pytest.raises(StreamError) as raised:
        EmbeddingsBody().feed(body, 0.1)
    assert raised.value.kind == kind
