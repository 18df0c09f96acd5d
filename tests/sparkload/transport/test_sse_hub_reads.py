"""Reading a body in gevent's hub (``sse.read_in_hub``, what ``read_events`` does with a real
connection): each read handed on with its packet's kernel stamp, a failure raised in the
reading greenlet, and nothing read once that greenlet stopped waiting.

These use real loopback connections (gevent sockets); tests/sparkload/transport/
test_sse_reads.py holds the same rules on scripted packets.
"""

from __future__ import annotations

import socket
import struct
import time
from collections.abc import Iterator
from contextlib import contextmanager

import gevent
import gevent.monkey
import pytest
from gevent import socket as gsocket
from geventhttpclient.response import HTTPSocketResponse

from sparkload.apis.chat import ChatStream
from sparkload.records import ERROR_SERVER_EVENT
from sparkload.transport import stamps
from sparkload.transport.sse import Ending, kernel_stamps_enabled, read_events
from sparkload.transport.tally import StreamError
from tests.packets import HEADERS, event

blocking_sleep = gevent.monkey.get_original("time", "sleep")  # holds the hub: nothing is read


@pytest.fixture(autouse=True)
def kernel_stamps() -> Iterator[None]:
    """These read the kernel's stamps as they are, whatever an in-process run before them
    calibrated this process's clock to (``stamps.use``)."""
    saved = stamps.active
    stamps.use(stamps.StampClock())
    try:
        yield
    finally:
        stamps.use(saved)


@contextmanager
def connection() -> Iterator[tuple[gsocket.socket, HTTPSocketResponse]]:
    """The server's end of a loopback connection, and the response on the client's end
    (stamped), its headers read."""
    with gsocket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen(1)
        server = gsocket.create_connection(listener.getsockname())
        client, _ = listener.accept()
    try:
        assert kernel_stamps_enabled(client)
        server.sendall(HEADERS)  # stamping is on once a packet came in
        response = HTTPSocketResponse(client, method="POST")
        yield server, response
    finally:
        server.close()
        client.close()


def read_body(response: HTTPSocketResponse, on_event) -> Ending:
    return read_events(response, on_event, 0, True)


def collector() -> tuple[list[tuple[bytes, int]], object]:
    events: list[tuple[bytes, int]] = []

    def on_event(data: bytes, at: int) -> bool:
        events.append((data, at))
        return data == b"[DONE]"

    return events, on_event


def test_events_sent_apart_each_carry_their_own_packets_arrival():
    events, on_event = collector()
    sent: list[int] = []
    with connection() as (server, response):

        def write() -> None:
            for data in ("a", "b", "[DONE]"):
                sent.append(time.time_ns())
                server.sendall(event(data))
                gevent.sleep(0.06)

        writer = gevent.spawn(write)
        ending = read_body(response, on_event)
        writer.join()
    assert ending == Ending(done=True, clock_adjusted=False)
    assert [data for data, _ in events] == [b"a", b"b", b"[DONE]"]
    for (_, at), sent_at in zip(events, sent, strict=True):
        assert sent_at <= at < sent_at + 50_000_000  # the next one was sent 60 ms later


def test_an_event_read_late_keeps_the_time_it_arrived():
    events, on_event = collector()
    with connection() as (server, response):
        sent = time.time_ns()
        server.sendall(event("a") + event("[DONE]"))
        blocking_sleep(0.2)  # the bytes wait in the socket while nothing runs
        read_at = time.time_ns()
        read_body(response, on_event)
    assert sent <= events[0][1] < sent + 100_000_000 < read_at - 100_000_000


def test_the_peer_closing_before_the_end_event_ends_the_read_not_done():
    events, on_event = collector()
    with connection() as (server, response):
        server.sendall(event("a"))
        gevent.spawn_later(0.02, server.close)
        ending = read_body(response, on_event)
    assert [data for data, _ in events] == [b"a"]
    assert ending == Ending(done=False, clock_adjusted=False)


def test_a_reset_connection_is_raised_in_the_reading_greenlet():
    _, on_event = collector()
    with connection() as (server, response):
        server.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        gevent.spawn_later(0.02, server.close)  # closed with no linger: a reset
        with pytest.raises(ConnectionResetError):
            read_body(response, on_event)


def test_a_stream_error_raised_by_on_event_is_raised_by_read_events():
    stream = ChatStream()
    with connection() as (server, response):
        server.sendall(event('{"error": {"message": "overloaded"}}'))
        with pytest.raises(StreamError) as caught:
            read_body(response, lambda data, at: stream.feed(data, at / 1e9))
    assert caught.value.kind == ERROR_SERVER_EVENT and "overloaded" in str(caught.value)


def test_nothing_is_read_after_the_reading_greenlet_timed_out():
    events, on_event = collector()
    with connection() as (server, response):
        with pytest.raises(gevent.Timeout), gevent.Timeout(0.05):
            read_body(response, on_event)
        server.sendall(event("late"))
        gevent.sleep(0.05)  # the hub runs: a watcher left behind would read now
        assert events == []
        assert response._sock.recv(1024) == event("late")
