"""One measured request, end to end on 127.0.0.1: what an ok record carries, and each way a
request fails becoming its class, with the connection dropped after a failure."""

from __future__ import annotations

import gzip
import json
import socket
import time

from sparkload.apis.chat import ChatStream
from sparkload.records import RequestRecord
from sparkload.transport import client
from sparkload.transport.client import Connection, StreamRequest, build_headers, measure
from sparkload.transport.sse import read_events, receive
from tests.servers import Script, measure_on, plain_body, scripted


def record(index: int = 0) -> RequestRecord:
    return RequestRecord(f"r{index}", 1, 0, "measure", "local", 0, "h", "m", 0, 8, 0.0)


def request(timeout: float = 5.0) -> StreamRequest:
    return StreamRequest(
        "/v1/chat/completions", plain_body("hi", 8), build_headers(None), timeout, ChatStream
    )


def measured(script: Script, timeout: float = 5.0, requests: int = 1):
    """Records of ``requests`` requests on one connection, and how many connections it took."""
    with scripted(script) as server:
        connection = Connection(server.url, timeout=timeout)
        records = [measure(connection, request(timeout), record(i)) for i in range(requests)]
        connection.close()
    return records, server.connections


def answer(body: bytes, status: bytes = b"200 OK", headers: bytes = b"") -> bytes:
    return (
        b"HTTP/1.1 %s\r\nContent-Type: text/event-stream\r\nServer: scripted\r\n%s"
        b"Content-Length: %d\r\n\r\n%s" % (status, headers, len(body), body)
    )


def token_event(text: str = "a") -> bytes:
    choice = {"index": 0, "delta": {"content": text}, "finish_reason": None}
    return b"data: " + json.dumps({"id": "chatcmpl-x", "choices": [choice]}).encode() + b"\n\n"


USAGE = b'data: {"choices": [], "usage": {"prompt_tokens": 3, "completion_tokens": 1}}\n\n'
DONE = b"data: [DONE]\n\n"


def test_an_ok_record_carries_the_streams_figures():
    before = time.time()
    (r,), _ = measure_on(Script(tokens=4, gap=0.002, cached_prompt=True), max_tokens=4)
    assert (r.status, r.error_kind, r.http_status, r.resent, r.clock_adjusted) == (
        "ok",
        None,
        200,
        False,
        False,
    )
    assert before <= r.start_time <= time.time()
    assert (r.chunks, r.output_tokens, r.tokens_counted_by) == (4, 4, "usage")
    assert (r.prompt_tokens, r.cached_tokens, r.response_id) == (5, 5, "chatcmpl-test")
    assert 0 < r.ttfb < r.ttft == r.ttfc < r.t_last_token <= r.latency
    assert r.chunk_gap_mean > 0 and r.chunk_gap_max >= r.chunk_gap_p99 >= r.chunk_gap_p50 > 0
    assert r.chunk_gaps is None and r.itl == (r.t_last_token - r.ttft) / 3
    assert r.error is None


def test_chunk_gaps_are_kept_whole_only_when_asked():
    (r,), _ = measure_on(Script(tokens=5, gap=0.002), max_tokens=5, keep_chunk_gaps=True)
    assert len(r.chunk_gaps) == 4 and max(r.chunk_gaps) == r.chunk_gap_max


def test_a_request_over_its_time_budget_is_a_timeout_and_its_connection_is_dropped():
    records, connections = measured(Script(hold=0.6), timeout=0.2, requests=2)
    assert [(r.status, r.error_kind) for r in records] == [("error", "timeout")] * 2
    assert records[0].error == "no complete response within 0.2 s"
    assert 0.2 <= records[0].latency < 0.6 and records[0].ttft is None  # cut before the answer
    assert connections == 2


def test_a_refused_connection_is_a_connect_failure():
    with socket.socket() as placeholder:
        placeholder.bind(("127.0.0.1", 0))
        port = placeholder.getsockname()[1]  # nothing listens on it once closed
    before = time.time()
    r = measure(Connection(f"http://127.0.0.1:{port}", timeout=2), request(2), record())
    assert (r.status, r.error_kind, r.http_status) == ("error", "connect", None)
    assert before <= r.start_time <= time.time()  # a failed send is placed in time too
    assert r.error.startswith("ConnectionRefusedError")


def test_an_error_status_keeps_who_answered_and_what_it_said():
    body = b'{"error": {"message": "overloaded"}}'
    (r,), connections = measured(
        Script(raw_response=answer(body, b"503 Service Unavailable")), requests=1
    )
    assert (r.status, r.error_kind, r.http_status, r.server) == (
        "error",
        "http_503",
        503,
        "scripted",
    )
    assert r.error == "HTTP 503 from scripted: overloaded"


def test_an_error_status_from_an_unnamed_server_with_an_empty_body_is_its_status():
    raw = b"HTTP/1.1 500 Internal Server Error\r\nContent-Length: 0\r\n\r\n"
    (r,), _ = measured(Script(raw_response=raw))
    assert (r.error, r.server) == ("HTTP 500", None)


def test_a_server_header_sent_several_times_counts_by_its_last():
    raw = answer(b"", b"502 Bad Gateway", b"Server: first\r\nServer: second\r\nServer: last\r\n")
    (r,), _ = measured(Script(raw_response=raw.replace(b"Server: scripted\r\n", b"", 1)))
    assert (r.server, r.error) == ("last", "HTTP 502 from last")


def test_a_compressed_error_page_is_decoded():
    body = gzip.compress(b"<html><title>502 Bad Gateway</title></html>")
    raw = answer(body, b"502 Bad Gateway", b"Content-Encoding: gzip\r\n")
    (r,), _ = measured(Script(raw_response=raw))
    assert r.error == "HTTP 502 from scripted: <title>502 Bad Gateway</title></html>"


def test_an_error_page_that_cannot_be_decoded_is_its_status():
    raw = answer(b"not gzip at all", b"502 Bad Gateway", b"Content-Encoding: gzip\r\n")
    (r,), _ = measured(Script(raw_response=raw))
    assert r.error == "HTTP 502 from scripted"


def test_an_error_body_is_read_only_up_to_2_kib():
    body = b'{"pad": "' + b"x" * 3000 + b'", "error": {"message": "late"}}'
    (r,), _ = measured(Script(raw_response=answer(body, b"500 Internal Server Error")))
    assert r.error == "HTTP 500 from scripted: " + ('{"pad": "' + "x" * 111) + "…"


def test_a_failure_message_is_cut_to_300_characters():
    raw = answer(b"busy", b"503 Service Unavailable", b"Server: " + b"s" * 400 + b"\r\n")
    (r,), _ = measured(Script(raw_response=raw.replace(b"Server: scripted\r\n", b"", 1)))
    assert r.error == "HTTP 503 from " + "s" * 286


def test_a_stream_that_ends_without_done_is_a_disconnect_keeping_what_it_measured():
    (r,), connections = measured(Script(raw_response=answer(token_event())), requests=1)
    assert (r.status, r.error_kind, r.error) == (
        "error",
        "disconnect",
        "stream ended without data: [DONE]",
    )
    assert r.chunks == 1 and r.ttft is not None and r.latency >= r.ttft


def test_a_malformed_event_is_a_malformed_stream():
    (r,), _ = measured(Script(raw_response=answer(b"data: {oops\n\n" + DONE)))
    assert (r.error_kind, r.error) == ("malformed_sse", "not JSON: b'{oops'")


def test_an_unreadable_compressed_stream_is_a_malformed_stream():
    raw = answer(b"not gzip at all", headers=b"Content-Encoding: gzip\r\n")
    (r,), _ = measured(Script(raw_response=raw))
    assert r.error_kind == "malformed_sse" and r.error.startswith("body not decodable: error: ")


def test_a_stream_with_an_end_but_no_token_nor_finish_is_empty_output():
    (r,), _ = measured(Script(raw_response=answer(USAGE + DONE)))
    assert (r.status, r.error_kind, r.error) == (
        "error",
        "empty_output",
        "stream completed without a single token or a finish",
    )
    assert r.prompt_tokens == 3


def test_a_model_that_ends_at_once_gave_an_ok_empty_reply():
    ended = {"index": 0, "delta": {"content": ""}, "finish_reason": "stop"}
    stop = b"data: " + json.dumps({"id": "chatcmpl-x", "choices": [ended]}).encode() + b"\n\n"
    (r,), _ = measured(Script(raw_response=answer(token_event("") + stop + USAGE + DONE)))
    assert (r.status, r.error_kind, r.finish_reason) == ("ok", None, "stop")
    assert (r.chunks, r.output_tokens, r.ttft, r.itl) == (0, 1, None, None)
    assert r.latency is not None and r.latency > 0


def test_the_first_failure_is_the_cause_later_ones_are_not_recorded():
    (r,), _ = measured(Script(raw_response=answer(b"data: {oops\n\n")))
    assert r.error_kind == "malformed_sse"  # not the disconnect nor the empty output after it


def test_interim_responses_before_the_answer_are_skipped():
    raw = b"HTTP/1.1 100 Continue\r\n\r\n" + answer(token_event() + USAGE + DONE)
    (r,), _ = measured(Script(raw_response=raw))
    assert (r.status, r.http_status, r.chunks) == ("ok", 200, 1)


def test_a_connection_closed_in_the_middle_of_the_headers_is_a_disconnect():
    (r,), _ = measured(Script(raw_response=b"HTTP/1.1 200 OK\r\nContent-Ty", close_after=0.0))
    assert (r.error_kind, r.http_status) == ("disconnect", None)
    assert r.error == "HTTPParseError: connection closed before the end of the headers"


def test_a_new_connection_closed_before_any_byte_is_a_disconnect():
    (r,), _ = measured(Script(raw_response=b"", close_after=0.0))
    assert r.error_kind == "disconnect"
    assert r.error == "HTTPConnectionClosed: connection closed before any byte came back"


def test_a_failed_request_drops_its_connection():
    records, connections = measured(Script(raw_response=answer(b"data: {oops\n\n")), requests=2)
    assert [r.error_kind for r in records] == ["malformed_sse"] * 2 and connections == 2


def test_warming_opens_the_connection_the_first_request_then_uses():
    with scripted(Script(tokens=2)) as server:
        connection = Connection(server.url, timeout=5)
        connection.warm("/v1/models", build_headers(None))
        warmed = server.connections
        r = measure(connection, request(), record())
        connection.close()
    assert warmed == 1 and r.status == "ok" and server.connections == 1


def test_warming_a_server_that_is_not_there_is_harmless():
    with socket.socket() as placeholder:
        placeholder.bind(("127.0.0.1", 0))
        port = placeholder.getsockname()[1]
    connection = Connection(f"http://127.0.0.1:{port}", timeout=2)
    connection.warm("/v1/models", build_headers(None))
    assert measure(connection, request(2), record()).error_kind == "connect"


def test_the_host_header_names_the_host_without_credentials():
    with scripted(Script(tokens=1)) as server:
        port = server.url.rsplit(":", 1)[1]
        connection = Connection(f"http://user:p@ss@127.0.0.1:{port}", timeout=5)
        measure(connection, request(), record())
        connection.close()
        head, body = server.requests[0]
    lines = head.split("\r\n")
    assert lines[0] == "POST /v1/chat/completions HTTP/1.1"
    assert lines[1:3] == [f"Host: 127.0.0.1:{port}", f"Content-Length: {len(body)}"]
    assert json.loads(body)["messages"] == [{"role": "user", "content": "hi"}]


def test_every_read_of_a_plain_tcp_connection_asks_for_the_kernels_stamps(monkeypatch):
    header_reads, body_reads = [], []

    def headers_read(sock, stamped):
        header_reads.append(stamped)
        return receive(sock, stamped)

    def body_read(response, on_event, arrival, stamped, decode=None):
        body_reads.append(stamped)
        return read_events(response, on_event, arrival, stamped, decode)

    monkeypatch.setattr(client, "receive", headers_read)
    monkeypatch.setattr(client, "read_events", body_read)
    records, connections = measured(Script(tokens=2), requests=2)  # a new connection, then reused
    assert [r.status for r in records] == ["ok", "ok"] and connections == 1
    assert header_reads and all(stamped is True for stamped in header_reads)
    assert body_reads == [True, True]
