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
from sparkload.transport.stamps import SO_TIMESTAMPNS
from sparkload.transport.tally import StreamError
from tests.packets import HEADERS, event

blocking_sleep = gevent.monkey.get_original("time", "sleep")  # holds the hub: nothing is read
original_select = gevent.monkey.get_original("select", "select")


@pytest.fixture(autouse=True, scope="module")
def stamping_on() -> Iterator[None]:
    """Linux turns receive stamping on for the whole host when a first socket asks, through a
    deferred work item, and off when the last one closes: until that work runs (late on a busy
    machine) a packet arrives unstamped and is stamped when read. A stamped socket held open for
    the module, once it sees arrival stamps, keeps stamping on for every test here."""
    assert SO_TIMESTAMPNS is not None
    receiver = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    sender = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    try:
        receiver.setsockopt(socket.SOL_SOCKET, SO_TIMESTAMPNS, 1)
        receiver.bind(("127.0.0.1", 0))
        receiver.settimeout(5.0)
        for _ in range(100):  # bounded: about 3 s at most
            sender.sendto(b"t", receiver.getsockname())
            blocking_sleep(0.03)
            _data, ancillary, _flags, _from = receiver.recvmsg(16, socket.CMSG_SPACE(16))
            read_at = time.time_ns()
            seconds, nanoseconds = struct.unpack("qq", ancillary[0][2][:16])
            if read_at - (seconds * 1_000_000_000 + nanoseconds) >= 20_000_000:
                break
        else:
            pytest.fail("the kernel never stamped a datagram on arrival")
        yield
    finally:
        receiver.close()
        sender.close()


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


def readable(response: HTTPSocketResponse) -> int:
    """Wait, holding the hub, until the kernel has taken in bytes for the response's socket
    (on a busy machine it may do so well after the sender's sendall returned); the time then."""
    sock = response._sock
    assert sock is not None
    ready, _, _ = original_select([sock.fileno()], [], [], 10.0)
    assert ready, "no bytes arrived within 10 s"
    return time.time_ns()


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
    sent: list[tuple[int, int]] = []  # each event's (before, after) its send
    with connection() as (server, response):

        def write() -> None:
            for data in ("a", "b", "[DONE]"):
                before = time.time_ns()
                server.sendall(event(data))
                sent.append((before, time.time_ns()))
                gevent.sleep(0.06)

        writer = gevent.spawn(write)
        ending = read_body(response, on_event)
        writer.join()
    assert ending == Ending(done=True, clock_adjusted=False)
    assert [data for data, _ in events] == [b"a", b"b", b"[DONE]"]
    # each stamp is its own packet's arrival: after its send began, before the next one's (60 ms
    # later; the kernel may take loopback bytes in a little after sendall returns)
    starts = [before for before, _ in sent]
    for (_, at), before, following in zip(events, starts, [*starts[1:], None], strict=True):
        assert before <= at
        assert following is None or at < following


def test_an_event_read_late_keeps_the_time_it_arrived():
    events, on_event = collector()
    with connection() as (server, response):
        before = time.time_ns()
        server.sendall(event("a") + event("[DONE]"))
        arrived_by = readable(response)
        blocking_sleep(0.2)  # the bytes wait in the socket while nothing runs
        read_at = time.time_ns()
        read_body(response, on_event)
    assert before <= events[0][1] <= arrived_by  # when the bytes arrived ...
    assert read_at - events[0][1] >= 200_000_000  # ... not when they were read, 0.2 s later


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
