"""Servers for tests, on 127.0.0.1: the simulator as a child process, and small scripted
streaming servers (gevent, in the test process) that misbehave in one known way each."""

from __future__ import annotations

import base64
import io
import json
import socket
import sys
import zlib
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

import brotli
import gevent
from gevent.server import StreamServer
from PIL import Image

from sparkload.apis.chat import ChatStream
from sparkload.body import BodyTemplate
from sparkload.records import RequestRecord
from sparkload.run.simulator_process import READY_PREFIX, ServerProcess
from sparkload.transport.client import Connection, StreamRequest, build_headers, measure
from sparkload.workloads.contract import PlannedRequest

__all__ = ["READY_PREFIX", "Script", "ScriptedServer", "plain_body", "running_sim", "scripted"]


def plain_body(prompt: str = "hi", max_tokens: int = 8, api: str = "chat") -> bytes:
    """A request body with nothing but model "m", the prompt and max_tokens (and the stream)."""
    return BodyTemplate("m", max_tokens, api).encode(PlannedRequest(prompt, max_tokens))


@contextmanager
def running_sim(*args: str) -> Iterator[str]:
    """Yield the base URL of ``python -m sparkload.sim --port 0 ARGS`` (30 s to start at most)."""
    sim = ServerProcess([sys.executable, "-m", "sparkload.sim", "--port", "0", *args])
    try:
        yield sim.start()
    finally:
        sim.stop()


NGINX_502 = (
    b"<html>\r\n<head><title>502 Bad Gateway</title></head>\r\n<body>\r\n"
    b"<center><h1>502 Bad Gateway</h1></center>\r\n<hr><center>nginx</center>\r\n"
    b"</body>\r\n</html>\r\n"
)


@dataclass
class Script:
    """How a scripted server answers every streaming request."""

    tokens: int = 8
    gap: float = 0.002  # seconds between token writes (one token per write)
    hold: float = 0.0  # seconds before anything is sent, headers included
    prefill: float = 0.01  # seconds between the headers and the first token
    collapse: bool = False  # headers, every token event, and the end: three back-to-back writes
    # a proxy that buffers part of each stream: nothing until this many tokens were made (one gap
    # each), then the headers and those token events in one write; the rest one per gap
    burst: int = 0
    tail: float = 0.0  # seconds between the last token and the usage chunk + [DONE]
    # "completions": choices[0].text; "responses", "messages": that API's events
    api: str = "chat"
    encoding: str = "identity"  # gzip | br: the whole body compressed
    flush_each: bool = True  # with an encoding: flushed after every event, else once at the end
    close_after: float | None = None  # close this long after each response
    cut_after: int | None = None  # close the connection after this many token events, mid-stream
    connection_header: bytes = b"keep-alive"  # what the response claims
    status_line: bytes = b"HTTP/1.1 200 OK"
    raw_response: bytes | None = None  # a fixed answer instead of a stream (e.g. nginx's 502)
    raw_pause: tuple[int, float] | None = None  # its first N bytes, a pause of S seconds, the rest
    raw_for_lookups: bool = False  # ... to the GETs before the load too (/v1/models, /version)
    tokenizer_answer: bytes | None = None  # a fixed answer to POST /tokenize, /apply-template
    extra_headers: bytes = b"Server: scripted\r\nVia: 1.1 test-proxy\r\n"
    cached_prompt: bool = False  # usage says the whole prompt came from the prefix cache
    one_event: bool = False  # every token of a reply in one SSE event (usage counts them all)
    # the server's own bursts: headers at once, then its token events in writes of this many
    # (made one gap apart each, written together)
    bursts_of: int = 0
    # vLLM's per-request metrics (its ``metrics`` object), sent as is in the usage chunk
    metrics: dict | None = None
    # the server's own POST routes (/reset_prefix_cache, /start_profile, ...): path -> (status,
    # JSON body); the others a 404 (but /tokenize: ``tokenizer_answer``)
    routes: dict[str, tuple[int, bytes]] = field(default_factory=dict)
    server_info: dict | None = None  # GET /server_info's answer (None: 404, as vLLM's default)
    models: tuple[str, ...] = ("scripted-model",)  # what GET /v1/models lists
    # every request must carry this many images of this size (count, width, height) in its
    # API's form (chat: image_url parts; responses: input_image), else a 400 saying what is wrong
    images: tuple[int, int, int] | None = None


@dataclass
class ScriptedServer:
    url: str
    connections: int = 0
    requests: list[tuple[str, bytes]] = field(default_factory=list)  # (request head, body)
    lookups: list[str] = field(default_factory=list)  # the heads of the GETs before the load
    seen: list[str] = field(default_factory=list)  # every request line, in the order it came


@contextmanager
def scripted(script: Script) -> Iterator[ScriptedServer]:
    """Serve ``script`` on 127.0.0.1 (keep-alive unless told otherwise) while the block runs."""
    state = ScriptedServer("")

    def handle(sock: socket.socket, _address: object) -> None:
        state.connections += 1
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        pending = b""
        with sock:
            while True:
                request, pending = _read_request(sock, pending)
                if request is None:
                    return
                line = request[0].split("\r\n", 1)[0]
                state.seen.append(line)
                path = line.split(" ")[1].split("?")[0]
                own = "/v1/" not in path and not path.startswith(("/tokenize", "/apply-template"))
                if line.startswith("POST ") and own:  # the server's own routes (dev mode's)
                    _send_json(sock, *script.routes.get(path, (404, b'{"detail": "Not Found"}')))
                    continue
                if request[0].startswith("GET "):  # the look-ups before a run: /v1/models, ...
                    state.lookups.append(request[0])
                    if script.raw_for_lookups and script.raw_response is not None:
                        sock.sendall(script.raw_response)
                    else:
                        _answer_get(sock, request[0], script)
                    continue
                if script.tokenizer_answer is not None and request[0].startswith(
                    ("POST /tokenize", "POST /apply-template")
                ):
                    sock.sendall(script.tokenizer_answer)
                    continue
                state.requests.append(request)
                _answer(sock, script, request[1])
                if script.close_after is not None:
                    gevent.sleep(script.close_after)
                    return

    server = StreamServer(("127.0.0.1", 0), handle)
    server.start()
    state.url = f"http://127.0.0.1:{server.server_port}"
    try:
        yield state
    finally:
        server.stop(timeout=1)


def _read_request(sock: socket.socket, pending: bytes) -> tuple[tuple[str, bytes] | None, bytes]:
    while b"\r\n\r\n" not in pending:
        data = sock.recv(65536)
        if not data:
            return None, b""
        pending += data
    head, _, rest = pending.partition(b"\r\n\r\n")
    text = head.decode("latin-1")
    length = next(
        (
            int(line.split(":", 1)[1])
            for line in text.split("\r\n")
            if line.lower().startswith("content-length:")
        ),
        0,
    )
    while len(rest) < length:
        data = sock.recv(65536)
        if not data:
            return None, b""
        rest += data
    return (text, rest[:length]), rest[length:]


def _answer_get(sock: socket.socket, head: str, script: Script) -> None:
    path = head.split(" ", 2)[1].split("?")[0]
    if path.endswith("/models"):
        listed = [{"id": model} for model in script.models]
        _send_json(sock, 200, json.dumps({"object": "list", "data": listed}).encode())
    elif path == "/version":  # as vLLM answers it
        _send_json(sock, 200, json.dumps({"version": "9.9.9-scripted"}).encode())
    elif path == "/server_info" and script.server_info is not None:
        _send_json(sock, 200, json.dumps(script.server_info).encode())
    else:
        _send_json(sock, 404, b"{}")


def _send_json(sock: socket.socket, status: int, body: bytes) -> None:
    reason = {200: b"OK", 404: b"Not Found", 405: b"Method Not Allowed"}.get(status, b"Error")
    sock.sendall(
        b"HTTP/1.1 %d %s\r\nContent-Type: application/json\r\nContent-Length: %d\r\n"
        b"Server: scripted\r\n\r\n%s" % (status, reason, len(body), body)
    )


def _answer(sock: socket.socket, script: Script, body: bytes) -> None:
    gevent.sleep(script.hold)
    if script.raw_response is not None:
        split, pause = script.raw_pause or (len(script.raw_response), 0.0)
        sock.sendall(script.raw_response[:split])
        gevent.sleep(pause)
        sock.sendall(script.raw_response[split:])
        return
    sent = json.loads(body)
    if script.images is not None and (wrong := image_problem(script.api, sent, script.images)):
        _send_json(sock, 400, json.dumps({"error": {"message": wrong}}).encode())
        return
    max_tokens = sent.get("max_tokens") or script.tokens
    count = min(script.tokens, max_tokens)
    tokens = [_event(_token(script.api, i)) for i in range(count)]
    if script.one_event:
        tokens = [_event(_token(script.api, *range(count)))]
    end = [_event(_usage(count, script.cached_prompt, script.metrics)), b"data: [DONE]\n\n"]
    if script.api == "responses":
        usage = {"input_tokens": 5, "output_tokens": count}
        done = {"type": "response.completed", "response": {"status": "completed", "usage": usage}}
        end = [_event(done)]
    if script.api == "messages":  # Anthropic's events: the start, text deltas, the end
        start = {
            "type": "message_start",
            "message": {"id": "msg_test", "usage": {"input_tokens": 5}},
        }
        tokens = [_event(start), *tokens]
        stop = {"type": "message_delta", "delta": {"stop_reason": "max_tokens"}}
        end = [
            _event({**stop, "usage": {"output_tokens": count}}),
            _event({"type": "message_stop"}),
        ]
    encoder = _Encoder(script.encoding)
    encoding = (
        b""
        if script.encoding == "identity"
        else b"Content-Encoding: %s\r\n" % script.encoding.encode()
    )
    headers = (
        script.status_line
        + b"\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n"
        + b"Connection: %s\r\n" % script.connection_header
        + encoding
        + script.extra_headers
        + b"\r\n"
    )

    def chunks(events: list[bytes], last: bool = False) -> bytes:
        data = b"".join(encoder.encode(event, script.flush_each) for event in events)
        if last:
            data += encoder.finish()
        return (b"%x\r\n%s\r\n" % (len(data), data) if data else b"") + (
            b"0\r\n\r\n" if last else b""
        )

    if script.collapse:
        sock.sendall(headers)
        sock.sendall(chunks(tokens))
        sock.sendall(chunks(end, last=True))
        return
    if script.bursts_of:
        sock.sendall(headers)
        gevent.sleep(script.prefill)
        for start in range(0, len(tokens), script.bursts_of):
            group = tokens[start : start + script.bursts_of]
            gevent.sleep(script.gap * len(group))
            sock.sendall(chunks(group))
        sock.sendall(chunks(end, last=True))
        return
    if script.burst:
        gevent.sleep(script.prefill + script.gap * (script.burst - 1))
        sock.sendall(headers + chunks(tokens[: script.burst]))
        tokens = tokens[script.burst :]
    else:
        sock.sendall(headers)
        gevent.sleep(script.prefill)
    for i, token in enumerate(tokens):
        if i or script.burst:
            gevent.sleep(script.gap)
        if script.cut_after is not None and i >= script.cut_after:
            sock.shutdown(socket.SHUT_RDWR)  # the stream ends here: no [DONE], no last chunk
            return
        sock.sendall(chunks([token]))
    gevent.sleep(script.tail)
    sock.sendall(chunks(end, last=True))


class _Encoder:
    """One response body's content coding: identity, gzip or br."""

    def __init__(self, encoding: str) -> None:
        self.encoding = encoding
        self.gzip = zlib.compressobj(wbits=31) if encoding == "gzip" else None
        self.brotli = brotli.Compressor() if encoding == "br" else None

    def encode(self, data: bytes, flush: bool) -> bytes:
        if self.gzip is not None:
            return self.gzip.compress(data) + (self.gzip.flush(zlib.Z_SYNC_FLUSH) if flush else b"")
        if self.brotli is not None:
            return self.brotli.process(data) + (self.brotli.flush() if flush else b"")
        return data

    def finish(self) -> bytes:
        if self.gzip is not None:
            return self.gzip.flush()
        return self.brotli.finish() if self.brotli is not None else b""


def image_problem(api: str, body: dict, expected: tuple[int, int, int]) -> str | None:
    """What is wrong with the images of a body of ``api`` (None: ``expected``'s count and size,
    each a base64 data URL in the API's own part, beside a text part of the same message)."""
    count, width, height = expected
    if api == "responses":
        messages = [item for item in body.get("input", []) if "role" in item]
        image_kind, text_kind = "input_image", "input_text"
    elif api == "messages":
        messages, image_kind, text_kind = body.get("messages", []), "image", "text"
    else:
        messages, image_kind, text_kind = body.get("messages", []), "image_url", "text"
    parts = [part for m in messages if isinstance(m["content"], list) for part in m["content"]]
    images = [part for part in parts if part.get("type") == image_kind]
    if len(images) != count or not any(part.get("type") == text_kind for part in parts):
        return f"expected {count} {image_kind} parts beside text, got {parts!r:.200}"
    for part in images:
        if api == "messages":  # a base64 source: {"type": "base64", "media_type", "data"}
            source = part.get("source") or {}
            if source.get("type") != "base64" or not source.get("media_type", "").startswith(
                "image/"
            ):
                return f"not a base64 image source in messages' form: {part!r:.200}"
            data = base64.b64decode(source["data"])
        else:
            url = part["image_url"] if api == "responses" else part["image_url"]["url"]
            if not isinstance(url, str) or not url.startswith("data:image/"):
                return f"not a data URL in {api}'s form: {part!r:.200}"
            data = base64.b64decode(url.partition(",")[2])
        with Image.open(io.BytesIO(data)) as picture:
            if picture.size != (width, height):
                return f"an image of {picture.size}, not {(width, height)}"
    return None


def _event(payload: dict) -> bytes:
    return b"data: " + json.dumps(payload).encode() + b"\n\n"


def _token(api: str, *indices: int) -> dict:
    """One event carrying the tokens of ``indices`` (one, as a server streams them)."""
    text = "".join(f" t{index}" for index in indices)
    if api == "responses":
        return {"type": "response.output_text.delta", "delta": text}
    if api == "messages":
        delta = {"type": "text_delta", "text": text}
        return {"type": "content_block_delta", "index": 0, "delta": delta}
    if api == "completions":
        choice = {"index": 0, "text": text, "finish_reason": None}
        return {"id": "cmpl-test", "object": "text_completion", "choices": [choice]}
    choice = {"index": 0, "delta": {"content": text}, "finish_reason": None}
    return {"id": "chatcmpl-test", "object": "chat.completion.chunk", "choices": [choice]}


def _usage(tokens: int, cached_prompt: bool = False, metrics: dict | None = None) -> dict:
    usage: dict = {"prompt_tokens": 5, "completion_tokens": tokens, "total_tokens": 5 + tokens}
    if cached_prompt:
        usage["prompt_tokens_details"] = {"cached_tokens": 5}
    chunk = {"id": "test", "choices": [], "usage": usage}
    return chunk if metrics is None else {**chunk, "metrics": metrics}


def measure_on(
    script: Script,
    requests: int = 1,
    max_tokens: int = 8,
    accept_encoding: str = "identity",
    keep_chunk_gaps: bool = False,
) -> tuple[list[RequestRecord], ScriptedServer]:
    """``requests`` chat requests measured one after another on one client connection to a
    server following ``script``: the client's records, and what the server saw."""
    with scripted(script) as server:
        connection = Connection(server.url, timeout=5)
        request = StreamRequest(
            "/v1/chat/completions",
            plain_body("hi", max_tokens),
            build_headers(None, accept_encoding=accept_encoding),
            timeout=5,
            reader=ChatStream,
            keep_chunk_gaps=keep_chunk_gaps,
        )
        records = [
            measure(
                connection,
                request,
                RequestRecord(f"r{i}", 1, 0, "measure", "local", 0, "h", "m", 0, max_tokens, 0.0),
            )
            for i in range(requests)
        ]
        connection.close()
    return records, server
