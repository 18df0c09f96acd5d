"""OpenAI's chat completions API (``/v1/chat/completions``): its body and its stream reader.

The body: ``model``, the request's ``max_tokens``, its ``messages`` (the planned messages, else
the text as one user message), ``response_format``, the run's extras, ``stream`` with
``stream_options.include_usage`` (the measurement needs the usage chunk: nothing removes it),
then the request's ``tools``, ``tool_choice`` and a pinned length's ``min_tokens``.

The stream is read chunk by chunk. This is the hot path: per chunk it decodes JSON, looks at the
first choice's delta and notes the time; everything else happens once per request, afterwards.
Most chunks (vLLM's every answer token, a thinking model's every reasoning token) are decoded
by msgspec into a typed shape of only the fields read (``_TokenChunk``): the rest of the chunk
is skipped, not built into dicts, and on 256 interleaved streams a chunk cost 0.6 us where a
whole decode with orjson and the dict lookups cost 1.0 us. A chunk of any other shape (an
error, tool calls, a field of an unexpected type) is decoded whole (``_feed_any``), which holds
every failure class and the tool-call rules; tests/sparkload/apis/test_chat_chunk_shapes.py
holds the two readings to the same accounting.

A chunk counts as token-carrying when its delta has non-empty content, reasoning (``reasoning``
or the older ``reasoning_content``), or tool calls; role-only and empty chunks do not (vLLM sends
the role with the first token, and an empty content string with it). Tool calls are assembled
from their deltas by ``index``. The ``"arguments": "{}"`` vLLM puts in the last chunk of a tool
call cut by max_tokens is its placeholder, not the model's: it is dropped (``_without_stub``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

import msgspec
import orjson

from sparkload.apis.wire import BodyParts, PlannedRequest, WireApi, request_tail
from sparkload.errors import ConfigError
from sparkload.records import API_CHAT, ERROR_MALFORMED_SSE, ERROR_SERVER_EVENT, FINISH_LENGTH
from sparkload.transport.tally import ReplyTally, StreamError, ToolCall

DONE = b"[DONE]"
# What vLLM puts in a forced tool call's last chunk when max_tokens cut it (finish "length"): a
# placeholder, not arguments the model wrote
STUB_ARGUMENTS = "{}"


def body(
    parts: BodyParts, request: PlannedRequest, response_format: Mapping[str, Any] | None
) -> dict[str, Any]:
    """One request's chat body."""
    messages = list(request.messages or ({"role": "user", "content": request.text},))
    return openai_body(parts, request, {"messages": messages}, response_format)


def openai_body(
    parts: BodyParts,
    request: PlannedRequest,
    prompt: dict[str, Any],
    response_format: Mapping[str, Any] | None,
) -> dict[str, Any]:
    """A body of OpenAI's completions form (chat's and the completions API's) around its
    ``prompt``: ``--extra-body`` may replace the ``response_format``, never the stream."""
    if response_format is not None:
        prompt["response_format"] = response_format
    sent = {"model": parts.model, "max_tokens": request.max_tokens, **prompt, **parts.extras}
    sent.update(parts.stream)
    tools = list(request.tools) if request.tools is not None else None
    return request_tail(sent, parts, request, tools)


def stream_fields(extras: Mapping[str, Any]) -> dict[str, Any]:
    """``stream`` and ``stream_options.include_usage`` over --extra-body's stream options."""
    options = extras.get("stream_options") or {}
    if not isinstance(options, dict):
        raise ConfigError("--extra-body: stream_options must be a JSON object")
    return {"stream": True, "stream_options": {**options, "include_usage": True}}


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


class ChatStream(ReplyTally):
    """The tally of one chat stream, fed its chunks (``feed``)."""

    __slots__ = ()
    ending = "data: [DONE]"
    text_api: ClassVar[bool] = False  # token text in choices[0].text, not in a delta

    def feed(self, data: bytes, now: float) -> bool:
        """Take one SSE ``data`` payload received at ``now``; True once ``[DONE]`` arrived.

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
                self.note_token(now, choice.text)
        elif (delta := choice.delta) is not None:
            if delta.tool_calls:
                return self._feed_any(data, now)
            if delta.reasoning or delta.reasoning_content:  # _note_delta's short cuts
                self.note_token(now, delta.content)
                self.note_reasoning(now)
            elif delta.content:
                self.note_token(now, delta.content)
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
                self.note_token(now, text)
        elif delta := choice.get("delta"):
            reasoning = delta.get("reasoning") or delta.get("reasoning_content")
            calls = delta.get("tool_calls")
            if calls and choice.get("finish_reason") == FINISH_LENGTH:
                calls = _without_stub(calls)
            self._note_delta(delta.get("content"), reasoning, calls, now)
        if choice.get("finish_reason"):
            self.finish_reason = choice["finish_reason"]
        return False

    def _note_delta(self, content: object, reasoning: object, calls: object, now: float) -> None:
        """A chat delta's content, reasoning (either name) and tool calls: one token when any of
        them is there, counted as reasoning and merged into the calls as they say."""
        if not (content or reasoning or calls):
            return  # the role, an empty string, fields sent as nulls: no token
        self.note_token(now, content)
        if reasoning:
            self.note_reasoning(now)
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
        self.note_tool_delta(now)
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


API = WireApi(
    API_CHAT,
    "/chat/completions",
    body,
    ChatStream,
    stream_fields,
    image_parts=True,
)
