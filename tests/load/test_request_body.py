"""What goes out: the body for each API, the user's extras, and the request headers."""

from __future__ import annotations

import json

import pytest

from sparkload.client import Connection, StreamRequest, build_body, build_headers, measure
from sparkload.records import RequestRecord
from tests.servers import Script, scripted


def test_a_completions_body_carries_a_prompt_string_and_asks_for_usage():
    body = json.loads(build_body("m", "Once upon", 16, api="completions"))
    assert body["prompt"] == "Once upon" and "messages" not in body
    assert body["stream"] is True and body["stream_options"] == {"include_usage": True}


def test_extra_body_is_merged_over_the_workloads_sampling():
    extra = {"temperature": 0.0, "seed": 7, "chat_template_kwargs": {"enable_thinking": False}}
    body = json.loads(
        build_body("m", "hi", 16, {"temperature": 0.7, "top_p": 0.9}, extra_body=extra)
    )
    assert (body["temperature"], body["top_p"], body["seed"]) == (0.0, 0.9, 7)
    assert body["chat_template_kwargs"] == {"enable_thinking": False}


def test_extras_cannot_switch_off_the_stream_or_its_usage_chunk():
    extra = {"stream": False, "stream_options": {"continuous_usage_stats": True}}
    body = json.loads(build_body("m", "hi", 16, extra_body=extra))
    assert body["stream"] is True
    assert body["stream_options"] == {"continuous_usage_stats": True, "include_usage": True}


def test_extra_headers_are_sent_and_a_header_with_a_line_break_is_refused():
    assert build_headers(None, extra_headers={"X-Team": "perf"})["X-Team"] == "perf"
    with pytest.raises(ValueError) as caught:
        build_headers(None, extra_headers={"X-Token": "secret\r\nX-Evil: 1"})
    assert "secret" not in str(caught.value)


def test_a_completions_stream_is_timed_and_counted_like_a_chat_stream():
    with scripted(Script(tokens=8, gap=0.003, api="completions")) as server:
        connection = Connection(server.url, timeout=5)
        request = StreamRequest(
            "/v1/completions",
            build_body("m", "Once upon", 8, api="completions"),
            build_headers(None, extra_headers={"X-Team": "perf"}),
            timeout=5,
            api="completions",
        )
        record = measure(
            connection, request, RequestRecord("r", 1, 0, "measure", "l", 0, "h", "m", 0, 8, 0.0)
        )
        connection.close()
        head, body = server.requests[0]
    assert head.startswith("POST /v1/completions HTTP/1.1") and "X-Team: perf" in head
    assert json.loads(body)["prompt"] == "Once upon"
    assert (record.status, record.chunks, record.output_tokens, record.tokens_counted_by) == (
        "ok",
        8,
        8,
        "usage",
    )
    assert 0.002 < record.itl < 0.02 and record.ttft < record.latency
