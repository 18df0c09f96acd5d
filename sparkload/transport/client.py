"""Send one request (streaming, or answered by one JSON body) and measure it into a RequestRecord.

HTTP with geventhttpclient (Locust's own fast client): its request path costs tens of
microseconds where ``requests`` spent about 2 ms before the first byte left, time that every
TTFT would have carried. The body is read as it arrives, each event stamped with the kernel's
receive time (``sse``); the protocol meaning of each event is its API's reader's (a
``tally.ReplyTally`` from ``sparkload/apis/``, handed in with the request).
Every failure ends as a classified record, never an exception: the caller always gets a record.
"""

from __future__ import annotations

import json
import re
import ssl
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

import gevent
import gevent.monkey
from geventhttpclient import HTTPClient
from geventhttpclient.response import HTTPConnectionClosed, HTTPParseError, HTTPSocketPoolResponse

from sparkload.records import (
    ERROR_CLIENT,
    ERROR_CONNECT,
    ERROR_DISCONNECT,
    ERROR_EMPTY_OUTPUT,
    ERROR_MALFORMED_BODY,
    ERROR_MALFORMED_SSE,
    ERROR_TIMEOUT,
    STATUS_ERROR,
    RequestRecord,
    http_error_kind,
    summarize_gaps,
)
from sparkload.transport import request_metrics
from sparkload.transport.identity import identifying_headers
from sparkload.transport.sse import (
    DECODE_ERRORS,
    body_decoder,
    drain,
    kernel_stamps_enabled,
    read_events,
    receive,
)
from sparkload.transport.tally import Reply, ReplyTally, StreamError
from sparkload.transport.whole import BodyTooLarge, read_whole

MAX_ERROR_BODY = 2048
ERROR_SNIPPET = 120  # characters of a non-JSON error body kept in the record's message
CONNECT_TIMEOUT = 10.0


@dataclass(frozen=True, slots=True)
class StreamRequest:
    """What to send, ready-encoded once per request so the measured span holds no encoding."""

    path: str  # e.g. /v1/chat/completions
    body: bytes
    headers: dict[str, str]
    timeout: float  # whole request, send → end of stream
    # how to read the events: a new tally of one stream of the request's API (``WireApi.reader``)
    reader: Callable[[Reply | None], ReplyTally]
    keep_chunk_gaps: bool = False
    # the answer is a stream of events (else one JSON body, read whole and fed to the reader
    # once: ``WireApi.streams``)
    streams: bool = True


class Connection:
    """One keep-alive HTTP connection to the target, owned by one user (one stream at a time).

    After a failure the connection may hold half a response, so it is dropped and the next
    request opens a fresh one.
    """

    def __init__(self, base_url: str, timeout: float, verify_tls: bool = True) -> None:
        url = urlsplit(base_url)
        # No per-read socket timeout: the request's own deadline (gevent.Timeout in ``measure``)
        # bounds a stalled stream, and a socket timeout would cost a timer on every read.
        self._options: dict[str, Any] = {
            "host": url.hostname,
            "port": url.port,
            "ssl": url.scheme == "https",
            "insecure": not verify_tls,
            "connection_timeout": min(CONNECT_TIMEOUT, timeout),
            "network_timeout": None,
            "concurrency": 1,
        }
        if not verify_tls:  # geventhttpclient's own "insecure" skips only the hostname check
            self._options["ssl_context_factory"] = _unverified_tls_context
        self._host = url.netloc.rpartition("@")[2]
        self._client: HTTPClient | None = None
        self._sock = None  # the socket of the last exchange, to tell a reused one from a new one
        self._stamped = False  # whether the kernel stamps that socket's packets
        self.last_response: StampedResponse | None = None

    def send(self, method: str, path: str, body: bytes, headers: dict[str, str]) -> Answer:
        """Send one request and read its response's headers, each read stamped (``sse.receive``).

        A kept-alive connection the server has closed meanwhile (llama.cpp closes after every
        stream while its headers say keep-alive) fails before any byte comes back: the request
        is sent again, once, on a new connection, and its times start at that send. A server's
        connection policy never shows up as a failed request.
        """
        message = _encode(method, path, self._host, body, headers)
        try:
            answer = self._exchange(message, resent=False)
        except _Unanswered:
            answer = self._exchange(message, resent=True)
        self.last_response = answer.response
        return answer

    def identity(self) -> dict[str, str]:
        """The identifying headers of the last response (``IDENTIFYING_HEADERS``); asked after a
        request, outside its measured span."""
        if self.last_response is None:
            return {}
        return identifying_headers(self.last_response.items())

    def _exchange(self, message: bytes, resent: bool) -> Answer:
        sent = time.time_ns()
        pool = self._http()._connection_pool
        sock = pool.get_socket()
        fresh = sock is not self._sock
        connect = (time.time_ns() - sent) / 1e9 if fresh else None
        if fresh:
            self._sock, self._stamped = sock, kernel_stamps_enabled(sock)
        try:
            sock.sendall(message)
        except OSError:
            pool.release_socket(sock)
            if fresh:
                raise
            raise _Unanswered from None
        try:
            response = StampedResponse(sock, pool, self._stamped)  # releases sock if it fails
        except HTTPConnectionClosed:
            if fresh:
                raise
            raise _Unanswered from None
        return Answer(response, sent, self._stamped, resent, connect)

    def warm(self, path: str, headers: dict[str, str]) -> None:
        """Open the connection with a cheap GET, so a user's first measured request does not carry
        the TCP (and TLS) handshake in its TTFT. Best effort (bounded): a failure shows later."""
        try:
            with gevent.Timeout(CONNECT_TIMEOUT):
                self.send("GET", path, b"", headers).response.read()
        except BaseException:  # noqa: BLE001 - including gevent.Timeout; the next send reconnects
            self.close()

    def _http(self) -> HTTPClient:
        if self._client is None:
            self._client = HTTPClient(**self._options)
            pool = self._client._connection_pool
            pool._is_socket_alive = _idle_and_open  # type: ignore[method-assign]
        return self._client

    def close(self) -> None:
        """Drop the connection; the next ``send`` opens a new one."""
        if self._client is not None:
            self._client.close()
            self._client = None
        self._sock = None


@dataclass(frozen=True, slots=True)
class Answer:
    """A response whose headers were read; ``sent_ns`` is when its request went out."""

    response: StampedResponse
    sent_ns: int
    stamped: bool  # the socket's reads carry the kernel's receive stamps
    resent: bool  # sent again on a new connection: the reused one had been closed
    # seconds its connection took to open (name look-up, TCP, TLS) after ``sent_ns``, part of
    # its times; None: it went on a kept-alive connection
    connect_s: float | None = None


class _Unanswered(Exception):
    """A reused connection was found closed before any byte of the response came back."""


class StampedResponse(HTTPSocketPoolResponse):
    """geventhttpclient's response, its headers read with ``sse.receive``: ``first_byte_ns`` is
    when the response's first bytes arrived, ``headers_ns`` when the read that completed the
    headers did, the arrival time of any events that came with them."""

    def __init__(self, sock, pool, stamped: bool) -> None:
        self.stamped = stamped
        self.first_byte_ns = 0
        self.headers_ns = 0
        super().__init__(sock, pool, method="POST")

    def _read_headers(self, pre_buffered: bytes = b"") -> None:
        sock = self._sock
        try:
            while not self.headers_complete or self.get_code() < 200:  # skips interim 1xx
                try:
                    data, self.headers_ns = receive(sock, self.stamped)
                except ConnectionResetError:
                    data = b""
                if not data:
                    if not self.first_byte_ns:
                        raise HTTPConnectionClosed("connection closed before any byte came back")
                    raise HTTPParseError("connection closed before the end of the headers")
                self.first_byte_ns = self.first_byte_ns or self.headers_ns
                self.feed(data)
            if self.message_complete:
                self.release()
        except BaseException:
            self.release()
            raise


def _encode(method: str, path: str, host: str, body: bytes, headers: dict[str, str]) -> bytes:
    """The whole request, once per request: its head (headers were checked by ``build_headers``)
    and body, for one write."""
    lines = [f"{method} {path} HTTP/1.1", f"Host: {host}", f"Content-Length: {len(body)}"]
    lines.extend(f"{name}: {value}" for name, value in headers.items())
    return ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1") + body


_unpatched_select = gevent.monkey.get_original("select", "select")


def _idle_and_open(sock) -> bool:
    """geventhttpclient's check of a pooled keep-alive socket, without yielding to the hub.

    Its own check calls select() with a zero timeout, which under gevent still switches to the hub
    and lets every other ready greenlet run first: between taking a request's send time and
    sending it, at concurrency 64 that cost a millisecond of TTFT. The real select() does not.
    """
    if sock is None or sock.fileno() < 0:
        return False
    try:
        readable, _, _ = _unpatched_select([sock.fileno()], [], [], 0.0)
    except (OSError, ValueError):
        return False
    return not readable


def _unverified_tls_context(**kwargs) -> ssl.SSLContext:
    context = ssl.create_default_context(**kwargs)
    context.check_hostname = False
    context.verify_mode = ssl.CERT_NONE
    return context


class _Deadline(Exception):
    """Raised by gevent.Timeout when the whole request exceeded its time budget."""


def build_headers(
    credentials: Mapping[str, str] | None = None,
    accept_encoding: str = "identity",
    extra_headers: dict[str, str] | None = None,
) -> dict[str, str]:
    """The request headers of a run, built once; ``credentials``: the API key's headers in its
    API's form (``WireApi.auth``). A ValueError names a header HTTP cannot carry (the values are
    not shown: they may be secrets)."""
    headers = {
        "User-Agent": "sparkload",
        "Content-Type": "application/json",
        "Accept": "text/event-stream",
        "Accept-Encoding": accept_encoding,
        **(extra_headers or {}),
    }
    headers.update(credentials or {})
    for name, value in headers.items():
        if not _HEADER_NAME.fullmatch(name) or not _HEADER_VALUE.fullmatch(value):
            raise ValueError(f"request header {name!r}: not a valid HTTP header name or value")
    return headers


_HEADER_NAME = re.compile(r"[!#$%&'*+\-.^_`|~0-9A-Za-z]+")
_HEADER_VALUE = re.compile(r"[\t\x20-\x7e\x80-\xff]*")


def measure(
    connection: Connection,
    request: StreamRequest,
    record: RequestRecord,
    reply: Reply | None = None,
) -> RequestRecord:
    """Run ``request`` and fill ``record`` with what was measured (ok or a failure class);
    ``reply``, when given, gets the reply's text and tool calls (``tally.ReplyTally``).

    One clock for the whole request: ``time.time_ns()``, the clock of the kernel's receive
    stamps (``sparkload.transport.sse``), so every duration is measured from the same send instant.
    """
    t0 = time.time_ns()
    record.start_time = t0 / 1e9
    # fed seconds since the send
    stream = request.reader(reply)

    def on_event(data: bytes, arrival_ns: int) -> bool:
        return stream.feed(data, (arrival_ns - t0) / 1e9)

    response = None
    try:
        with gevent.Timeout(request.timeout, _Deadline):
            answer = connection.send("POST", request.path, request.body, request.headers)
            response = answer.response
            t0 = answer.sent_ns
            record.start_time = t0 / 1e9
            record.resent = answer.resent
            record.connect_time = answer.connect_s
            headers_at = max(response.headers_ns, t0)  # never before the send (a clock step)
            record.clock_adjusted = headers_at != response.headers_ns
            record.ttfb = (min(max(response.first_byte_ns, t0), headers_at) - t0) / 1e9
            record.http_status = response.status_code
            if response.status_code != 200:
                _fail(record, http_error_kind(response.status_code), _error_message(response))
            elif request.streams:
                decode = body_decoder(_header(response, "content-encoding"))
                ending = read_events(response, on_event, headers_at, answer.stamped, decode)
                record.clock_adjusted |= ending.clock_adjusted
                if ending.done:
                    drain(response)
                else:
                    _fail(record, ERROR_DISCONNECT, f"stream ended without {stream.ending}")
            else:
                decode = body_decoder(_header(response, "content-encoding"))
                whole = read_whole(response, headers_at, answer.stamped, decode)
                record.clock_adjusted |= whole.clock_adjusted
                if whole.complete:
                    on_event(whole.data, whole.arrival_ns)
                else:
                    _fail(record, ERROR_DISCONNECT, f"body ended before {stream.ending}")
    except StreamError as exc:
        _fail(record, exc.kind, str(exc))
    except DECODE_ERRORS as exc:
        _fail(record, ERROR_MALFORMED_SSE, f"body not decodable: {_describe(exc)}")
    except BodyTooLarge as exc:
        _fail(record, ERROR_MALFORMED_BODY, str(exc))
    except (_Deadline, TimeoutError) as exc:
        _fail(
            record,
            ERROR_TIMEOUT,
            f"no complete response within {request.timeout:g} s"
            if isinstance(exc, _Deadline)
            else f"no data for {request.timeout:g} s",
        )
    except (HTTPParseError, OSError) as exc:
        before_response = response is None and isinstance(
            exc, (ConnectionRefusedError, ssl.SSLError)
        )
        kind = ERROR_CONNECT if before_response else ERROR_DISCONNECT
        _fail(record, kind, _describe(exc))
    except Exception as exc:  # noqa: BLE001 - a record must come out of every request
        _fail(record, ERROR_CLIENT, _describe(exc))
    finally:
        ended = (time.time_ns() - t0) / 1e9
        record.latency = stream.t_done if stream.done else max(ended, stream.t_last_token or 0.0)
        if record.error_kind is not None and response is not None:
            record.server = _header(response, "server")  # who answered: a proxy cut reads as one
        if record.error_kind is not None or (
            response is not None and not response.message_complete
        ):
            connection.close()  # never reuse a connection that holds the rest of a response
    return _fill(record, stream, request)


def _fill(record: RequestRecord, stream: ReplyTally, request: StreamRequest) -> RequestRecord:
    record.ttft = stream.ttft
    record.ttfc = stream.ttfc
    record.t_last_token = stream.t_last_token
    record.chunks = stream.chunks
    record.finish_reason = stream.finish_reason
    record.response_id = stream.response_id
    record.output_tokens, record.tokens_counted_by = stream.output_tokens
    record.ttfo = stream.ttfo
    record.reasoning_tokens, record.reasoning_counted_by = stream.reasoning_tokens
    record.answer_tokens, record.t_last_reasoning = stream.answer_tokens, stream.t_last_reasoning
    if stream.tool_calls:
        record.tool_calls = len(stream.tool_calls)
        record.tool_args_done = stream.t_tool_args
        record.tool_args_valid = stream.tool_args_valid
        record.tool_args_truncated = stream.tool_args_truncated
    record.prompt_tokens = stream.prompt_tokens
    record.cached_tokens = stream.cached_tokens
    request_metrics.fill(record, stream.metrics)
    gaps = summarize_gaps(stream.gaps)
    record.chunk_gap_mean, record.chunk_gap_p50 = gaps.mean, gaps.p50
    record.chunk_gap_p90, record.chunk_gap_p99, record.chunk_gap_max = gaps.p90, gaps.p99, gaps.max
    record.burst_chunks = gaps.burst
    if request.keep_chunk_gaps:
        record.chunk_gaps = stream.gaps
    if not request.streams:  # one body: its reader judged it whole (no token to count)
        return record.derive()
    if record.error_kind is None and stream.chunks == 0 and stream.finish_reason is None:
        # No token and no reason: the server said nothing. A model that ended at once (its
        # end-of-sequence first: finish_reason "stop") gave a valid, empty reply: ok, and told
        # apart by its 0 chunks (the run's summary counts them, --check bounds them).
        _fail(record, ERROR_EMPTY_OUTPUT, "stream completed without a single token or a finish")
    return record.derive()


def _fail(record: RequestRecord, kind: str, message: str) -> None:
    if record.error_kind is None:  # the first failure is the cause; later ones are fallout
        record.status = STATUS_ERROR
        record.error_kind = kind
        record.error = message[:300]


def _error_message(response) -> str:
    """``HTTP 502 from nginx: <title>502 Bad Gateway</title>…``: the status, who answered (its
    ``Server`` header), and what it said, read with a bound (a misbehaving server may send a lot):
    a proxy's error page then reads as one, not as the model server's failure."""
    server = _header(response, "server")
    status = f"HTTP {response.status_code}" + (f" from {server}" if server else "")
    try:
        body = response.read(MAX_ERROR_BODY)
        decode = body_decoder(_header(response, "content-encoding"))
        said = error_text(decode(body) if decode else body)
    except Exception:  # noqa: BLE001 - any unreadable body still yields the status line
        return status
    return f"{status}: {said}" if said else status


def error_text(body: bytes) -> str:
    """A JSON error's message, else the start of the body on one line (an HTML page from its
    title on)."""
    try:
        payload = json.loads(body)
    except ValueError:
        text = " ".join(body.decode("utf-8", "replace").split())
        text = text[max(text.find("<title>"), 0) :]
        return text if len(text) <= ERROR_SNIPPET else text[:ERROR_SNIPPET] + "…"
    error = payload.get("error", payload) if isinstance(payload, dict) else payload
    message = error.get("message") if isinstance(error, dict) else error
    return " ".join(str(message).split())


def _header(response, name: str) -> str | None:
    """One response header's value (the last, when a server repeated it)."""
    value = response.get(name)
    return value[-1] if isinstance(value, list) else value


def _describe(exc: BaseException) -> str:
    return f"{type(exc).__name__}: {exc}"
