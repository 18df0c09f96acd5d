"""OpenAI's Responses API (``/v1/responses``): its body, and its stream read event by event.

The body carries chat's messages as ``instructions`` (the system messages) and ``input`` items
(``responses_input``; images as ``input_image`` parts), the output length as
``max_output_tokens``, a reply's JSON format as ``text.format``, tools in their flat form, and
``previous_response_id`` for a turn that continues a reply the server kept
(``PlannedRequest.history_id``). There are no stream options: ``response.completed`` always
carries the usage.

The events, as vLLM (``serving_responses``) and OpenAI send them:

- ``response.created``: the response's ``id`` (the record's ``response_id``, and a next turn's
  ``previous_response_id``);
- ``response.output_text.delta``: an answer token (its ``delta`` is the reply's text);
- ``response.reasoning_text.delta``: a reasoning token. OpenAI's own
  ``response.reasoning_summary_text.delta`` is a summary written after the reasoning, not its
  tokens: it is not counted;
- ``response.output_item.added`` with an item of type ``function_call`` starts a tool call (its
  ``call_id`` and ``name``: output, a token as chat's name delta is),
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

from collections.abc import Mapping, Sequence
from typing import Any

from sparkload.apis.wire import BodyParts, PlannedRequest, WireApi, json_event, request_tail
from sparkload.records import API_RESPONSES, ERROR_SERVER_EVENT
from sparkload.transport.tally import ReplyTally, StreamError

TEXT_DELTA = "response.output_text.delta"
REASONING_DELTA = "response.reasoning_text.delta"
ARGUMENTS_DELTA = "response.function_call_arguments.delta"
ITEM_ADDED = "response.output_item.added"
CREATED = "response.created"
ENDINGS = ("response.completed", "response.incomplete")
FAILURES = ("response.failed", "error")
# ``incomplete_details.reason`` -> chat's finish reason
FINISH_OF_REASON = {"max_output_tokens": "length", "content_filter": "content_filter"}


def body(
    parts: BodyParts, request: PlannedRequest, response_format: Mapping[str, Any] | None
) -> dict[str, Any]:
    """One request's body in the Responses API's form."""
    messages = request.messages or ({"role": "user", "content": request.text},)
    instructions, items = responses_input(messages)
    sent: dict[str, Any] = {"model": parts.model, "max_output_tokens": request.max_tokens}
    if request.history_id is not None:
        sent["previous_response_id"] = request.history_id
    if instructions is not None:
        sent["instructions"] = instructions
    sent["input"] = items
    sent.update(parts.extras)
    if response_format is not None:
        text = sent.get("text")  # --extra-body's text options kept, its own format winning
        sent["text"] = {
            "format": text_format(response_format),
            **(text if isinstance(text, dict) else {}),
        }
    sent.update(parts.stream)
    tools = [flat_tool(tool) for tool in request.tools] if request.tools is not None else None
    return request_tail(sent, parts, request, tools)


def stream_fields(extras: Mapping[str, Any]) -> dict[str, Any]:
    """Only ``stream``: the ending event carries the usage, asked or not."""
    return {"stream": True}


def responses_input(messages: Sequence[Mapping[str, Any]]) -> tuple[str | None, list[Any]]:
    """Chat messages as the Responses API's ``instructions`` (the system messages' text, joined)
    and ``input`` items: a user or assistant message as ``{"role", "content"}`` (content parts
    as ``input_content`` writes them), an assistant's
    tool calls as ``function_call`` items (``call_id``, ``name``, ``arguments``), a tool result
    as a ``function_call_output`` item (its ``tool_call_id`` as ``call_id``)."""
    system: list[str] = []
    items: list[Any] = []
    for message in messages:
        role = message.get("role")
        content = message.get("content")
        if role in ("system", "developer") and isinstance(content, str):
            system.append(content)
        elif role == "tool":
            call_id = message.get("tool_call_id")
            items.append({"type": "function_call_output", "call_id": call_id, "output": content})
        else:
            if content is not None or not message.get("tool_calls"):
                items.append({"role": role, "content": input_content(content)})
            for call in message.get("tool_calls") or ():
                function = call.get("function") or {}
                items.append(
                    {
                        "type": "function_call",
                        "call_id": call.get("id"),
                        "name": function.get("name"),
                        "arguments": function.get("arguments"),
                    }
                )
    return ("\n\n".join(system) if system else None), items


def input_content(content: Any) -> Any:
    """A message's content in the Responses API's form: a text as it is; chat's content parts
    as ``input_text`` (``text``) and ``input_image`` (``image_url``: the URL itself, not an
    object) parts; a part of another kind as it is."""
    if not isinstance(content, list):
        return content
    return [_input_part(part) for part in content]


def _input_part(part: Any) -> Any:
    kind = part.get("type") if isinstance(part, Mapping) else None
    if kind == "text":
        return {"type": "input_text", "text": part.get("text")}
    if kind == "image_url":
        image = part.get("image_url")
        url = image.get("url") if isinstance(image, Mapping) else image
        return {"type": "input_image", "image_url": url}
    return part


def flat_tool(tool: Mapping[str, Any]) -> Mapping[str, Any]:
    """A chat tool (``{"type": "function", "function": {...}}``) in the Responses API's flat
    form (``{"type": "function", "name", "description", "parameters"}``); any other as it is."""
    function = tool.get("function")
    if tool.get("type") != "function" or not isinstance(function, Mapping):
        return tool
    return {"type": "function", **function}


def text_format(response_format: Mapping[str, Any]) -> Mapping[str, Any]:
    """Chat's ``response_format`` as the Responses API's ``text.format``: a ``json_schema``'s
    ``name``, ``schema`` and ``strict`` beside its type, not nested; any other as it is."""
    schema = response_format.get("json_schema")
    if response_format.get("type") != "json_schema" or not isinstance(schema, Mapping):
        return response_format
    return {"type": "json_schema", **schema}


class ResponsesStream(ReplyTally):
    """The tally of one Responses stream, fed its events; the usage of ``response.completed``
    is kept in chat's names (``chat_usage``)."""

    __slots__ = ()
    ending = "response.completed"

    def feed(self, data: bytes, now: float) -> bool:
        """Take one SSE ``data`` payload received at ``now``; True once the response ended."""
        event = json_event(data)
        if event is None:
            return self.done
        kind = event.get("type")
        if kind == TEXT_DELTA:
            delta = event.get("delta")
            if delta and isinstance(delta, str):
                self.note_token(now, delta)
        elif kind == REASONING_DELTA:
            if event.get("delta"):
                self.note_token(now)
                self.note_reasoning(now)
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
        self.note_token(now)
        self.note_tool_delta(now)
        call = self.call_at(event.get("output_index"))
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
        self.note_token(now)
        self.note_tool_delta(now)
        call = self.call_at(event.get("output_index"))
        if isinstance(delta, str):
            call.arguments += delta
        else:
            call.malformed = True

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


API = WireApi(
    API_RESPONSES,
    "/responses",
    body,
    ResponsesStream,
    stream_fields,
    server_history=True,
    image_parts=True,
)
