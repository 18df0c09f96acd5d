"""Interpret one streamed OpenAI Responses API reply (``/v1/responses``), event by event (pure).

The same accounting as ``ChatStream`` (its fields, its time base, one token-carrying event a
chunk), read from the Responses events as vLLM (``serving_responses``) and OpenAI send them:

- ``response.created``: the response's ``id`` (the record's ``response_id``, and a next turn's
  ``previous_response_id``);
- ``response.output_text.delta``: an answer token (its ``delta`` is the reply's text);
- ``response.reasoning_text.delta``: a reasoning token. OpenAI's own
  ``response.reasoning_summary_text.delta`` is a summary written after the reasoning, not its
  tokens: it is not counted;
- ``response.output_item.added`` with an item of type ``function_call`` starts a tool call (its
  ``call_id`` and ``name``: output, a chunk as chat's name delta is),
  ``response.function_call_arguments.delta`` adds a fragment of its arguments (output, timed
  like chat's tool-call deltas); items are told apart by ``output_index``;
- ``response.completed`` (and ``response.incomplete``, OpenAI's terminal event for a cut reply)
  ends the stream: its ``response.usage`` gives the token counts, its ``status`` and
  ``incomplete_details.reason`` the finish reason (``length`` for ``max_output_tokens``);
- ``response.failed`` and ``error`` events are the server's failures (``server_error_event``).

There is no ``[DONE]`` (one is accepted, harmlessly). Every other event (``in_progress``, the
``*.done`` and ``content_part`` events) carries no token and is skipped after one lookup.
"""

from __future__ import annotations

from typing import Any

import orjson

from sparkload.records import ERROR_MALFORMED_SSE, ERROR_SERVER_EVENT
from sparkload.transport.stream import (
    API_RESPONSES,
    ChatStream,
    Reply,
    ReplyStream,
    StreamError,
    ToolCall,
)

TEXT_DELTA = "response.output_text.delta"
REASONING_DELTA = "response.reasoning_text.delta"
ARGUMENTS_DELTA = "response.function_call_arguments.delta"
ITEM_ADDED = "response.output_item.added"
CREATED = "response.created"
ENDINGS = ("response.completed", "response.incomplete")
FAILURES = ("response.failed", "error")
# ``incomplete_details.reason`` -> chat's finish reason
FINISH_OF_REASON = {"max_output_tokens": "length", "content_filter": "content_filter"}


class ResponsesStream(ChatStream):
    """A ``ChatStream`` fed Responses events; the usage of ``response.completed`` is kept in
    chat's names (``prompt_tokens``, ``completion_tokens`` and their details), so every count
    and every record field is read by the one code path."""

    __slots__ = ()
    ending = "response.completed"

    def __init__(self, api: str = API_RESPONSES) -> None:
        super().__init__(api)

    def feed(self, data: bytes, now: float) -> bool:
        """Take one SSE ``data`` payload received at ``now``; True once the response ended."""
        try:
            event = orjson.loads(data)
        except orjson.JSONDecodeError:
            if data == b"[DONE]":
                return self.done
            raise StreamError(ERROR_MALFORMED_SSE, f"not JSON: {data[:80]!r}") from None
        if not isinstance(event, dict):
            raise StreamError(ERROR_MALFORMED_SSE, f"not a JSON object: {data[:80]!r}")
        kind = event.get("type")
        if kind == TEXT_DELTA:
            delta = event.get("delta")
            if delta and isinstance(delta, str):
                self._note_token(now, delta)
        elif kind == REASONING_DELTA:
            if event.get("delta"):
                self._note_token(now, None)
                self.reasoning_chunks += 1
                self.t_last_reasoning = now
        elif kind == ARGUMENTS_DELTA:
            self._note_arguments(event, now)
        elif kind == ITEM_ADDED:
            self._note_item(event, now)
        elif kind == CREATED:
            self._note_response(event)
        elif kind in ENDINGS:
            self._note_response(event)
            self.done = True
            self.t_done = now
            return True
        elif kind in FAILURES:
            raise StreamError(ERROR_SERVER_EVENT, _failure_message(event))
        return False

    def _note_item(self, event: dict, now: float) -> None:
        """An output item begins: a ``function_call`` one starts a tool call, output as chat's
        first tool-call delta is (the parser has read the function's name)."""
        item = event.get("item")
        if not isinstance(item, dict) or item.get("type") != "function_call":
            return
        self._note_output(now)
        call = self._call_at(event.get("output_index"))
        if isinstance(call_id := item.get("call_id"), str):
            call.id = call_id
        if isinstance(name := item.get("name"), str):
            call.name = name
        if isinstance(arguments := item.get("arguments"), str):
            call.arguments += arguments

    def _note_arguments(self, event: dict, now: float) -> None:
        """A fragment of a tool call's arguments: output, like chat's tool-call deltas."""
        delta = event.get("delta")
        if not delta:
            return
        self._note_output(now)
        call = self._call_at(event.get("output_index"))
        if isinstance(delta, str):
            call.arguments += delta
        else:
            call.malformed = True

    def _note_output(self, now: float) -> None:
        """A token-carrying tool-call event at ``now``."""
        self._note_token(now, None)
        if self.ttfo is None:
            self.ttfo = now
        self.t_tool_args = now

    def _call_at(self, output_index: Any) -> ToolCall:
        """The tool call of output item ``output_index`` (appended when it starts one; a
        missing index continues the last call)."""
        calls = self.tool_calls
        if not isinstance(output_index, int) or isinstance(output_index, bool):
            if calls:
                return calls[-1]
            output_index = 0
        for call in calls:
            if call.index == output_index:
                return call
        call = ToolCall(output_index)
        calls.append(call)
        return call

    def _note_response(self, event: dict) -> None:
        """The response object of ``response.created`` or of the ending event: its id, and at
        the end its usage and status."""
        response = event.get("response")
        if not isinstance(response, dict):
            return
        if self.response_id is None and isinstance(response.get("id"), str):
            self.response_id = response["id"]
        usage = response.get("usage")
        if isinstance(usage, dict):
            self.usage = chat_usage(usage)
        status = response.get("status")
        if status == "completed":
            self.finish_reason = "tool_calls" if self.tool_calls else "stop"
        elif status == "incomplete":
            details = response.get("incomplete_details")
            reason = str(details.get("reason")) if isinstance(details, dict) else "incomplete"
            self.finish_reason = FINISH_OF_REASON.get(reason, reason)


class ResponsesReplyStream(ResponsesStream, ReplyStream):
    """A ``ResponsesStream`` that keeps the reply: the answer's text and the tool calls
    (``ReplyStream``'s, for a workload that asked for it)."""

    __slots__ = ()

    def __init__(self, api: str = API_RESPONSES, reply: Reply | None = None) -> None:
        ReplyStream.__init__(self, api, reply)


def open_stream(api: str, reply: Reply | None = None) -> ChatStream:
    """The reader of one stream of ``api``; ``reply``, when given, gets the reply."""
    if api == API_RESPONSES:
        return ResponsesStream(api) if reply is None else ResponsesReplyStream(api, reply)
    return ChatStream(api) if reply is None else ReplyStream(api, reply)


def chat_usage(usage: dict) -> dict:
    """A Responses usage in chat's names: ``input_tokens`` -> ``prompt_tokens``,
    ``output_tokens`` -> ``completion_tokens``, their details' ``cached_tokens`` and
    ``reasoning_tokens`` kept (a field the server left out stays out). The Responses usage
    always has ``reasoning_tokens``: a 0 says only that nothing reasoned, as chat's usage says it
    by leaving the field out, so it is left out (the record's ``reasoning_tokens`` then None, as
    chat's on the same server)."""
    chat: dict[str, Any] = {}
    if "input_tokens" in usage:
        chat["prompt_tokens"] = usage["input_tokens"]
    if "output_tokens" in usage:
        chat["completion_tokens"] = usage["output_tokens"]
    if isinstance(details := usage.get("input_tokens_details"), dict):
        chat["prompt_tokens_details"] = details
    details = usage.get("output_tokens_details")
    if isinstance(details, dict) and details.get("reasoning_tokens") != 0:
        chat["completion_tokens_details"] = details
    return chat


def _failure_message(event: dict) -> str:
    """What a ``response.failed`` (its ``response.error``) or an ``error`` event said."""
    response = event.get("response")
    error = response.get("error") if isinstance(response, dict) else event.get("error", event)
    if isinstance(error, dict):
        return str(error.get("message") or error)[:200]
    return str(error or event)[:200]
