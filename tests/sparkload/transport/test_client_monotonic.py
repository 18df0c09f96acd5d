"""One monotonic time base per request: no event earlier than the one before it or the send."""

from __future__ import annotations

from sparkload.records import RequestRecord
from tests.servers import Script, measure_on

REQUESTS = 6


def records_from(script: Script, requests: int = REQUESTS) -> list[RequestRecord]:
    return measure_on(script, requests, max_tokens=64, keep_chunk_gaps=True)[0]


def assert_monotonic(records: list[RequestRecord]) -> None:
    for r in records:
        assert r.status == "ok", r.error
        assert 0 <= r.ttfb <= r.ttft <= r.t_last_token <= r.latency
        assert r.itl is None or r.itl >= 0  # None: no time between first and last token
        assert min(r.chunk_gaps) >= 0 and r.chunk_gap_p50 >= 0


def test_a_stream_collapsed_by_a_buffering_proxy_never_runs_backwards():
    records = records_from(Script(tokens=32, hold=0.3, collapse=True), requests=4)
    assert_monotonic(records)
    assert all(r.ttft >= 0.3 for r in records)  # the held stream: every token after the hold


def test_events_that_came_with_the_headers_carry_the_headers_receive_time():
    records = records_from(Script(tokens=32, hold=0.3, collapse=True), requests=4)
    assert all(r.ttft - r.ttfb < 0.002 for r in records)  # not the (later) time of reading them


def test_a_normally_streaming_server_keeps_its_token_gaps():
    records = records_from(Script(tokens=16, gap=0.004))
    assert_monotonic(records)
    assert all(0.003 < r.chunk_gap_p50 < 0.02 for r in records)
    assert not any(r.clock_adjusted for r in records)
