"""Send one streaming chat-completions request and measure it into a RequestRecord.

HTTP with ``requests`` (``stream=True``) reading whatever has arrived with ``raw.read1``: it is
accurate on both chunked and close-delimited streams, where reading fixed-size blocks is not
(Locust notes, section 3). SSE framing is parsed by ``sseclient-py``; the protocol meaning of
each event by ``sparkload.stream``. Every failure ends as a classified record, never an
exception: the caller always gets a record.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass
from functools import partial

import gevent
import requests
import sseclient

from sparkload.records import (
    ERROR_CLIENT,
    ERROR_CONNECT,
    ERROR_DISCONNECT,
    ERROR_EMPTY_OUTPUT,
    ERROR_TIMEOUT,
    STATUS_ERROR,
    RequestRecord,
    http_error_kind,
    summarize_gaps,
)
from sparkload.stream import ChatStream, StreamError

READ_SIZE = 65536
MAX_ERROR_BODY = 2048


@dataclass(frozen=True, slots=True)
class ChatRequest:
    """What to send, ready-encoded once per request so the measured span holds no encoding."""

    url: str  # full URL of /v1/chat/completions
    body: bytes
    headers: dict[str, str]
    timeout: float  # whole request, send → end of stream
    keep_chunk_gaps: bool = False


class _Deadline(Exception):
    """Raised by gevent.Timeout when the whole request exceeded its time budget."""


def build_body(
    model: str, prompt: str, max_tokens: int, sampling: dict | None = None
) -> bytes:
    body = {
        "model": model,
        "messages": [{"role": "user", "content": prompt}],
        "max_tokens": max_tokens,
        "stream": True,
        "stream_options": {"include_usage": True},
    }
    if sampling:
        body.update(sampling)
    return json.dumps(body).encode()


def build_headers(api_key: str | None) -> dict[str, str]:
    headers = {
        "Content-Type": "application/json",
        "Accept": "text/event-stream",
        "Accept-Encoding": "identity",  # a compressed SSE stream cannot be read line by line
    }
    if api_key:
        headers["Authorization"] = f"Bearer {api_key}"
    return headers


def measure(session: requests.Session, request: ChatRequest, record: RequestRecord) -> RequestRecord:
    """Run ``request`` and fill ``record`` with what was measured (ok or a failure class)."""
    record.start_time = time.time()
    t0 = time.perf_counter()
    stream = ChatStream(t0)
    response = None
    try:
        with gevent.Timeout(request.timeout, _Deadline):
            response = session.post(
                request.url,
                data=request.body,
                headers=request.headers,
                stream=True,
                timeout=(min(10.0, request.timeout), request.timeout),
            )
            record.ttfb = time.perf_counter() - t0
            record.http_status = response.status_code
            if response.status_code != 200:
                _fail(record, http_error_kind(response.status_code), _error_body(response))
            else:
                _read_events(response, stream)
                if not stream.done:
                    _fail(record, ERROR_DISCONNECT, "stream ended without data: [DONE]")
    except StreamError as exc:
        _fail(record, exc.kind, str(exc))
    except _Deadline:
        _fail(record, ERROR_TIMEOUT, f"no complete response within {request.timeout:g} s")
    except requests.exceptions.ConnectTimeout as exc:
        _fail(record, ERROR_CONNECT, _describe(exc))
    except requests.exceptions.ReadTimeout as exc:
        _fail(record, ERROR_TIMEOUT, _describe(exc))
    except requests.exceptions.ConnectionError as exc:
        kind = ERROR_CONNECT if response is None else ERROR_DISCONNECT
        _fail(record, kind, _describe(exc))
    except (requests.exceptions.ChunkedEncodingError, OSError) as exc:
        _fail(record, ERROR_DISCONNECT, _describe(exc))
    except Exception as exc:  # noqa: BLE001 - a record must come out of every request
        _fail(record, ERROR_CLIENT, _describe(exc))
    finally:
        record.latency = time.perf_counter() - t0
        if response is not None:
            response.close()
    return _fill(record, stream, request.keep_chunk_gaps)


def _read_events(response: requests.Response, stream: ChatStream) -> None:
    chunks = iter(partial(response.raw.read1, READ_SIZE), b"")
    clock = time.perf_counter
    for event in sseclient.SSEClient(chunks).events():
        if stream.feed(event.data, clock()):
            return


def _fill(record: RequestRecord, stream: ChatStream, keep_gaps: bool) -> RequestRecord:
    record.ttft = stream.ttft
    record.ttfc = stream.ttfc
    record.t_last_token = stream.t_last_token
    record.chunks = stream.chunks
    record.finish_reason = stream.finish_reason
    record.output_tokens, record.tokens_counted_by = stream.output_tokens
    record.prompt_tokens = stream.prompt_tokens
    record.cached_tokens = stream.cached_tokens
    gaps = summarize_gaps(stream.gaps)
    record.chunk_gap_mean, record.chunk_gap_p50 = gaps.mean, gaps.p50
    record.chunk_gap_p90, record.chunk_gap_p99, record.chunk_gap_max = gaps.p90, gaps.p99, gaps.max
    if keep_gaps:
        record.chunk_gaps = stream.gaps
    if record.error_kind is None and stream.chunks == 0:
        _fail(record, ERROR_EMPTY_OUTPUT, "stream completed without a single token")
    return record.derive()


def _fail(record: RequestRecord, kind: str, message: str) -> None:
    if record.error_kind is None:  # the first failure is the cause; later ones are fallout
        record.status = STATUS_ERROR
        record.error_kind = kind
        record.error = message[:300]


def _error_body(response: requests.Response) -> str:
    """The server's error message, read with a bound (a misbehaving server may send a lot)."""
    try:
        raw = response.raw.read(MAX_ERROR_BODY)
        payload = json.loads(raw)
        error = payload.get("error", payload) if isinstance(payload, dict) else payload
        message = error.get("message") if isinstance(error, dict) else error
        return f"HTTP {response.status_code}: {message}"
    except Exception:  # noqa: BLE001 - any unreadable body still yields the status line
        return f"HTTP {response.status_code} {response.reason or ''}".strip()


def _describe(exc: BaseException) -> str:
    return f"{type(exc).__name__}: {exc}"
