"""A minimal, fast SSE server with known timing and its own per-request timing log.

The yardstick for the client's accuracy: it must add as little as possible between a request's
arrival and the server's clock, so it is a bare asyncio protocol, not a web framework. The
arrival time is taken when the request's first bytes reach the process; every frame is encoded
once at start; tokens are written on a fixed schedule (TTFT, then one token every ITL) and the
time of each write is what the log reports.

    python benchmarks/reference_server.py --port 0 --ttft-ms 100 --itl-ms 10 --log timing.jsonl

Prints ``reference-server listening on http://127.0.0.1:PORT`` when ready. Serves
``GET /v1/models`` and ``POST /v1/chat/completions`` (always streaming, ``max_tokens`` tokens,
one per event, then usage and ``[DONE]``). SIGTERM flushes the log and exits.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import signal
import sys
import time

MODEL = "reference"


def frame(payload: bytes) -> bytes:
    """One HTTP/1.1 chunk holding one SSE event."""
    event = b"data: " + payload + b"\n\n"
    return b"%x\r\n%s\r\n" % (len(event), event)


def chunk_json(request_id: str, delta: dict, finish_reason: str | None = None) -> bytes:
    return json.dumps({"id": request_id, "object": "chat.completion.chunk", "model": MODEL,
                       "choices": [{"index": 0, "delta": delta, "finish_reason": finish_reason}]}).encode()


class TimingLog:
    def __init__(self, path: str | None) -> None:
        self.file = open(path, "a", encoding="utf-8") if path else None
        self.lines: list[str] = []

    def add(self, entry: dict) -> None:
        if self.file:
            self.lines.append(json.dumps(entry))

    def flush(self) -> None:
        if self.file and self.lines:
            self.file.write("\n".join(self.lines) + "\n")
            self.file.flush()
            self.lines = []


class Stream:
    """The token schedule of one request: TTFT, then one token every ITL, all on the loop's timer."""

    def __init__(self, protocol: HttpProtocol, request_id: str, tokens: int, arrival: float) -> None:
        self.protocol, self.request_id, self.tokens, self.arrival = protocol, request_id, tokens, arrival
        self.sent = 0
        self.first_write: float | None = None
        self.prefix = b'data: {"id":"' + request_id.encode() + b'",'

    def start(self, loop: asyncio.AbstractEventLoop, ttft: float, itl: float, burst: int) -> None:
        self.loop, self.itl, self.burst = loop, itl, burst
        self.due = self.arrival + ttft
        loop.call_at(self._loop_time(self.due), self.write_next)

    def _loop_time(self, perf_due: float) -> float:
        return self.loop.time() + (perf_due - time.perf_counter())

    def write_next(self) -> None:
        transport = self.protocol.transport
        if transport is None or transport.is_closing():
            return
        frames = []
        for _ in range(min(self.burst, self.tokens - self.sent)):  # several events per write: --burst
            body = TOKEN_FIRST if self.sent == 0 else TOKEN_NEXT
            frames.append(b"%x\r\n" % (len(self.prefix) + len(body)) + self.prefix + body + b"\r\n")
            self.sent += 1
        transport.write(b"".join(frames))
        now = time.perf_counter()
        if self.first_write is None:
            self.first_write = now
        if self.sent < self.tokens:
            self.due += self.itl
            self.loop.call_at(self._loop_time(self.due), self.write_next)
            return
        transport.write(frame(chunk_json(self.request_id, {}, "length")))
        usage = {"id": self.request_id, "object": "chat.completion.chunk", "model": MODEL, "choices": [],
                 "usage": {"prompt_tokens": 128, "completion_tokens": self.tokens,
                           "total_tokens": 128 + self.tokens}}
        transport.write(frame(json.dumps(usage).encode()) + frame(b"[DONE]") + b"0\r\n\r\n")
        LOG.add({"request_id": self.request_id, "server_ttft_s": self.first_write - self.arrival,
                 "mean_itl_s": (now - self.first_write) / (self.tokens - 1) if self.tokens > 1 else None,
                 "tokens": self.tokens})


# Token events without their id prefix ('data: {"id":"…",' is prepended per stream); one token each.
TOKEN_FIRST = b'"object":"chat.completion.chunk","choices":[{"index":0,"delta":{"role":"assistant","content":"tok"},"finish_reason":null}]}'
TOKEN_NEXT = b'"object":"chat.completion.chunk","choices":[{"index":0,"delta":{"content":" tok"},"finish_reason":null}]}'
TOKEN_FIRST += b"\n\n"
TOKEN_NEXT += b"\n\n"
LOG = TimingLog(None)
STREAM_HEADERS = (b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nCache-Control: no-cache\r\n"
                  b"Transfer-Encoding: chunked\r\n\r\n")


class HttpProtocol(asyncio.Protocol):
    counter = 0

    def __init__(self, ttft: float, itl: float, burst: int) -> None:
        self.ttft, self.itl, self.burst = ttft, itl, burst
        self.buffer = b""
        self.arrival: float | None = None
        self.transport: asyncio.Transport | None = None

    def connection_made(self, transport) -> None:
        self.transport = transport

    def connection_lost(self, exc) -> None:
        self.transport = None

    def data_received(self, data: bytes) -> None:
        if self.arrival is None:
            self.arrival = time.perf_counter()
        self.buffer += data
        while True:
            end = self.buffer.find(b"\r\n\r\n")
            if end < 0:
                return
            head = self.buffer[:end].decode("latin-1")
            length = 0
            for line in head.split("\r\n")[1:]:
                name, _, value = line.partition(":")
                if name.strip().lower() == "content-length":
                    length = int(value)
            if len(self.buffer) < end + 4 + length:
                return
            body, self.buffer = self.buffer[end + 4:end + 4 + length], self.buffer[end + 4 + length:]
            arrival, self.arrival = self.arrival, (time.perf_counter() if self.buffer else None)
            self.handle(head.split(" ", 2), body, arrival)

    def handle(self, request_line: list[str], body: bytes, arrival: float) -> None:
        method, path = request_line[0], request_line[1]
        if method == "GET" and path == "/v1/models":
            payload = json.dumps({"object": "list", "data": [{"id": MODEL, "object": "model"}]}).encode()
            self.transport.write(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n"
                                 % len(payload) + payload)
            return
        if method != "POST" or path != "/v1/chat/completions":
            self.transport.write(b"HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n")
            return
        tokens = max(1, int(json.loads(body).get("max_tokens") or 16))
        HttpProtocol.counter += 1
        self.transport.write(STREAM_HEADERS)
        Stream(self, f"chatcmpl-ref-{HttpProtocol.counter}", tokens, arrival).start(
            asyncio.get_running_loop(), self.ttft, self.itl, self.burst)


async def serve(port: int, ttft: float, itl: float, burst: int) -> None:
    loop = asyncio.get_running_loop()
    server = await loop.create_server(lambda: HttpProtocol(ttft, itl, burst), "127.0.0.1", port, backlog=4096)
    print(f"reference-server listening on http://127.0.0.1:{server.sockets[0].getsockname()[1]}", flush=True)
    stop = asyncio.Event()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)

    async def flush_every_second() -> None:
        while True:
            await asyncio.sleep(1.0)
            LOG.flush()

    flusher = asyncio.create_task(flush_every_second())
    await stop.wait()
    flusher.cancel()
    server.close()
    LOG.flush()


def main() -> int:
    global LOG
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--ttft-ms", type=float, default=100.0)
    parser.add_argument("--itl-ms", type=float, default=10.0)
    parser.add_argument("--burst", type=int, default=1,
                        help="token events per write (a server sending as fast as it can: --itl-ms 0 --burst 32)")
    parser.add_argument("--log", default=None, help="timing log (JSON lines), one per request")
    args = parser.parse_args()
    LOG = TimingLog(args.log)
    asyncio.run(serve(args.port, args.ttft_ms / 1000, args.itl_ms / 1000, max(1, args.burst)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
