"""An API that does not stream (embeddings): the client reads its one JSON body whole, with the
request's timeout, and hands it to the API's reader once; every failure is a classified record."""

from __future__ import annotations

import gzip

import orjson

from sparkload.apis.embeddings import EmbeddingsBody
from sparkload.records import RequestRecord
from sparkload.transport.client import Connection, StreamRequest, build_headers, measure
from tests.servers import Script, scripted

BODY = orjson.dumps(
    {
        "id": "embd-1",
        "data": [{"index": i, "embedding": [0.5, -0.5]} for i in range(3)],
        "usage": {"prompt_tokens": 30, "total_tokens": 30},
    }
)


def http(status: bytes, body: bytes, headers: bytes = b"") -> bytes:
    return b"HTTP/1.1 %s\r\nContent-Type: application/json\r\nContent-Length: %d\r\n%s\r\n%s" % (
        status,
        len(body),
        headers,
        body,
    )


def chunked(body: bytes) -> bytes:
    half = len(body) // 2
    parts = b"".join(b"%x\r\n%s\r\n" % (len(p), p) for p in (body[:half], body[half:]))
    return (
        b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n"
        + parts
        + b"0\r\n\r\n"
    )


def measured(script: Script, timeout: float = 5.0, requests: int = 1) -> list[RequestRecord]:
    with scripted(script) as server:
        connection = Connection(server.url, timeout=timeout)
        request = StreamRequest(
            "/v1/embeddings",
            b'{"model": "m", "input": ["a", "b", "c"]}',
            build_headers(None),
            timeout=timeout,
            reader=EmbeddingsBody,
            streams=False,
        )
        records = [
            measure(
                connection,
                request,
                RequestRecord(f"r{i}", 1, 0, "measure", "local", 0, "h", "m", 0, 8, 0.0),
            )
            for i in range(requests)
        ]
        connection.close()
    return records


def test_a_json_body_is_an_ok_record_with_a_latency_and_no_ttft():
    (record,) = measured(Script(raw_response=http(b"200 OK", BODY)))
    assert (record.status, record.error_kind, record.http_status) == ("ok", None, 200)
    assert record.latency is not None and record.latency > 0
    assert (record.ttft, record.itl, record.tps, record.output_tokens) == (None, None, None, None)
    assert record.prompt_tokens == 30


def test_the_latency_ends_when_the_whole_body_has_come_not_at_its_first_bytes():
    answer = http(b"200 OK", BODY)
    first_bytes = answer.index(b"\r\n\r\n") + 4 + 10  # the headers and a piece of the body
    (record,) = measured(Script(raw_response=answer, raw_pause=(first_bytes, 0.3)))
    assert record.status == "ok"
    assert (
        record.latency - record.ttfb >= 0.3 * 0.9
    )  # the pause lies between them, whatever the load


def test_a_chunked_body_is_read_to_its_last_chunk():
    (record,) = measured(Script(raw_response=chunked(BODY)))
    assert (record.status, record.prompt_tokens) == ("ok", 30)


def test_a_gzip_body_is_decoded_before_the_reader_takes_it():
    (record,) = measured(
        Script(raw_response=http(b"200 OK", gzip.compress(BODY), b"Content-Encoding: gzip\r\n"))
    )
    assert (record.status, record.prompt_tokens) == ("ok", 30)


def test_the_connection_is_kept_for_the_next_request():
    records = measured(Script(raw_response=http(b"200 OK", BODY)), requests=3)
    assert [r.status for r in records] == ["ok"] * 3
    assert [r.resent for r in records] == [False] * 3


def test_an_http_error_is_classified_by_its_status_with_the_servers_message():
    error = orjson.dumps({"error": {"message": "input too long", "code": 400}})
    (record,) = measured(Script(raw_response=http(b"400 Bad Request", error)))
    assert (record.status, record.error_kind) == ("error", "http_400")
    assert "input too long" in record.error


def test_a_body_that_is_not_json_is_a_malformed_body():
    (record,) = measured(Script(raw_response=http(b"200 OK", b"<html>oops</html>")))
    assert (record.status, record.error_kind) == ("error", "malformed_body")


def test_a_body_cut_before_its_length_is_a_disconnect():
    full = http(b"200 OK", BODY)
    (record,) = measured(Script(raw_response=full[:-10], close_after=0.0))
    assert (record.status, record.error_kind) == ("error", "disconnect")


def test_a_body_slower_than_the_request_timeout_is_a_timeout():
    (record,) = measured(Script(raw_response=http(b"200 OK", BODY), hold=2.0), timeout=0.3)
    assert (record.status, record.error_kind) == ("error", "timeout")
