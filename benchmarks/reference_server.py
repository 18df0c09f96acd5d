"""A minimal, fast SSE server with known timing and its own per-request timing log.

The yardstick for the client's accuracy, so it must add nothing between a request's arrival and
its clock: a request's arrival is the kernel's receive stamp of its first packet
(``SO_TIMESTAMPNS``, read with ``recvmsg``), not the moment this process got to read it — when 256
requests arrive at once, the last one is read milliseconds later but stamped when it came. That
is why this is a bare selector loop over sockets, not asyncio or a web framework (neither hands
out the packets' stamps). Every frame is encoded once; tokens are written on a fixed schedule
(TTFT after arrival, then one token every ITL) and the log reports when each write happened.

    python benchmarks/reference_server.py --port 0 --ttft-ms 100 --itl-ms 10 --log timing.jsonl

Prints ``reference-server listening on http://127.0.0.1:PORT`` when ready. Serves
``GET /v1/models`` and ``POST /v1/chat/completions`` (always streaming, ``max_tokens`` tokens,
one per event, then usage and ``[DONE]``). SIGTERM flushes the log and exits.
"""

from __future__ import annotations

import argparse
import heapq
import itertools
import json
import selectors
import signal
import socket
import struct
import sys
import time

MODEL = "reference"
SO_TIMESTAMPNS = getattr(socket, "SO_TIMESTAMPNS", 35)  # Linux's value
ANCILLARY_SIZE = socket.CMSG_SPACE(16)
STREAM_HEADERS = (
    b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nCache-Control: no-cache\r\n"
    b"Transfer-Encoding: chunked\r\n\r\n"
)
# Token events without their id prefix ('data: {"id":"…",' is prepended per stream).
TOKEN_FIRST = (
    b'"object":"chat.completion.chunk","choices":[{"index":0,"delta":{"role":"assistant",'
    b'"content":"tok"},"finish_reason":null}]}\n\n'
)
TOKEN_NEXT = (
    b'"object":"chat.completion.chunk",'
    b'"choices":[{"index":0,"delta":{"content":" tok"},"finish_reason":null}]}\n\n'
)


def frame(payload: bytes) -> bytes:
    """One HTTP/1.1 chunk holding one SSE event."""
    event = b"data: " + payload + b"\n\n"
    return b"%x\r\n%s\r\n" % (len(event), event)


def arrival_ns(ancillary: list) -> int:
    for level, kind, payload in ancillary:
        if level == socket.SOL_SOCKET and kind == SO_TIMESTAMPNS:
            seconds, nanoseconds = struct.unpack("qq", payload[:16])
            return seconds * 1_000_000_000 + nanoseconds
    return (
        time.time_ns()
    )  # the kernel switches stamping on lazily: the very first packet may lack one


class Connection:
    """One client connection: reads requests, writes whatever is due, buffers what the socket
    refuses."""

    def __init__(self, server: Server, sock: socket.socket) -> None:
        self.server, self.sock = server, sock
        self.inbox = b""
        self.arrival: int | None = None
        self.outbox = b""
        self.open = True

    def readable(self) -> None:
        try:
            data, ancillary, _flags, _address = self.sock.recvmsg(65536, ANCILLARY_SIZE)
        except (BlockingIOError, InterruptedError):
            return
        except OSError:
            data = b""
        if not data:
            self.close()
            return
        if self.arrival is None:
            self.arrival = arrival_ns(ancillary)
        self.inbox += data
        while (end := self.inbox.find(b"\r\n\r\n")) >= 0:
            head = self.inbox[:end].decode("latin-1")
            length = next(
                (
                    int(line.split(":", 1)[1])
                    for line in head.split("\r\n")[1:]
                    if line.lower().startswith("content-length:")
                ),
                0,
            )
            if len(self.inbox) < end + 4 + length:
                return
            body, self.inbox = (
                self.inbox[end + 4 : end + 4 + length],
                self.inbox[end + 4 + length :],
            )
            arrival, self.arrival = self.arrival, (time.time_ns() if self.inbox else None)
            self.server.handle(self, head.split(" ", 2), body, arrival)

    def write(self, data: bytes) -> None:
        if not self.open:
            return
        if self.outbox:
            self.outbox += data
            return
        try:
            sent = self.sock.send(data)
        except (BlockingIOError, InterruptedError):
            sent = 0
        except OSError:
            self.close()
            return
        if sent < len(data):
            self.outbox = data[sent:]
            self.server.selector.modify(
                self.sock, selectors.EVENT_READ | selectors.EVENT_WRITE, self
            )

    def writable(self) -> None:
        data, self.outbox = self.outbox, b""
        self.server.selector.modify(self.sock, selectors.EVENT_READ, self)
        self.write(data)

    def close(self) -> None:
        if self.open:
            self.open = False
            self.server.selector.unregister(self.sock)
            self.sock.close()


class Stream:
    """The token schedule of one request, driven by the server's timer heap."""

    def __init__(self, connection: Connection, request_id: str, tokens: int, arrival: int) -> None:
        self.connection, self.request_id, self.tokens, self.arrival = (
            connection,
            request_id,
            tokens,
            arrival,
        )
        self.prefix = b'data: {"id":"' + request_id.encode() + b'",'
        self.sent = 0
        self.first_write: int | None = None

    def write_due(self, burst: int) -> bool:
        """Write the next token(s); True while more remain."""
        frames = []
        for _ in range(min(burst, self.tokens - self.sent)):
            body = TOKEN_FIRST if self.sent == 0 else TOKEN_NEXT
            frames.append(b"%x\r\n" % (len(self.prefix) + len(body)) + self.prefix + body + b"\r\n")
            self.sent += 1
        self.connection.write(b"".join(frames))
        now = time.time_ns()
        if self.first_write is None:
            self.first_write = now
        if self.sent < self.tokens:
            return True
        finish = {
            "id": self.request_id,
            "object": "chat.completion.chunk",
            "model": MODEL,
            "choices": [{"index": 0, "delta": {}, "finish_reason": "length"}],
        }
        usage = {
            "id": self.request_id,
            "object": "chat.completion.chunk",
            "model": MODEL,
            "choices": [],
            "usage": {
                "prompt_tokens": 128,
                "completion_tokens": self.tokens,
                "total_tokens": 128 + self.tokens,
            },
        }
        self.connection.write(
            frame(json.dumps(finish).encode())
            + frame(json.dumps(usage).encode())
            + frame(b"[DONE]")
            + b"0\r\n\r\n"
        )
        self.connection.server.log_line(
            {
                "request_id": self.request_id,
                "server_ttft_s": (self.first_write - self.arrival) / 1e9,
                "mean_itl_s": (now - self.first_write) / 1e9 / (self.tokens - 1)
                if self.tokens > 1
                else None,
                "tokens": self.tokens,
                "arrival_ns": self.arrival,  # when the request came (its first packet's stamp)
                "end_ns": now,  # when its last token was written
            }
        )
        return False


class Server:
    def __init__(
        self, port: int, ttft: float, itl: float, burst: int, log_path: str | None
    ) -> None:
        self.ttft, self.itl, self.burst = ttft, itl, burst
        self.listener = socket.create_server(("127.0.0.1", port), backlog=4096)
        self.listener.setblocking(False)
        self.selector = selectors.DefaultSelector()
        self.selector.register(self.listener, selectors.EVENT_READ, None)
        self.timers: list[tuple[float, int, Stream]] = []
        self.order = itertools.count()
        self.ids = itertools.count(1)
        self.log = open(log_path, "a", encoding="utf-8") if log_path else None  # noqa: SIM115 - lives as long as the server
        self.lines: list[str] = []
        self.stopping = False

    @property
    def port(self) -> int:
        return self.listener.getsockname()[1]

    def log_line(self, entry: dict) -> None:
        if self.log:
            self.lines.append(json.dumps(entry))

    def flush_log(self) -> None:
        if self.log and self.lines:
            self.log.write("\n".join(self.lines) + "\n")
            self.log.flush()
            self.lines = []

    def handle(
        self, connection: Connection, request_line: list[str], body: bytes, arrival: int
    ) -> None:
        method, path = request_line[0], request_line[1]
        if method == "GET" and path == "/v1/models":
            payload = json.dumps(
                {"object": "list", "data": [{"id": MODEL, "object": "model"}]}
            ).encode()
            connection.write(
                b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n"
                % len(payload)
                + payload
            )
            return
        if method != "POST" or path != "/v1/chat/completions":
            connection.write(b"HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n")
            return
        tokens = max(1, int(json.loads(body).get("max_tokens") or 16))
        connection.write(STREAM_HEADERS)
        stream = Stream(connection, f"chatcmpl-ref-{next(self.ids)}", tokens, arrival)
        already = (time.time_ns() - arrival) / 1e9  # time since the request reached the host
        self.schedule(time.perf_counter() + self.ttft - already, stream)

    def schedule(self, due: float, stream: Stream) -> None:
        heapq.heappush(self.timers, (due, next(self.order), stream))

    def run(self) -> None:
        flushed = time.monotonic()
        while not self.stopping:
            wait = (
                min(max(0.0, self.timers[0][0] - time.perf_counter()), 0.5) if self.timers else 0.5
            )
            for key, mask in self.selector.select(wait):
                if key.data is None:
                    self.accept()
                elif mask & selectors.EVENT_WRITE:
                    key.data.writable()
                elif mask & selectors.EVENT_READ:
                    key.data.readable()
            now = time.perf_counter()
            while self.timers and self.timers[0][0] <= now:
                due, _, stream = heapq.heappop(self.timers)
                if stream.connection.open and stream.write_due(self.burst):
                    self.schedule(due + self.itl, stream)
            if time.monotonic() - flushed >= 1.0:
                self.flush_log()
                flushed = time.monotonic()
        self.flush_log()

    def accept(self) -> None:
        while True:
            try:
                sock, _ = self.listener.accept()
            except (BlockingIOError, InterruptedError):
                return
            sock.setblocking(False)
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            sock.setsockopt(socket.SOL_SOCKET, SO_TIMESTAMPNS, 1)
            self.selector.register(sock, selectors.EVENT_READ, Connection(self, sock))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--ttft-ms", type=float, default=100.0)
    parser.add_argument("--itl-ms", type=float, default=10.0)
    parser.add_argument(
        "--burst",
        type=int,
        default=1,
        help="token events per write (a server sending as fast as it can: --itl-ms 0 --burst 32)",
    )
    parser.add_argument("--log", default=None, help="timing log (JSON lines), one per request")
    args = parser.parse_args()
    server = Server(
        args.port, args.ttft_ms / 1000, args.itl_ms / 1000, max(1, args.burst), args.log
    )

    def stop(*_args) -> None:
        server.stopping = True

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    print(f"reference-server listening on http://127.0.0.1:{server.port}", flush=True)
    server.run()
    return 0


if __name__ == "__main__":
    sys.exit(main())
