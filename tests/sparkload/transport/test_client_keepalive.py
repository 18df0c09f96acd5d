"""A server's connection policy never shows up as a failed request."""

from __future__ import annotations

from sparkload.records import RequestRecord
from tests.servers import Script, measure_on

REQUESTS = 4


def run(script: Script) -> tuple[list[RequestRecord], int]:
    records, server = measure_on(script, REQUESTS)
    return records, server.connections


def test_a_server_closing_after_each_stream_while_claiming_keep_alive_fails_no_request():
    records, connections = run(Script(tokens=4, close_after=0.2))
    assert [r.status for r in records] == ["ok"] * REQUESTS, [r.error for r in records]
    assert [r.resent for r in records] == [False] + [True] * (REQUESTS - 1)
    assert connections == REQUESTS  # each request after the first: found closed, then a new one


def test_a_resent_request_is_timed_from_the_send_that_was_answered():
    records, _ = run(Script(tokens=4, close_after=0.2))
    assert all(r.ttft < 0.15 for r in records)  # not the 0.2 s spent on the closing connection


def test_connection_close_on_a_response_is_honoured_with_a_new_connection_per_request():
    records, connections = run(Script(tokens=4, connection_header=b"close", close_after=0.0))
    assert [r.status for r in records] == ["ok"] * REQUESTS
    assert not any(r.resent for r in records) and connections == REQUESTS


def test_a_kept_alive_connection_is_reused():
    records, connections = run(Script(tokens=4))
    assert [r.status for r in records] == ["ok"] * REQUESTS and connections == 1
