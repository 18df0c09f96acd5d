"""SSE events off a streaming response, each stamped with when its bytes reached this host.

The stamp is the kernel's receive time of the packet (``SO_TIMESTAMPNS``, Linux), not the time
this process got round to reading it: when many streams' tokens arrive at once, or the machine
wakes a sleeping core, the read happens later but the stamp does not move. Where the socket
cannot give one (TLS, other systems; also the first packets after the kernel switches stamping
on, which it does lazily) the read time is used. Times are ``time.time_ns()`` values,
the kernel stamp's clock. The response's headers are read the same way (``client``), so events
that came in the same packets as the headers carry the headers' own receive time, and one
request's stamps form one non-decreasing time base.

The framing is what chat streams use: ``data:`` lines joined until a blank line ends the event;
comments and other fields are skipped.

A body is read from a callback gevent's hub runs whenever the socket is readable
(``read_in_hub``), not by a greenlet waiting for each read.
"""

from __future__ import annotations

import _socket
import socket
import ssl
import struct
import time
import zlib
from collections.abc import Callable
from typing import NamedTuple

import brotli
from gevent.hub import Waiter, get_hub

from sparkload.transport import stamps
from sparkload.transport.stamps import SO_TIMESTAMPNS

ANCILLARY_SIZE = socket.CMSG_SPACE(16)
READ_SIZE = 65536


def kernel_stamps_enabled(sock) -> bool:
    """Ask the kernel to stamp received packets; False where it cannot (TLS, non-Linux) or
    where this process's clock is not the kernel's and cannot be translated."""
    if (
        SO_TIMESTAMPNS is None
        or isinstance(sock, ssl.SSLSocket)
        or not stamps.active.uses_kernel_stamps
    ):
        return False
    try:
        sock.setsockopt(socket.SOL_SOCKET, SO_TIMESTAMPNS, 1)
    except OSError:
        return False
    return True


def receive(sock, stamped: bool) -> tuple[bytes, int]:
    """What has arrived on ``sock`` (waiting if nothing has), and when it arrived.

    The stamped read calls the OS socket under gevent's (``_sock``) itself and waits on gevent's
    own read watcher only when nothing has arrived, what gevent's ``recvmsg`` does with a frame
    and a retry loop more. It reads a response's headers; a body is read by ``read_events``.
    """
    if not stamped:
        data = sock.recv(READ_SIZE)
        return data, time.time_ns()
    raw = getattr(sock, "_sock", sock)  # a plain (unpatched) socket is its own OS socket
    while True:
        try:
            data, ancillary, _flags, _address = raw.recvmsg(READ_SIZE, ANCILLARY_SIZE)
            return data, stamp_of(ancillary)
        except BlockingIOError:
            sock._wait(sock._read_event)


def stamp_of(ancillary: list[tuple[int, int, bytes]]) -> int:
    """The kernel's receive stamp among a read's control messages, on this process's clock;
    the read time where it gave none."""
    for level, kind, payload in ancillary:
        if level == socket.SOL_SOCKET and kind == SO_TIMESTAMPNS:
            seconds, nanoseconds = _TIMESPEC(payload)
            return seconds * 1_000_000_000 + nanoseconds - stamps.active.shift_ns
    return time.time_ns()


_TIMESPEC = struct.Struct("qq").unpack_from
CR = ord("\r")
LF = ord("\n")


def pop_events(buffer: bytearray) -> list[bytes]:
    """Remove every complete event from ``buffer``; return their data (events without data are
    dropped). An event of one ``data: `` line (every chat chunk) is taken without splitting."""
    events: list[bytes] = []
    start = 0
    while True:
        end = buffer.find(b"\n\n", start)
        if end < 0:
            del buffer[:start]
            return events
        one_line = buffer.find(b"\n", start, end) < 0 and buffer[end - 1] != CR
        if one_line and buffer.startswith(b"data: ", start):
            events.append(bytes(buffer[start + 6 : end]))
        else:
            data = _data_of(bytes(buffer[start:end]))
            if data is not None:
                events.append(data)
        start = end + 2


def _data_of(block: bytes) -> bytes | None:
    """The data of one event of several lines (or comments, or other fields): its ``data``
    lines joined by newlines; None when it has none."""
    data = None
    for line in block.split(b"\n"):
        if line.startswith(b"data:"):
            value = line[6:] if line[5:6] == b" " else line[5:]
            value = value.rstrip(b"\r")
            data = value if data is None else data + b"\n" + value
    return data


class Ending(NamedTuple):
    """How reading a body ended: ``done`` when ``on_event`` asked to stop (the stream's end was
    seen), else the body ended first; ``clock_adjusted`` when a read's stamp had to be raised."""

    done: bool
    clock_adjusted: bool


def body_decoder(content_encoding: str | None) -> Callable[[bytes], bytes] | None:
    """Incremental decoding of a compressed body (None: not compressed), made once per request;
    ``BodyDecodeError`` for a coding it cannot read."""
    coding = (content_encoding or "identity").strip().lower()
    if coding == "identity":
        return None
    if coding in ("gzip", "x-gzip", "deflate"):
        return zlib.decompressobj(32 + zlib.MAX_WBITS).decompress  # gzip or zlib header
    if coding == "br":
        return brotli.Decompressor().process
    raise BodyDecodeError(f"unsupported Content-Encoding: {coding[:40]!r}")


class BodyDecodeError(ValueError):
    """The body's content coding is unknown or its bytes do not decode."""


DECODE_ERRORS = (BodyDecodeError, zlib.error, brotli.error)


def read_events(
    response,
    on_event: Callable[[bytes, int], bool],
    arrival: int,
    stamped: bool,
    decode: Callable[[bytes], bytes] | None = None,
) -> Ending:
    """Feed ``on_event(data, arrival_ns)`` until it returns True or the body ends.

    ``response`` is a geventhttpclient response whose headers were read: its parser decodes the
    chunked body into its buffer, and this reads the socket itself to learn each packet's time.
    ``arrival`` is when the bytes already buffered arrived (they came with the headers).
    A compressed body (``decode``, from ``body_decoder``) is decoded read by read, so each event
    carries the time its compressed bytes arrived.

    Time never runs backwards: a read stamped before the one before it takes that earlier read's
    time (a read that fell back to the read time, then packets the kernel had stamped while
    they queued; or the clock stepped back), and the ending says so.

    A stamped gevent socket is read in gevent's hub (``read_in_hub``): ``on_event`` must then
    not block (it parses; it does not wait on anything).
    """
    body = _Body(response, on_event, arrival, decode)
    if body.hand_on():
        return body.ending
    sock = response._sock
    raw = getattr(sock, "_sock", None)  # a gevent socket's OS socket (gevent patches socket's)
    if stamped and isinstance(raw, _socket.socket):
        read_in_hub(raw, body.take)
        return body.ending
    while not body.take(*receive(sock, stamped)):
        pass
    return body.ending


class _Body:
    """One body being read: what each read's bytes go through (the HTTP framing, the content
    coding, the SSE framing, ``on_event``) and the time base, however the reads are waited for."""

    __slots__ = (
        "adjusted",
        "arrival",
        "buffer",
        "decode",
        "done",
        "on_event",
        "response",
        "undecoded",
    )

    def __init__(
        self,
        response,
        on_event: Callable[[bytes, int], bool],
        arrival: int,
        decode: Callable[[bytes], bytes] | None,
    ) -> None:
        self.response = response
        self.on_event = on_event
        self.arrival = arrival
        self.decode = decode
        self.undecoded = response._body_buffer  # what the HTTP parser took out of the chunks
        self.buffer = self.undecoded if decode is None else bytearray()
        self.adjusted = False
        self.done = False

    @property
    def ending(self) -> Ending:
        return Ending(self.done, self.adjusted)

    def take(self, data: bytes, stamp: int) -> bool:
        """One read (``b""``: the peer closed) and its stamp; True when reading ends."""
        if not data:
            return True
        if stamp >= self.arrival:
            self.arrival = stamp
        else:
            self.adjusted = True
        self.response.feed(data)
        buffer = self.buffer
        # the common read, one whole event of one data line (a chat chunk), is handed on here:
        # through hand_on and pop_events it cost 0.4 us more a read (a list, a loop, a call);
        # anything else (several events, a part of one, comments, CRLF, a compressed body)
        # takes hand_on
        end = len(buffer) - 2
        if (
            self.decode is None
            and buffer.find(b"\n", 6) == end
            and buffer[end + 1] == LF
            and buffer.startswith(b"data: ")
            and buffer[end - 1] != CR
        ):
            data = bytes(buffer[6:end])
            buffer.clear()
            if self.on_event(data, self.arrival):
                self.done = True
                return True
            return self.response.message_complete or self.response._sock is None
        return self.hand_on()

    def hand_on(self) -> bool:
        """Hand every complete event buffered on to ``on_event``; True when reading ends (it
        asked to stop, or the body is complete)."""
        buffer = self.buffer
        if self.decode is not None and self.undecoded:
            buffer += self.decode(self.undecoded)
            del self.undecoded[:]
        if b"\r" in buffer:  # CRLF line ends: rare; normalize so one search finds every event
            buffer[:] = buffer.replace(b"\r\n", b"\n")
        for data in pop_events(buffer):
            if self.on_event(data, self.arrival):
                self.done = True
                return True
        return self.response.message_complete or self.response._sock is None


def read_in_hub(raw: _socket.socket, take: Callable[[bytes, int], bool]) -> None:
    """Hand each read of ``raw`` (the OS socket under a gevent socket) and its stamp to
    ``take`` until it returns True, from a callback gevent's hub runs each time the socket is
    readable; the calling greenlet sleeps until then. ``take`` must not block.

    A stream is one read per token, hundreds of streams at once: waiting for each read in the
    stream's own greenlet cost two greenlet switches and a watcher started and stopped per
    token, more than the read itself (benchmarks/client_side_by_side.py: the floor client's CPU
    per token fell by 40 % reading this way). A failure in the callback (a reset connection, a
    stream error raised by ``on_event``) is raised in the calling greenlet; a timeout raised
    there (the request's deadline) stops the watcher.
    """
    hub = get_hub()
    waiter = Waiter(hub)
    watcher = hub.loop.io(raw.fileno(), 1)  # 1: readable

    def readable() -> None:
        try:
            data, ancillary, _flags, _address = raw.recvmsg(READ_SIZE, ANCILLARY_SIZE)
            if not take(data, stamp_of(ancillary)):
                return
        except BlockingIOError:
            return
        except BaseException as exc:  # noqa: BLE001 - raised in the reading greenlet instead
            watcher.stop()
            waiter.throw(exc)
            return
        watcher.stop()
        waiter.switch(None)

    watcher.start(readable)
    try:
        waiter.get()
    finally:
        watcher.stop()
        watcher.close()


def drain(response) -> None:
    """Read the rest of the message (the closing chunk after [DONE]): the connection is reusable."""
    while not response.message_complete and response._sock is not None:
        data = response._sock.recv(READ_SIZE)
        if not data:
            return
        response.feed(data)
