"""A socket whose packets arrive as scripted, each with the kernel receive stamp it came with.

No real server can make the kernel stamp a later packet earlier than the one before it, or stamp
a response before its request was sent (a clock step): these fakes hand the project's readers
exactly such packets, through the ancillary data ``recvmsg`` returns for ``SO_TIMESTAMPNS``.
"""

from __future__ import annotations

import socket
import struct

from sparkload.transport.sse import SO_TIMESTAMPNS

SECOND = 1_000_000_000
HEADERS = (
    b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n"
)
END = b"0\r\n\r\n"  # the closing chunk of a chunked body


def chunk(data: bytes) -> bytes:
    return b"%x\r\n%s\r\n" % (len(data), data)


def event(data: str) -> bytes:
    """One SSE event as a chunk of a chunked body."""
    return chunk(b"data: %s\n\n" % data.encode())


def timestamp(stamp_ns: int) -> tuple[int, int, bytes]:
    """The control message the kernel attaches to a packet it stamped."""
    return socket.SOL_SOCKET, SO_TIMESTAMPNS, struct.pack("qq", *divmod(stamp_ns, SECOND))


class PacketSocket:
    """A connected socket whose packets arrive as scripted: (bytes, control messages) each; b""
    is the peer closing the connection. Reading past the last packet fails the test, because a
    real socket would wait there for bytes that never come."""

    def __init__(self, packets: list[tuple[bytes, list]]) -> None:
        self.packets = list(packets)

    def _next(self, size: int) -> tuple[bytes, list]:
        if not isinstance(size, int):
            raise TypeError("a buffer size is an integer")
        assert self.packets, "read past the last packet: a real socket would block here"
        return self.packets.pop(0)

    def recvmsg(self, size: int, ancillary_size: int = 0) -> tuple[bytes, list, int, None]:
        data, ancillary = self._next(size)
        return data, ancillary, 0, None

    def recv(self, size: int) -> bytes:
        return self._next(size)[0]

    def close(self) -> None:
        pass


def stamped(*packets: tuple[bytes, int]) -> PacketSocket:
    """A socket whose packets each carry the given kernel stamp (ns)."""
    return PacketSocket([(data, [timestamp(at)]) for data, at in packets])
