"""Interpret one OpenAI streaming completion, event by event (pure: data + clock in).

This is the hot path: per event it decodes JSON, looks at the first choice's token text and
notes the time. Everything else (gap statistics, derived metrics) happens once per request,
afterwards. The two streaming APIs differ only in where a chunk's token text is: chat's
``choices[0].delta`` (content, reasoning, tool calls) or completions' ``choices[0].text``.

Most chunks (vLLM's every answer token, a thinking model's every reasoning token) are decoded
by msgspec into a typed shape of only the fields read (``_TokenChunk``): the rest of the chunk
is skipped, not built into dicts, and on 256 interleaved streams a chunk cost 0.6 us where a
whole decode with orjson and the dict lookups cost 1.0 us. A chunk of any other shape (an
error, tool calls, a field of an unexpected type) is decoded whole (``_feed_any``), which holds
every failure class and the tool-call rules; tests/sparkload/transport/
test_stream_chunk_shapes.py holds the two readings to the same accounting.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import msgspec
import orjson

from sparkload.records import (
    COUNTED_BY_CHUNKS,
    COUNTED_BY_USAGE,
    ERROR_MALFORMED_SSE,
    ERROR_SERVER_EVENT,
    FINISH_LENGTH,
)

DONE = b"[DONE]"
# What vLLM puts in a forced tool call's last chunk when max_tokens cut it (finish "length"): a
# placeholder, not arguments the model wrote
STUB_ARGUMENTS = "{}"
API_CHAT = "chat"  # /v1/chat/completions
API_COMPLETIONS = "completions"  # /v1/completions
API_RESPONSES = "responses"  # /v1/responses: its events are read by ``responses_stream``


@dataclass(slots=True)
class ToolCall:
    """One tool call of a reply, assembled from its deltas (OpenAI's form: the first delta of
    an ``index`` names the call, the later ones add fragments of its JSON ``arguments``)."""

    index: int
    id: str | None = None
    name: str = ""
    arguments: str = ""  # as streamed: parse it to use it (it may not be valid JSON)
    # a delta of this call broke the form (its arguments not a string): ``arguments`` is then
    # not all the server sent, and the call's arguments do not count as valid
    malformed: bool = False

    @property
    def arguments_valid(self) -> bool:
        """The arguments parse as a JSON object (an empty string does not)."""
        if self.malformed:
            return False
        try:
            return isinstance(orjson.loads(self.arguments), dict)
        except orjson.JSONDecodeError:
            return False


@dataclass(slots=True)
class Reply:
    """What a workload gets back of a reply it asked for (``PlannedRequest.wants_reply``): the
    text (chat content or completions text, piece by piece) and the tool calls."""

    text: list[str] = field(default_factory=list)
    tool_calls: list[ToolCall] = field(default_factory=list)

    @property
    def content(self) -> str:
        return "".join(self.text)


class StreamError(Exception):
    """The stream broke a rule of the protocol; ``kind`` is the record's failure class."""

    def __init__(self, kind: str, message: str) -> None:
        super().__init__(message)
        self.kind = kind


class _TokenDelta(msgspec.Struct):
    """The fields of a chat delta a token chunk is read for (others are skipped unread)."""

    content: str | None = None
    reasoning: str | None = None
    reasoning_content: str | None = None
    tool_calls: Any = None  # any but null or empty: the chunk is read whole


class _TokenChoice(msgspec.Struct):
    delta: _TokenDelta | None = None
    text: str | None = None  # completions
    finish_reason: str | None = None


class _TokenChunk(msgspec.Struct):
    """A streamed chunk as most are: decoded into only the fields the stream reads (msgspec
    skips the rest without building them), 0.4 us a chunk less than a whole decode. A field
    of another type fails the decode; that chunk is then read whole."""

    id: str | None = None
    object: str | None = None
    error: msgspec.Raw | msgspec.UnsetType = msgspec.UNSET  # present at all: a server's error
    usage: Any = None
    metrics: Any = None  # the server's per-request figures (``request_metrics``), last chunk
    choices: list[_TokenChoice] | None = None


_decode_token_chunk = msgspec.json.Decoder(_TokenChunk).decode


class ChatStream:
    """Timing and token accounting of one stream; times are seconds since the request was sent.

    A chat chunk counts as token-carrying when its delta has non-empty content, reasoning (either
    name), or tool calls; role-only and empty chunks do not (vLLM sends the role with the first
    token, and an empty content string with it). A completions chunk counts when its text is
    not empty.

    Beside TTFT (the first token of any kind) it keeps TTFO, the time to first output token:
    the first chunk with non-empty content (completions: text) or a tool-call delta; reasoning
    is not output. A reply that never leaves its reasoning has no TTFO (None), never a made-up
    one. Reasoning chunks (``reasoning``, or the older ``reasoning_content``) are counted apart
    and the last one's time kept; tool calls are assembled from their deltas by ``index`` (one
    code path for this stream and ``ReplyStream``), and the last tool-call delta's time is when
    the last call's arguments were complete.

    A reply with tool calls that ended at max_tokens (finish ``length``) is truncated: its
    arguments are cut, never valid (``tool_args_valid`` None, ``tool_args_truncated`` True). The
    ``"arguments": "{}"`` vLLM puts in such a reply's last chunk is its placeholder, not the
    model's: it is dropped, so it neither completes the arguments nor counts as a token, nor
    moves the time the arguments were done (``_without_stub``).
    """

    __slots__ = (
        "chunks",
        "done",
        "finish_reason",
        "gaps",
        "metrics",
        "reasoning_chunks",
        "response_id",
        "t_done",
        "t_last_reasoning",
        "t_last_token",
        "t_tool_args",
        "text_api",
        "tool_calls",
        "ttfc",
        "ttfo",
        "ttft",
        "usage",
    )
    ending = "data: [DONE]"  # what ends a complete stream, named by the failure of its absence

    def __init__(self, api: str = API_CHAT) -> None:
        self.text_api = api == API_COMPLETIONS  # token text in choices[0].text, not in a delta
        self.ttft: float | None = None
        self.ttfc: float | None = None
        self.ttfo: float | None = None  # the first output (content or tool-call) chunk
        self.t_last_token: float | None = None
        self.reasoning_chunks = 0
        self.t_last_reasoning: float | None = None
        self.tool_calls: list[ToolCall] = []
        self.t_tool_args: float | None = None  # the last tool-call delta
        self.chunks = 0
        self.gaps: list[float] = []
        self.usage: dict | None = None
        self.metrics: object = None  # the server's ``metrics`` object, read by request_metrics
        self.finish_reason: str | None = None
        self.done = False
        self.t_done: float | None = None  # when [DONE] arrived: the end of the stream
        self.response_id: str | None = None  # the server's completion id, to match its logs

    def feed(self, data: bytes, now: float) -> bool:
        """Take one SSE ``data`` payload received at ``now`` (seconds since the request was
        sent); True once ``[DONE]`` arrived.

        A chunk of the usual shape (``_TokenChunk``: no error or tool calls, its fields of their
        usual types) is read without a dict built for it; any other is read whole by
        ``_feed_any``, which every failure class and the tool-call rules live in.
        """
        if data == DONE:
            self.done = True
            self.t_done = now
            return True
        try:
            chunk = _decode_token_chunk(data)
        except msgspec.MsgspecError:
            return self._feed_any(data, now)
        if chunk.error is not msgspec.UNSET or chunk.object == "error":
            return self._feed_any(data, now)  # raises the server's error
        if self.response_id is None:
            self.response_id = chunk.id
        if chunk.usage:
            self.usage = chunk.usage
        if chunk.metrics is not None:
            self.metrics = chunk.metrics
        choices = chunk.choices
        if not choices:
            return False
        choice = choices[0]
        if self.text_api:
            if choice.text:
                self._note_token(now, choice.text)
        elif (delta := choice.delta) is not None:
            if delta.tool_calls:
                return self._feed_any(data, now)
            if reasoning := delta.reasoning or delta.reasoning_content:
                self._note_delta(delta.content, reasoning, None, now)
            elif delta.content:
                self._note_token(now, delta.content)  # an answer token: _note_delta's short cut
        if choice.finish_reason:
            self.finish_reason = choice.finish_reason
        return False

    def _feed_any(self, data: bytes, now: float) -> bool:
        """``feed`` for a chunk of any shape: decoded whole, each field checked."""
        try:
            chunk = orjson.loads(data)
        except orjson.JSONDecodeError:
            raise StreamError(ERROR_MALFORMED_SSE, f"not JSON: {data[:80]!r}") from None
        if not isinstance(chunk, dict):
            raise StreamError(ERROR_MALFORMED_SSE, f"not a JSON object: {data[:80]!r}")
        if "error" in chunk or chunk.get("object") == "error":
            raise StreamError(ERROR_SERVER_EVENT, _error_message(chunk))
        if self.response_id is None:
            self.response_id = chunk.get("id")
        usage = chunk.get("usage")
        if usage:
            self.usage = usage
        if chunk.get("metrics") is not None:
            self.metrics = chunk["metrics"]
        choices = chunk.get("choices")
        if not choices:
            return False
        choice = choices[0]
        if self.text_api:
            if text := choice.get("text"):
                self._note_token(now, text)
        elif delta := choice.get("delta"):
            reasoning = delta.get("reasoning") or delta.get("reasoning_content")
            calls = delta.get("tool_calls")
            if calls and choice.get("finish_reason") == FINISH_LENGTH:
                calls = _without_stub(calls)
            self._note_delta(delta.get("content"), reasoning, calls, now)
        if choice.get("finish_reason"):
            self.finish_reason = choice["finish_reason"]
        return False

    def _note_delta(
        self, content: str | None, reasoning: object, calls: object, now: float
    ) -> None:
        """A chat delta's content, reasoning (either name) and tool calls: a token when any of
        them is there, counted as reasoning and merged into the calls as they say."""
        if not (content or reasoning or calls):
            return  # the role, an empty string, fields sent as nulls: no token
        self._note_token(now, content)
        if reasoning:
            self.reasoning_chunks += 1
            self.t_last_reasoning = now
        if calls:
            self._note_tool_calls(calls, now)

    def _note_tool_calls(self, parts: object, now: float) -> None:
        """Merge one delta's tool-call parts into the reply's calls, by their ``index``.

        Malformed deltas: ``tool_calls`` not a list, or a part not an object, is a classified
        failure (``malformed_sse``: the reply cannot be read as tool calls); an ``index`` that
        is missing or not an int is tolerated (a part with an ``id`` of its own starts a call,
        any other continues the last one); a name that is not a string is ignored; arguments
        that are not a string mark the call ``malformed`` (its arguments then are not valid).
        """
        if not isinstance(parts, list):
            raise StreamError(ERROR_MALFORMED_SSE, f"tool_calls is not a list: {parts!r:.80}")
        if self.ttfo is None:
            self.ttfo = now
        self.t_tool_args = now
        calls = self.tool_calls
        for part in parts:
            if not isinstance(part, dict):
                raise StreamError(
                    ERROR_MALFORMED_SSE, f"a tool call is not an object: {part!r:.80}"
                )
            call = _call_of(calls, part)
            if isinstance(part.get("id"), str):
                call.id = part["id"]
            function = part.get("function")
            if isinstance(function, dict):
                if isinstance(name := function.get("name"), str):
                    call.name += name
                arguments = function.get("arguments")
                if isinstance(arguments, str):
                    call.arguments += arguments
                elif arguments is not None:
                    call.malformed = True

    def _note_token(self, t: float, text: str | None) -> None:
        """A token-carrying chunk at ``t``; ``text``: its reply text (None or empty for a
        reasoning or tool-call chunk)."""
        if self.t_last_token is None:
            self.ttft = t
        else:
            self.gaps.append(t - self.t_last_token)
        if text and self.ttfc is None:
            self.ttfc = t
            if self.ttfo is None:
                self.ttfo = t
        self.t_last_token = t
        self.chunks += 1

    @property
    def output_tokens(self) -> tuple[int, str]:
        """Tokens generated, and who counted them: the server's usage, else our chunk count."""
        if self.usage and isinstance(self.usage.get("completion_tokens"), int):
            return self.usage["completion_tokens"], COUNTED_BY_USAGE
        return self.chunks, COUNTED_BY_CHUNKS

    @property
    def reasoning_tokens(self) -> tuple[int | None, str | None]:
        """Reasoning tokens, and who counted them; (None, None) for a reply that streamed no
        reasoning and whose usage counts none (not a thinking model's reply).

        The server's count (``usage.completion_tokens_details.reasoning_tokens``) where it gives
        one; else the reasoning chunks, one token each. With MTP (speculative decoding) one
        chunk can hold several tokens, so a count from chunks is then a lower bound. A usage
        that says 0 while reasoning streamed is a placeholder (a proxy that fills the field in),
        not a count: the chunks are counted then.
        """
        details = self.usage.get("completion_tokens_details") if self.usage else None
        counted = details.get("reasoning_tokens") if isinstance(details, dict) else None
        is_count = isinstance(counted, int) and not isinstance(counted, bool) and counted >= 0
        if is_count and (counted or not self.reasoning_chunks):
            return counted, COUNTED_BY_USAGE
        if self.reasoning_chunks:
            return self.reasoning_chunks, COUNTED_BY_CHUNKS
        return None, None

    @property
    def answer_tokens(self) -> int | None:
        """Output tokens that were not reasoning (None where reasoning was not counted)."""
        reasoning, _ = self.reasoning_tokens
        return None if reasoning is None else max(self.output_tokens[0] - reasoning, 0)

    @property
    def tool_args_truncated(self) -> bool | None:
        """Whether the reply's tool calls were cut by max_tokens (None: no tool call)."""
        if not self.tool_calls:
            return None
        return self.finish_reason == FINISH_LENGTH

    @property
    def tool_args_valid(self) -> bool | None:
        """Whether every tool call's arguments parse as a JSON object (None: no tool call, or
        calls cut by max_tokens: truncated, neither valid nor invalid)."""
        if not self.tool_calls or self.tool_args_truncated:
            return None
        return all(call.arguments_valid for call in self.tool_calls)

    @property
    def prompt_tokens(self) -> int | None:
        return self.usage.get("prompt_tokens") if self.usage else None

    @property
    def cached_tokens(self) -> int | None:
        details = self.usage.get("prompt_tokens_details") if self.usage else None
        return details.get("cached_tokens") if isinstance(details, dict) else None


class ReplyStream(ChatStream):
    """A ``ChatStream`` that also keeps the reply (chat content, completions text, and chat
    tool calls; not reasoning), for a workload that asked for it (``PlannedRequest.wants_reply``).
    Its own class, so that a stream nobody asked the reply of pays nothing for it."""

    __slots__ = ("reply",)

    def __init__(self, api: str = API_CHAT, reply: Reply | None = None) -> None:
        super().__init__(api)
        self.reply = Reply() if reply is None else reply
        self.tool_calls = self.reply.tool_calls  # assembled by ChatStream, into the reply

    def _note_token(self, t: float, text: str | None) -> None:
        if isinstance(text, str):  # a misbehaving server's non-text content is not the reply's
            self.reply.text.append(text)
        ChatStream._note_token(self, t, text)


def _call_of(calls: list[ToolCall], part: dict) -> ToolCall:
    """The call a tool-call part belongs to (appended to ``calls`` when it starts one)."""
    index = part.get("index")
    if isinstance(index, int) and not isinstance(index, bool):
        if calls and calls[-1].index == index:
            return calls[-1]
        for call in calls:
            if call.index == index:
                return call
    else:  # no usable index: an id of its own starts a call, anything else continues the last
        own_id = part.get("id")
        if calls and not (isinstance(own_id, str) and own_id != calls[-1].id):
            return calls[-1]
        index = max((call.index for call in calls), default=-1) + 1
    call = ToolCall(index)
    calls.append(call)
    return call


def _without_stub(parts: object) -> object:
    """A last chunk's tool-call parts (the reply ended at max_tokens) without vLLM's placeholder
    arguments (``STUB_ARGUMENTS``), and without a part that held nothing else (parts of another
    shape are left as they are, for ``_note_tool_calls`` to judge)."""
    if not isinstance(parts, list):
        return parts
    kept = []
    for part in parts:
        function = part.get("function") if isinstance(part, dict) else None
        if not isinstance(function, dict) or function.get("arguments") != STUB_ARGUMENTS:
            kept.append(part)
            continue
        function = {k: v for k, v in function.items() if k != "arguments"}
        if function.get("name") or part.get("id"):
            kept.append({**part, "function": function})
    return kept


def _error_message(chunk: dict) -> str:
    error = chunk.get("error", chunk)
    if isinstance(error, dict):
        return str(error.get("message") or error)[:200]
    return str(error)[:200]
