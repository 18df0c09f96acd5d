"""A Responses API request measured end to end on 127.0.0.1: vLLM's recorded event sequence
served by a scripted server becomes the record its usage and events say, and a stream that ends
without ``response.completed`` is a failure of its own kind."""

from __future__ import annotations

from pathlib import Path

from sparkload.apis.responses import ResponsesStream
from sparkload.records import RequestRecord
from sparkload.transport.client import Connection, StreamRequest, build_headers, measure
from tests.servers import Script, scripted

RECORDED = Path(__file__).parents[1] / "apis" / "data" / "vllm_responses_reasoning.sse"


def answer(body: bytes) -> bytes:
    return (
        b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nServer: scripted\r\n"
        b"Content-Length: %d\r\n\r\n%s" % (len(body), body)
    )


def measured(body: bytes) -> RequestRecord:
    record = RequestRecord("r0", 1, 0, "measure", "local", 0, "h", "m", 0, 16, 0.0)
    request = StreamRequest(
        "/v1/responses", b"{}", build_headers(None), timeout=5.0, reader=ResponsesStream
    )
    with scripted(Script(raw_response=answer(body))) as server:
        connection = Connection(server.url, timeout=5.0)
        measure(connection, request, record)
        connection.close()
    assert server.requests[0][0].startswith("POST /v1/responses ")
    return record


def test_vllms_recorded_stream_becomes_an_ok_record_with_its_usage():
    r = measured(RECORDED.read_bytes())
    assert (r.status, r.error_kind, r.response_id, r.finish_reason) == (
        "ok",
        None,
        "resp_9625073b10ebfec9",
        "length",
    )
    assert (r.prompt_tokens, r.cached_tokens, r.output_tokens, r.tokens_counted_by) == (
        37,
        0,
        16,
        "usage",
    )
    assert (r.reasoning_tokens, r.reasoning_counted_by, r.chunks, r.ttfo) == (15, "usage", 15, None)
    assert r.ttft is not None and r.latency >= r.ttft


def test_a_stream_without_response_completed_is_a_disconnect_that_names_it():
    cut = RECORDED.read_bytes().split(b"event: response.completed")[0]
    r = measured(cut)
    assert (r.status, r.error_kind, r.error) == (
        "error",
        "disconnect",
        "stream ended without response.completed",
    )
    assert r.chunks == 15
