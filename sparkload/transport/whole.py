"""A response read whole: the body of an API that does not stream (embeddings), bounded.

It is read off the socket as a stream is (``sse.receive``: each read stamped with when its
bytes reached this host, the time base never running backwards), so its arrival is when its
last bytes came, on the same clock as the send. The body's meaning is its API's reader's.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import NamedTuple

from sparkload.transport.sse import receive

MAX_BODY = 64 << 20  # bytes: a batch of large embeddings as JSON floats is a few MB


class WholeBody(NamedTuple):
    """A body read to its end, or as far as the connection went (``complete`` False)."""

    data: bytes
    arrival_ns: int  # when its last bytes arrived
    complete: bool  # the HTTP message ended (else the peer closed before its end)
    clock_adjusted: bool  # a read's stamp was raised to keep time monotonic


class BodyTooLarge(ValueError):
    """The body went past ``MAX_BODY``: a server that does not stop is not read forever."""


def read_whole(
    response,
    arrival: int,
    stamped: bool,
    decode: Callable[[bytes], bytes] | None = None,
    limit: int = MAX_BODY,
) -> WholeBody:
    """Read the rest of ``response`` (a geventhttpclient response whose headers were read;
    ``arrival``: when the bytes that came with them arrived), decoding a compressed body
    (``decode``, from ``sse.body_decoder``) read by read; ``BodyTooLarge`` past ``limit``."""
    pending = response._body_buffer  # what the HTTP parser took out of the message
    body = bytearray()
    adjusted = False
    while True:
        body += decode(bytes(pending)) if decode is not None else pending
        del pending[:]
        if len(body) > limit:
            raise BodyTooLarge(f"body over {limit} bytes")
        if response.message_complete or response._sock is None:
            return WholeBody(bytes(body), arrival, response.message_complete, adjusted)
        data, stamp = receive(response._sock, stamped)
        if not data:
            return WholeBody(bytes(body), arrival, False, adjusted)
        if stamp >= arrival:
            arrival = stamp
        else:
            adjusted = True
        response.feed(data)
