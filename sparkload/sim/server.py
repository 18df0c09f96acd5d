"""The simulator's HTTP shell: OpenAI-compatible routes on aiohttp, SSE framing, faults.

Routes: ``POST /v1/chat/completions``, ``POST /v1/completions`` (streaming and not; it takes
a ``prompt`` string and streams ``choices[0].text``), ``POST /v1/responses`` (OpenAI's
Responses API on the chat path: ``responses.py``), ``POST /v1/messages`` (Anthropic's
Messages API on the chat path: ``messages.py``), their bodies read in ``bodies.py``, and
``POST /v1/embeddings`` (prefill only: ``embeddings.py``);
``GET /v1/models`` (the model, and the LoRA adapters served beside it: ``lora.py``),
``GET /health``, ``GET /metrics`` (vLLM's series and the head node's power) and
``GET /node/<i>/metrics`` (node i's power alone, i = 1..TP: one exporter per Spark). Each
stream is an HTTP/1.1 chunked response written one event at a time as the backend yields
tokens, so a client sees every event when it is due.

Why aiohttp: it gives direct control of the transport (a ``disconnect`` fault resets the TCP
connection mid-stream; a ``stall`` can notice the client leaving) and clean per-event chunked
writes, and it runs the one engine loop and every stream on one asyncio thread.
``benchmarks/sim_capacity.py`` measures it: 256 streams x 100 events/s on one core.

Prompt tokens are estimated as ceil(characters / 4) over the prompt's text (English averages
~4 characters per token): a request's tools as the chat template renders them (``tools``),
then the messages' contents and earlier tool calls; the prefix cache hashes that text in blocks
of the backend's block size (4 characters a token), each hash covering everything before it, so
the same tools and history are served from the cache like any repeated prefix.

A chat request with ``tools`` is answered the way vLLM with ``--enable-auto-tool-choice
--tool-call-parser qwen3_coder`` answers it (``tools.py``: which requests get a tool call, its
arguments; ``sse.py``: the deltas), and the tool parser may hold back the first tokens of the
answer (``ServerConfig.tool_parser_holdback``).
"""

from __future__ import annotations

import asyncio
import socket
import struct
import time
import uuid
from collections.abc import AsyncGenerator, Callable
from contextlib import aclosing
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from aiohttp import web
from prometheus_client import CONTENT_TYPE_LATEST

from sparkload.sim import embeddings
from sparkload.sim import faults as f
from sparkload.sim.accuracy import ITEM_HEADER, AccuracyReplier
from sparkload.sim.backends import Generation
from sparkload.sim.bodies import (
    ChatRequest,
    RequestError,
    check_model,
    parse_chat_request,
    parse_completion_request,
    parse_messages_request,
    parse_responses_request,
    prompt_text,
    request_tools,
)
from sparkload.sim.drift import OutputDrift
from sparkload.sim.engine import Counters
from sparkload.sim.lora import LoraSetup, model_cards, served_as
from sparkload.sim.messages import MessagesWriter
from sparkload.sim.metrics import SimMetrics
from sparkload.sim.power import PowerMeter
from sparkload.sim.request_metrics import Schedule, metrics
from sparkload.sim.responses import ResponseStore, ResponsesWriter, UnknownResponse
from sparkload.sim.speculation import CATEGORY_HEADER
from sparkload.sim.sse import (
    ChunkWriter,
    CompletionWriter,
    error_body,
    malformed_frame,
)
from sparkload.sim.structured import StructuredReplier
from sparkload.sim.textlength import CHARS_PER_TOKEN, estimate_tokens
from sparkload.sim.timing_log import RequestTimes, TimingLog
from sparkload.sim.tools import PlannedCall, ToolCaller

MAX_MODEL_LEN = 131072  # what /tokenize reports; the simulator takes a prompt of any length


class Backend(Protocol):
    counters: Counters
    hidden_first_tokens: int
    block_tokens: int  # prefix-cache granularity: only whole blocks of a prompt can be reused

    @property
    def num_running(self) -> int: ...
    @property
    def num_waiting(self) -> int: ...
    def kv_usage(self) -> float: ...
    def kv_cache_blocks(self) -> tuple[int, int] | None: ...
    @property
    def nodes(self) -> int: ...
    @property
    def power(self) -> PowerMeter | None: ...
    def cached_tokens(self, request_id: str) -> int: ...
    def start(self) -> None: ...
    async def stop(self) -> None: ...
    def generate(self, gen: Generation, schedule: Schedule) -> AsyncGenerator[int, None]: ...


MAX_BODY = 256 << 20  # bytes of a request body: images' data URLs (aiohttp's default: 1 MB)


@dataclass(frozen=True)
class ServerConfig:
    model_name: str
    time_scale: float = 1.0
    fault_rates: dict[str, float] | None = None
    fault_seed: int = 0
    reasoning_tokens: int = 0
    reasoning_field: str = "reasoning"
    timing_log: Path | None = None
    speculative: bool = False
    tool_call_rate: float = 0.7  # share of tool_choice auto requests answered by a tool call
    tool_call_error_rate: float = 0.0  # share of tool calls whose arguments are spoiled
    tool_parser_holdback: int = 0  # answer tokens the tool parser holds back (tools only)
    reasoning_usage: bool = True  # usage.completion_tokens_details.reasoning_tokens
    seed: int = 0  # the tool calls' randomness
    schema_error_rate: float = 0.0  # share of structured replies broken on purpose
    output_drift: float = 0.0  # share of batched greedy replies changed (drift.py)
    accuracy: float | None = None  # share of probe items answered right (sim/accuracy.py)
    category_acceptance: dict[str, float] | None = None  # per-draft, by category (speculation)
    lora: LoraSetup = LoraSetup()  # the LoRA adapters served beside the model (``lora.py``)


def block_hashes(text: str, block_tokens: int) -> tuple[int, ...]:
    """Chained hashes of the prompt's full blocks (``block_tokens`` x 4 characters each)."""
    size = block_tokens * CHARS_PER_TOKEN
    hashes, previous = [], 0
    for start in range(0, len(text) - size + 1, size):
        previous = hash((previous, text[start : start + size]))
        hashes.append(previous)
    return tuple(hashes)


def error_response(
    status: int, message: str, error_type: str, param: str | None = None
) -> web.Response:
    return web.json_response(error_body(message, error_type, status, param), status=status)


def reset_connection(request: web.Request) -> None:
    """Abort the TCP connection with a reset (SO_LINGER 0): an unclean end, not EOF."""
    transport = request.transport
    if transport is None:
        return
    sock = transport.get_extra_info("socket")
    if sock is not None:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    transport.abort()


def client_gone(request: web.Request) -> bool:
    return request.transport is None or request.transport.is_closing()


class SimServer:
    """Routes and per-request flow; the backend decides when tokens exist."""

    def __init__(self, backend: Backend, config: ServerConfig) -> None:
        self.backend = backend
        self.config = config
        self.metrics = SimMetrics(backend, config.model_name, config.speculative)
        self.faults = f.FaultPicker(config.fault_rates or {}, config.fault_seed)
        self.tool_caller = ToolCaller(
            config.tool_call_rate, config.tool_call_error_rate, config.seed
        )
        self.structured = StructuredReplier(config.schema_error_rate, config.seed)
        self.drift = OutputDrift(config.output_drift)
        self.accuracy = AccuracyReplier(config.accuracy, config.seed)
        self.stored_responses = ResponseStore()  # /v1/responses' previous_response_id
        self.timing_log = (
            TimingLog(config.timing_log, config.time_scale) if config.timing_log else None
        )

    @property
    def _lora(self) -> tuple[str, LoraSetup]:
        """What ``lora.served_as`` reads a body's model against."""
        return self.config.model_name, self.config.lora

    def app(self) -> web.Application:
        app = web.Application(client_max_size=MAX_BODY)
        app.router.add_post("/v1/chat/completions", self.chat_completions)
        app.router.add_post("/v1/completions", self.completions)
        app.router.add_post("/v1/responses", self.responses)
        app.router.add_post("/v1/messages", self.messages)
        app.router.add_post("/v1/embeddings", self.embeddings)
        app.router.add_get("/v1/models", self.models)
        app.router.add_get("/health", self.health)
        app.router.add_get("/metrics", self.prometheus)
        app.router.add_get("/node/{node}/metrics", self.node_prometheus)
        app.router.add_post("/tokenize", self.tokenize)
        app.on_startup.append(self._on_startup)
        app.on_cleanup.append(self._on_cleanup)
        return app

    async def _on_startup(self, _: web.Application) -> None:
        self.backend.start()
        if self.timing_log:
            self.timing_log.start()

    async def _on_cleanup(self, _: web.Application) -> None:
        await self.backend.stop()
        if self.timing_log:
            await self.timing_log.close()

    async def health(self, _: web.Request) -> web.Response:
        return web.Response(status=200)

    async def models(self, _: web.Request) -> web.Response:
        cards = model_cards(self.config.model_name, self.config.lora, int(time.time()))
        return web.json_response({"object": "list", "data": cards})

    async def prometheus(self, _: web.Request) -> web.Response:
        response = web.Response(body=self.metrics.exposition())
        response.headers["Content-Type"] = CONTENT_TYPE_LATEST
        return response

    async def node_prometheus(self, request: web.Request) -> web.Response:
        node = request.match_info["node"]
        body = self.metrics.node_exposition(int(node)) if node.isdigit() else None
        if body is None:
            return web.Response(status=404, text=f"no node {node} (nodes 1..{self.backend.nodes})")
        response = web.Response(body=body)
        response.headers["Content-Type"] = CONTENT_TYPE_LATEST
        return response

    async def tokenize(self, request: web.Request) -> web.Response:
        """vLLM's ``POST /tokenize``: ``prompt`` or ``messages`` counted exactly as a request's
        usage counts them (the token ids are placeholders: the simulator has no vocabulary)."""
        try:
            body = await request.json()
        except ValueError:
            return error_response(400, "request body is not valid JSON", "BadRequestError")
        body, _ = served_as(body if isinstance(body, dict) else {}, *self._lora)
        model, prompt, messages = body.get("model"), body.get("prompt"), body.get("messages")
        if model is not None and model != self.config.model_name:
            return error_response(404, f"The model `{model}` does not exist.", "NotFoundError")
        if isinstance(prompt, str):
            text = prompt
        elif isinstance(messages, list) and messages:
            try:
                text = prompt_text(messages, request_tools(body))
            except RequestError as err:
                return error_response(err.status, str(err), err.error_type, err.param)
        else:
            return error_response(400, "give a prompt or messages", "BadRequestError")
        count = estimate_tokens(text)
        return web.json_response(
            {"count": count, "max_model_len": MAX_MODEL_LEN, "tokens": list(range(count))}
        )

    async def chat_completions(self, request: web.Request) -> web.StreamResponse:
        return await self._serve(request, parse_chat_request, ChunkWriter, "chatcmpl")

    async def completions(self, request: web.Request) -> web.StreamResponse:
        """Raw completion: no chat template, so no think tag is generated or hidden."""
        return await self._serve(request, parse_completion_request, CompletionWriter, "cmpl")

    async def responses(self, request: web.Request) -> web.StreamResponse:
        """OpenAI's Responses API: the chat request it means, framed as its events."""
        return await self._serve(
            request, parse_responses_request, ResponsesWriter, "resp", self.stored_responses
        )

    async def messages(self, request: web.Request) -> web.StreamResponse:
        """Anthropic's Messages API: the chat request it means, framed as its events."""
        return await self._serve(request, parse_messages_request, MessagesWriter, "msg")

    async def embeddings(self, request: web.Request) -> web.Response:
        try:
            body = check_model(await request.json(), self.config.model_name)
        except RequestError as err:
            return error_response(err.status, str(err), err.error_type, err.param)
        except ValueError:
            return error_response(400, "request body is not valid JSON", "BadRequestError")
        return await embeddings.serve(body, self.backend, self.config.model_name)

    async def _serve(
        self,
        request: web.Request,
        parse: Callable[[Any, str, int], ChatRequest],
        writer_type: type[ChunkWriter],
        id_prefix: str,
        store: ResponseStore | None = None,
    ) -> web.StreamResponse:
        received, received_unix = time.perf_counter(), time.time()
        try:
            body = await request.json()
        except ValueError:
            return error_response(400, "request body is not valid JSON", "BadRequestError")
        body, adapter = served_as(body, *self._lora)
        try:
            if store is not None:
                body = store.expand(body)
            chat = parse(body, self.config.model_name, self.config.reasoning_tokens)
            fault = self.faults.pick(request.headers.get(f.FAULT_HEADER))
        except RequestError as err:
            return error_response(err.status, str(err), err.error_type, err.param)
        except UnknownResponse as err:
            return error_response(404, str(err), "invalid_request_error", "previous_response_id")
        except ValueError as err:
            return error_response(400, str(err), "BadRequestError")
        if fault == "http_500":
            return error_response(500, "Internal server error (injected)", "InternalServerError")
        if fault == "http_429":
            return error_response(429, "Too many requests (injected)", "RateLimitError")
        request_id = f"{id_prefix}-{uuid.uuid4().hex}"
        hidden = self.backend.hidden_first_tokens if chat.think_tag else 0
        parsed = chat.tools is not None and chat.tools.calls_possible  # a tool parser reads it
        writer = writer_type(
            request_id,
            adapter or self.config.model_name,
            estimate_tokens(chat.prompt_text) + chat.image_tokens,
            chat.reasoning_tokens,
            self.config.reasoning_field,
            chat.continuous_usage,
            tool_call=self._tool_call(chat, fault, hidden),
            holdback=self.config.tool_parser_holdback if parsed else 0,
            reasoning_usage=self.config.reasoning_usage,
            structured=self.structured.plan(chat.response_format)  # sim/structured.py
            or self.accuracy.plan(chat.prompt_text, request.headers.get(ITEM_HEADER)),
            changed_from=self.drift.plan(  # sim/drift.py
                body,
                chat.prompt_text,
                chat.max_tokens - hidden - chat.reasoning_tokens,
                self.backend.num_running + self.backend.num_waiting,
            ),
        )
        max_tokens = f.HUGE_TOKENS if fault == "huge" else chat.max_tokens
        gen = Generation(
            request_id,
            writer.prompt_tokens,
            max_tokens,
            block_hashes(chat.prompt_text, self.backend.block_tokens),
            (self.config.category_acceptance or {}).get(request.headers.get(CATEGORY_HEADER, "")),
            adapter,
        )
        times = RequestTimes(received)
        try:
            if chat.stream:
                response = await self._stream(request, chat, gen, writer, times, fault, hidden)
            else:
                response = await self._complete(gen, writer, times, hidden)
            if store is not None and isinstance(writer, ResponsesWriter):
                store.keep(body, writer)
            return response
        finally:
            if self.timing_log:
                self.timing_log.record(request_id, times, writer.generated, fault, received_unix)

    def _finish_metrics(self, writer: ChunkWriter, times: RequestTimes) -> None:
        """vLLM's per-request ``metrics``, for the usage chunk or the body (``request_metrics``)."""
        if writer.serves_metrics:
            writer.metrics = metrics(times.schedule, writer.generated)

    def _tool_call(self, chat: ChatRequest, fault: str | None, hidden: int) -> PlannedCall | None:
        """The tool call that answers ``chat``, if any (``ToolCaller.plan``): its answer is
        what the hidden tokens and the reasoning leave of ``max_tokens``. A ``huge`` fault's
        endless answer is text: a tool call would have to end."""
        if chat.tools is None or fault == "huge":
            return None
        return self.tool_caller.plan(chat.tools, chat.max_tokens - hidden - chat.reasoning_tokens)

    async def _complete(
        self, gen: Generation, writer: ChunkWriter, times: RequestTimes, hidden: int
    ) -> web.Response:
        async with aclosing(self.backend.generate(gen, times.schedule)) as tokens:
            async for count in tokens:
                self._observe(times, time.perf_counter(), first_output=writer.generated == 0)
                writer.generated += count
                writer.cached_tokens = self.backend.cached_tokens(gen.request_id)
        self._observe_end(times)
        self._finish_metrics(writer, times)
        return web.json_response(writer.completion(hidden))

    async def _stream(
        self,
        request: web.Request,
        chat: ChatRequest,
        gen: Generation,
        writer: ChunkWriter,
        times: RequestTimes,
        fault: str | None,
        hidden: int,
    ) -> web.StreamResponse:
        response = web.StreamResponse(
            headers={"Content-Type": "text/event-stream", "Cache-Control": "no-cache"}
        )
        response.enable_chunked_encoding()
        await response.prepare(request)
        try:
            if await self._write_tokens(request, response, gen, writer, times, fault, hidden):
                return response
            self._observe_end(times)
            self._finish_metrics(writer, times)
            if chat.include_usage:
                await response.write(writer.usage_chunk())
            if fault != "no_done":
                await response.write(writer.end())
            await response.write_eof()
        except ConnectionResetError:
            pass  # the client went away; nothing left to tell it
        return response

    async def _write_tokens(
        self,
        request: web.Request,
        response: web.StreamResponse,
        gen: Generation,
        writer: ChunkWriter,
        times: RequestTimes,
        fault: str | None,
        hidden: int,
    ) -> bool:
        """Write token chunks as the backend yields them; True if a fault ended the stream.

        The first ``hidden`` tokens (the chat path's swallowed think tag) are never shown."""
        pending_fault = fault if fault in MID_STREAM_FAULTS else None
        huge_deadline = time.perf_counter() + f.HUGE_SECONDS
        async with aclosing(self.backend.generate(gen, times.schedule)) as tokens:
            async for count in tokens:
                now = time.perf_counter()
                self._observe(times, now, first_output=writer.generated == 0)
                last = writer.generated + count >= gen.max_tokens or (
                    fault == "huge" and now > huge_deadline
                )
                writer.cached_tokens = self.backend.cached_tokens(gen.request_id)
                data = writer.tokens(count, hidden, last)
                if not data:
                    continue
                await response.write(data if times.chunks else writer.role() + data)
                times.note_chunk(time.perf_counter())
                if pending_fault and (times.chunks == f.TOKENS_BEFORE_FAULT or last):
                    if await inject_fault(pending_fault, request, response, writer):
                        return True
                    pending_fault = None
                if last:
                    return False
        return False

    def _observe(self, times: RequestTimes, now: float, first_output: bool) -> None:
        """vLLM-style histograms in simulated seconds (TTFT at the first engine output)."""
        scale = self.config.time_scale
        if first_output:
            self.metrics.ttft.observe((now - times.received) * scale)
        else:
            self.metrics.itl.observe((now - times.last_output) * scale)
        times.last_output = now

    def _observe_end(self, times: RequestTimes) -> None:
        self.metrics.e2e.observe((time.perf_counter() - times.received) * self.config.time_scale)


MID_STREAM_FAULTS = ("disconnect", "malformed_sse", "error_event", "stall")


async def inject_fault(
    fault: str, request: web.Request, response: web.StreamResponse, writer: ChunkWriter
) -> bool:
    """Do a mid-stream fault's wire behaviour (see ``faults``); True if the stream is over."""
    if fault == "malformed_sse":
        await response.write(malformed_frame(writer.request_id))
        return False
    if fault == "error_event":
        await response.write(writer.failed())
        await response.write_eof()
        return True
    if fault == "stall":
        deadline = time.perf_counter() + f.STALL_SECONDS
        while time.perf_counter() < deadline and not client_gone(request):
            await asyncio.sleep(0.5)
    reset_connection(request)  # disconnect, or the end of a stall nobody waited out
    return True
