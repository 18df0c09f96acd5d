"""Interpret one OpenAI streaming completion, event by event (pure: data + clock in).

This is the hot path: per event it decodes JSON, looks at the first choice's token text and
notes the time. Everything else (gap statistics, derived metrics) happens once per request,
afterwards. The two streaming APIs differ only in where a chunk's token text is: chat's
``choices[0].delta`` (content, reasoning, tool calls) or completions' ``choices[0].text``.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import orjson

from sparkload.records import ERROR_MALFORMED_SSE, ERROR_SERVER_EVENT

DONE = b"[DONE]"
API_CHAT = "chat"  # /v1/chat/completions
API_COMPLETIONS = "completions"  # /v1/completions
_TOKEN_CHANNELS = ("reasoning", "reasoning_content", "tool_calls")


@dataclass(slots=True)
class ToolCall:
    """One tool call of a reply, assembled from its deltas (OpenAI's form: the first delta of
    an ``index`` names the call, the later ones add fragments of its JSON ``arguments``)."""

    index: int
    id: str | None = None
    name: str = ""
    arguments: str = ""  # as streamed: parse it to use it (it may not be valid JSON)


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


class ChatStream:
    """Timing and token accounting of one stream; times are seconds since the request was sent.

    A chat chunk counts as token-carrying when its delta has non-empty content, reasoning (either
    name), or tool calls; role-only and empty chunks do not (vLLM sends the role with the first
    token, and an empty content string with it). A completions chunk counts when its text is
    not empty.
    """

    __slots__ = (
        "chunks",
        "done",
        "finish_reason",
        "gaps",
        "response_id",
        "t_done",
        "t_last_token",
        "text_api",
        "ttfc",
        "ttft",
        "usage",
    )

    def __init__(self, api: str = API_CHAT) -> None:
        self.text_api = api == API_COMPLETIONS  # token text in choices[0].text, not in a delta
        self.ttft: float | None = None
        self.ttfc: float | None = None
        self.t_last_token: float | None = None
        self.chunks = 0
        self.gaps: list[float] = []
        self.usage: dict | None = None
        self.finish_reason: str | None = None
        self.done = False
        self.t_done: float | None = None  # when [DONE] arrived: the end of the stream
        self.response_id: str | None = None  # the server's completion id, to match its logs

    def feed(self, data: bytes, now: float) -> bool:
        """Take one SSE ``data`` payload received at ``now`` (seconds since the request was
        sent); True once ``[DONE]`` arrived."""
        if data == DONE:
            self.done = True
            self.t_done = now
            return True
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
        choices = chunk.get("choices")
        if not choices:
            return False
        choice = choices[0]
        if self.text_api:
            if text := choice.get("text"):
                self._note_token(now, text)
        elif delta := choice.get("delta"):
            content = delta.get("content")
            if content or any(delta.get(key) for key in _TOKEN_CHANNELS):
                self._note_token(now, content)
        if choice.get("finish_reason"):
            self.finish_reason = choice["finish_reason"]
        return False

    def _note_token(self, t: float, text: str | None) -> None:
        """A token-carrying chunk at ``t``; ``text``: its reply text (None or empty for a
        reasoning or tool-call chunk)."""
        if self.t_last_token is None:
            self.ttft = t
        else:
            self.gaps.append(t - self.t_last_token)
        if text and self.ttfc is None:
            self.ttfc = t
        self.t_last_token = t
        self.chunks += 1

    @property
    def output_tokens(self) -> tuple[int, str]:
        """Tokens generated, and who counted them: the server's usage, else our chunk count."""
        if self.usage and isinstance(self.usage.get("completion_tokens"), int):
            return self.usage["completion_tokens"], "usage"
        return self.chunks, "chunks"

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

    def feed(self, data: bytes, now: float) -> bool:
        done = ChatStream.feed(self, data, now)
        if not done and not self.text_api and b'"tool_calls"' in data:
            self._note_tool_calls(orjson.loads(data))
        return done

    def _note_tool_calls(self, chunk: dict) -> None:
        """Merge a chunk's tool-call deltas into the reply's calls, by their ``index``."""
        choices = chunk.get("choices") or [{}]
        delta = choices[0].get("delta") if isinstance(choices[0], dict) else None
        deltas = delta.get("tool_calls") if isinstance(delta, dict) else None
        for part in deltas if isinstance(deltas, list) else []:
            if not isinstance(part, dict):
                continue
            index = part.get("index", len(self.reply.tool_calls))
            call = next((c for c in self.reply.tool_calls if c.index == index), None)
            if call is None:
                call = ToolCall(index if isinstance(index, int) else len(self.reply.tool_calls))
                self.reply.tool_calls.append(call)
            if isinstance(part.get("id"), str):
                call.id = part["id"]
            function = part.get("function")
            if isinstance(function, dict):
                if isinstance(function.get("name"), str):
                    call.name += function["name"]
                if isinstance(function.get("arguments"), str):
                    call.arguments += function["arguments"]

    def _note_token(self, t: float, text: str | None) -> None:
        if isinstance(text, str):  # a misbehaving server's non-text content is not the reply's
            self.reply.text.append(text)
        ChatStream._note_token(self, t, text)


def _error_message(chunk: dict) -> str:
    error = chunk.get("error", chunk)
    if isinstance(error, dict):
        return str(error.get("message") or error)[:200]
    return str(error)[:200]
