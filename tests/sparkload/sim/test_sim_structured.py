"""The simulator's structured replies: JSON that matches the request's schema, laid over the
engine's tokens, a set share broken on purpose (checked with jsonschema, independently)."""

from __future__ import annotations

import json

import jsonschema
import pytest

from sparkload.inputs.schemas import BUILTIN_SCHEMAS
from sparkload.sim.responses import ResponsesWriter
from sparkload.sim.sse import ChunkWriter
from sparkload.sim.structured import PlannedJson, StructuredReplier, instance


def schema_format(schema: dict) -> dict:
    return {"type": "json_schema", "json_schema": {"name": "s", "schema": schema}}


@pytest.mark.parametrize("name", list(BUILTIN_SCHEMAS))
def test_an_instance_of_each_builtin_schema_matches_it(name):
    jsonschema.validate(instance(BUILTIN_SCHEMAS[name]), BUILTIN_SCHEMAS[name])


def test_a_request_without_a_response_format_gets_no_planned_json():
    assert StructuredReplier().plan(None) is None
    assert StructuredReplier().plan({"type": "text"}) is None


def test_a_json_object_request_gets_a_json_object():
    assert isinstance(json.loads(StructuredReplier().plan({"type": "json_object"}).text), dict)


def test_the_error_rate_breaks_that_share_half_not_json_half_against_the_schema():
    schema = BUILTIN_SCHEMAS["nested"]
    replier = StructuredReplier(0.1, seed=7)
    kinds = {"valid": 0, "parse": 0, "schema": 0}
    for _ in range(2000):
        text = replier.plan(schema_format(schema)).text
        try:
            value = json.loads(text)
        except ValueError:
            kinds["parse"] += 1
            continue
        kinds["valid" if jsonschema.Draft202012Validator(schema).is_valid(value) else "schema"] += 1
    assert 150 <= kinds["parse"] + kinds["schema"] <= 250
    assert 60 <= kinds["parse"] <= 140 and 60 <= kinds["schema"] <= 140


def test_the_same_seed_breaks_the_same_replies():
    def texts(seed):
        replier = StructuredReplier(0.5, seed)
        return [replier.plan({"type": "json_object"}).text for _ in range(50)]

    assert texts(3) == texts(3) != texts(4)


def test_the_text_is_spread_over_the_tokens_and_padded_with_spaces_past_its_end():
    planned = PlannedJson('{"a": 12345}')  # 12 characters: 3 tokens of 4
    assert planned.piece(0, 2) + planned.piece(2, 5) == '{"a": 12345}  '
    assert planned.complete(3) and not planned.complete(2)


def stream_content(planned: PlannedJson, tokens: int) -> tuple[str, str]:
    """The content and finish reason a chat stream of ``tokens`` one-token chunks carries."""
    writer = ChunkWriter("id", "m", 10, structured=planned)
    frames = [writer.tokens(1, 0, last=i == tokens - 1) for i in range(tokens)]
    chunks = [json.loads(f.removeprefix(b"data: ")) for f in frames]
    choices = [c["choices"][0] for c in chunks]
    return "".join(c["delta"]["content"] for c in choices), choices[-1]["finish_reason"]


def test_a_reply_the_tokens_hold_ends_with_stop_and_parses():
    content, finish = stream_content(PlannedJson('{"a": 12345}'), 6)
    assert finish == "stop" and json.loads(content) == {"a": 12345}


def test_a_reply_max_tokens_cuts_ends_with_length():
    content, finish = stream_content(PlannedJson('{"a": 12345}'), 2)
    assert (content, finish) == ('{"a": 12', "length")


@pytest.mark.parametrize(("tokens", "status"), [(6, "completed"), (2, "incomplete")])
def test_a_responses_reply_ends_completed_when_its_json_is_whole_and_incomplete_when_cut(
    tokens, status
):
    writer = ResponsesWriter("id", "m", 10, structured=PlannedJson('{"a": 12345}'))
    for i in range(tokens):
        writer.tokens(1, 0, last=i == tokens - 1)
    response = writer.completion(0)
    assert response["status"] == status
    text = response["output"][0]["content"][0]["text"]  # the streamed text, padding included
    assert text.rstrip(" ") == '{"a": 12345}'[: tokens * 4]
