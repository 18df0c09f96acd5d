"""A scripted tool-calling server for the agent workload's tests, on 127.0.0.1 (gevent, in the
test process): it streams tool calls in vLLM's delta form (``delta.tool_calls`` items with
``index``, ``id``, ``type`` and ``function.name`` first, then ``function.arguments`` in
fragments; ``finish_reason: "tool_calls"``) whenever a request sends tools and does not ask
``tool_choice: "none"``, else text, and keeps every body it received (it has no tokenizer
route: the run's tool results are sized by the estimate, or by ``--tokenizer``).
``cut_at_limit``: every tool call ends as vLLM ends a forced call that max_tokens cut, its
arguments half streamed and a last chunk of ``"arguments": "{}"`` with ``finish_reason:
"length"``, ``stub_delay`` later. ``calls_for``: the calls to stream for a body, each (name,
arguments as JSON text), instead of one per tool with made-up arguments; none: a text reply."""

from __future__ import annotations

import json
import socket
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

import gevent
from gevent.server import StreamServer

__all__ = ["ToolScript", "ToolServer", "tool_server"]


@dataclass
class ToolScript:
    calls: int = 1  # tool calls in each tool-call reply
    fragment: int = 7  # characters of the arguments per delta
    gap: float = 0.001  # seconds between deltas
    text_words: int = 4  # a text reply's words (one delta each)
    text: str | None = None  # a text reply's content instead, in deltas of ``fragment``
    # reply with text instead of a tool call to the request with this body and number (0-based)
    text_when: Callable[[dict, int], bool] | None = None
    cut_at_limit: bool = False  # tool calls cut by max_tokens, vLLM's "{}" stub last
    stub_delay: float = 0.2  # seconds before the stub's chunk
    calls_for: Callable[[dict], list[tuple[str, str]]] | None = None


@dataclass
class ToolServer:
    url: str = ""
    bodies: list[dict] = field(default_factory=list)  # every POST's body, in arrival order


@contextmanager
def tool_server(script: ToolScript | None = None) -> Iterator[ToolServer]:
    script = script or ToolScript()
    state = ToolServer()

    def handle(sock: socket.socket, _address: object) -> None:
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        pending = b""
        with sock:
            while True:
                request, pending = _read_request(sock, pending)
                if request is None:
                    return
                head, body = request
                if head.startswith("GET ") or " /v1/" not in head.split("\r\n", 1)[0]:
                    _answer_get(sock, head)  # a look-up, or a tokenizer route it has not: 404
                    continue
                parsed = json.loads(body)
                number = len(state.bodies)
                state.bodies.append(parsed)
                _stream(sock, _events(script, parsed, number), script)

    server = StreamServer(("127.0.0.1", 0), handle)
    server.start()
    state.url = f"http://127.0.0.1:{server.server_port}"
    try:
        yield state
    finally:
        server.stop(timeout=1)


def _events(script: ToolScript, body: dict, number: int) -> list[dict]:
    tools = body.get("tools") or []
    wants_call = tools and body.get("tool_choice") != "none"
    if wants_call and script.text_when is not None and script.text_when(body, number):
        wants_call = False
    events = [_chunk({"role": "assistant", "content": ""})]
    calls: list[tuple[str, str]] = []
    if wants_call:
        calls = (
            _calls(script, tools, number) if script.calls_for is None else script.calls_for(body)
        )
    wants_call = bool(calls)
    if wants_call:
        for i, (name, arguments) in enumerate(calls):
            start = {"index": i, "id": f"chatcmpl-tool-{number}-{i}", "type": "function"}
            start["function"] = {"name": name, "arguments": ""}
            events.append(_chunk({"tool_calls": [start]}))
            streamed = arguments[: len(arguments) // 2] if script.cut_at_limit else arguments
            for at in range(0, len(streamed), script.fragment):
                piece = streamed[at : at + script.fragment]
                events.append(
                    _chunk({"tool_calls": [{"index": i, "function": {"arguments": piece}}]})
                )
        finish = "tool_calls"
    else:
        pieces = [f" word{k}" for k in range(script.text_words)]
        if script.text is not None:
            pieces = [
                script.text[at : at + script.fragment]
                for at in range(0, len(script.text), script.fragment)
            ]
        events += [_chunk({"content": piece}) for piece in pieces]
        finish = "stop"
    if wants_call and script.cut_at_limit:
        stub = {"index": len(calls) - 1, "function": {"arguments": "{}"}}
        events.append(_chunk({"tool_calls": [stub]}, "length"))
    else:
        events.append(_chunk({}, finish))
    prompt = len(json.dumps(body.get("messages", []))) // 4  # grows with the context
    usage = {"prompt_tokens": prompt, "completion_tokens": len(events) - 2}
    usage["total_tokens"] = prompt + usage["completion_tokens"]
    events.append(
        {"id": "chatcmpl-agent", "object": "chat.completion.chunk", "choices": [], "usage": usage}
    )
    return events


def _calls(script: ToolScript, tools: list[dict], number: int) -> list[tuple[str, str]]:
    """``script.calls`` calls of the tools in turn, each with its required arguments made up."""
    calls = []
    for i in range(script.calls if tools else 0):
        tool = tools[(number + i) % len(tools)]["function"]
        required = (tool.get("parameters") or {}).get("required") or ["input"]
        calls.append(
            (tool["name"], json.dumps({name: f"{name}-{number}-{i}" for name in required}))
        )
    return calls


def _chunk(delta: dict, finish: str | None = None) -> dict:
    choice = {"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish}
    return {"id": "chatcmpl-agent", "object": "chat.completion.chunk", "choices": [choice]}


def _stream(sock: socket.socket, events: list[dict], script: ToolScript) -> None:
    sock.sendall(
        b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n"
        b"Connection: keep-alive\r\nServer: scripted-agent\r\n\r\n"
    )
    for k, event in enumerate(
        [*(b"data: " + json.dumps(e).encode() + b"\n\n" for e in events), b"data: [DONE]\n\n"]
    ):
        if script.cut_at_limit and k == len(events) - 2:  # the stub's chunk comes late
            gevent.sleep(script.stub_delay)
        sock.sendall(b"%x\r\n%s\r\n" % (len(event), event))
        gevent.sleep(script.gap)
    sock.sendall(b"0\r\n\r\n")


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


def _answer_get(sock: socket.socket, head: str) -> None:
    path = head.split(" ", 2)[1]
    if path.endswith("/models"):
        body, status = json.dumps({"object": "list", "data": [{"id": "agent-model"}]}), b"200 OK"
    else:
        body, status = "{}", b"404 Not Found"
    data = body.encode()
    sock.sendall(
        b"HTTP/1.1 %s\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s"
        % (status, len(data), data)
    )
