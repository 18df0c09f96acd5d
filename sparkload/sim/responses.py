"""The simulator's ``POST /v1/responses``: OpenAI's Responses API on the chat path's engine.

A Responses body is read as the chat body it means (``chat_body``): ``instructions`` as the
system message, ``input`` items as messages (a ``function_call`` item as an assistant's tool
call, a ``function_call_output`` as a tool message), ``max_output_tokens`` as ``max_tokens``,
flat tools as chat's nested ones and ``text.format`` as ``response_format``. So its prompt
counts, its prefix-cache blocks, its reasoning, its tool calls and every token's time are the
chat request's: only the framing differs.

The framing (``ResponsesWriter``) is vLLM's ``serving_responses`` stream: ``response.created``
and ``response.in_progress`` with the first output (where the chat path sends its role chunk);
each output item opened by ``response.output_item.added`` (a ``reasoning``, ``message`` or
``function_call`` item; the first two also by ``response.content_part.added``) and closed by
``response.output_item.done``; one ``response.reasoning_text.delta``,
``response.output_text.delta`` or ``response.function_call_arguments.delta`` per engine output;
and ``response.completed``, whose response has the output, the usage (``input_tokens``,
``input_tokens_details.cached_tokens``, ``output_tokens``,
``output_tokens_details.reasoning_tokens``) and the status: ``incomplete`` with reason
``max_output_tokens`` for an answer cut at its length (the chat path's ``length``),
``completed`` for a tool call. No ``[DONE]``; the ``no_done`` fault leaves out
``response.completed``, ``error_event`` sends an ``error`` event and ends the stream. The
``*.done`` events of each text part are not sent (no client times them).

A request naming a ``previous_response_id`` continues that response (``ResponseStore``): its
input is the earlier response's input and output followed by its own, so its prompt counts and
its prefix-cache blocks are those of the whole conversation, as a server that keeps responses
renders them. The store is bounded (the oldest forgotten first); an unknown id is refused with
a 404, as vLLM refuses one it does not keep.
"""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Any, ClassVar

from sparkload.sim.sse import ChunkWriter, frame

REASONING, MESSAGE, FUNCTION_CALL = "reasoning", "message", "function_call"
ITEM_PREFIX = {REASONING: "rs", MESSAGE: "msg", FUNCTION_CALL: "fc"}
STORED_RESPONSES = 4096  # responses a simulator keeps for previous_response_id


class UnknownResponse(LookupError):
    """A ``previous_response_id`` the store does not hold (never kept, or forgotten)."""


@dataclass
class ResponseStore:
    """Past responses' whole input (their own and the ones they continued) and output, by id,
    for the requests that continue them. Only a response that ended (completed or cut at its
    length) is kept, and not when its request said ``store: false``."""

    capacity: int = STORED_RESPONSES
    _kept: OrderedDict[str, list[Any]] = field(default_factory=OrderedDict, init=False)

    def expand(self, body: Any) -> Any:
        """``body`` with the input of the response it continues before its own (a body that
        continues none as it is); raises ``UnknownResponse``."""
        if not isinstance(body, dict) or body.get("previous_response_id") is None:
            return body
        previous = body["previous_response_id"]
        if not isinstance(previous, str) or previous not in self._kept:
            raise UnknownResponse(f"Response with id '{previous}' not found.")
        self._kept.move_to_end(previous)
        own = body.get("input")
        items = [{"role": "user", "content": own}] if isinstance(own, str) else own or []
        expanded = {k: v for k, v in body.items() if k != "previous_response_id"}
        expanded["input"] = [*self._kept[previous], *items]
        return expanded

    def keep(self, body: Any, writer: ResponsesWriter) -> None:
        """Keep the response ``writer`` ended for ``body`` (already expanded)."""
        response = writer.ended
        if response is None or not isinstance(body, dict) or body.get("store") is False:
            return
        own = body.get("input")
        items = [{"role": "user", "content": own}] if isinstance(own, str) else list(own or [])
        for item in response["output"]:
            if item["type"] == MESSAGE:
                text = "".join(part["text"] for part in item["content"])
                items.append({"role": "assistant", "content": text})
            elif item["type"] == FUNCTION_CALL:
                items.append(item)
        self._kept[response["id"]] = items
        while len(self._kept) > self.capacity:
            self._kept.popitem(last=False)


def chat_body(body: Any) -> Any:
    """The chat-completions body a Responses body means (anything not a JSON object as it is,
    for the chat path to refuse)."""
    if not isinstance(body, dict):
        return body
    chat = {
        key: value
        for key, value in body.items()
        if key not in ("input", "instructions", "max_output_tokens", "tools", "tool_choice", "text")
    }
    chat["messages"] = messages_of(body.get("input"), body.get("instructions"))
    if "max_output_tokens" in body:
        chat["max_tokens"] = body["max_output_tokens"]
    if isinstance(tools := body.get("tools"), list):
        chat["tools"] = [_nested_tool(tool) for tool in tools]
    if (choice := body.get("tool_choice")) is not None:
        chat["tool_choice"] = _nested_choice(choice)
    text = body.get("text")
    if isinstance(text, dict) and isinstance(text.get("format"), dict):
        chat["response_format"] = _chat_format(text["format"])
    chat["stream_options"] = None  # the usage comes in response.completed, never in a chunk
    return chat


def messages_of(items: Any, instructions: Any) -> list[Any]:
    """A Responses ``input`` (a string or a list of items) and its ``instructions`` as chat
    messages; an item of no known form is kept for the chat path to skip."""
    messages: list[Any] = []
    if isinstance(instructions, str) and instructions:
        messages.append({"role": "system", "content": instructions})
    if isinstance(items, str):
        return [*messages, {"role": "user", "content": items}]
    for item in items if isinstance(items, list) else []:
        kind = item.get("type") if isinstance(item, dict) else None
        if kind == FUNCTION_CALL:
            function = {"name": item.get("name", ""), "arguments": item.get("arguments", "")}
            call = {"id": item.get("call_id"), "type": "function", "function": function}
            messages.append({"role": "assistant", "content": None, "tool_calls": [call]})
        elif kind == "function_call_output":
            output = item.get("output")
            messages.append(
                {"role": "tool", "tool_call_id": item.get("call_id"), "content": output}
            )
        else:
            messages.append(item)
    return messages


def _nested_tool(tool: Any) -> Any:
    if not isinstance(tool, dict) or tool.get("type") != "function" or "function" in tool:
        return tool
    return {"type": "function", "function": {k: v for k, v in tool.items() if k != "type"}}


def _nested_choice(choice: Any) -> Any:
    if isinstance(choice, dict) and choice.get("type") == "function" and "name" in choice:
        return {"type": "function", "function": {"name": choice["name"]}}
    return choice


def _chat_format(text_format: dict) -> dict:
    if text_format.get("type") != "json_schema":
        return text_format
    schema = {key: value for key, value in text_format.items() if key != "type"}
    return {"type": "json_schema", "json_schema": schema}


@dataclass
class ResponsesWriter(ChunkWriter):
    """A ``ChunkWriter`` whose frames are Responses events; the chat writer decides which
    tokens are reasoning, answer or tool call, and when each goes out (``tokens``)."""

    serves_metrics: ClassVar[bool] = False  # vLLM serves them on chat and completions only

    _sequence: int = field(default=0, init=False)
    _items: list[dict[str, Any]] = field(default_factory=list, init=False)  # opened, in order
    ended: dict[str, Any] | None = field(default=None, init=False)  # the whole response, once

    def _event(self, kind: str, **fields: Any) -> bytes:
        payload = {**fields, "sequence_number": self._sequence, "type": kind}
        self._sequence += 1
        return b"event: " + kind.encode() + b"\n" + frame(payload)

    def _response(self, status: str, output: list[Any], usage: dict | None) -> dict[str, Any]:
        cut = status == "incomplete"
        return {
            "id": self.request_id,
            "object": "response",
            "created_at": self.created,
            "model": self.model,
            "status": status,
            "incomplete_details": {"reason": "max_output_tokens"} if cut else None,
            "output": output,
            "usage": usage,
        }

    def role(self) -> bytes:
        """``response.created`` and ``response.in_progress``, with the first output."""
        response = self._response("in_progress", [], None)
        return self._event("response.created", response=response) + self._event(
            "response.in_progress", response=response
        )

    def _open(self, kind: str, **item: Any) -> tuple[bytes, dict[str, Any]]:
        """The output item of ``kind`` the next delta belongs to: the open one, or a new one
        (the open one closed first)."""
        if self._items and self._items[-1]["type"] == kind:
            return b"", self._items[-1]
        frames = self._close()
        index = len(self._items)
        opened = {"id": f"{ITEM_PREFIX[kind]}_{self.request_id}_{index}", "type": kind, **item}
        self._items.append(opened)
        frames += self._event(
            "response.output_item.added",
            item={**opened, "status": "in_progress"},
            output_index=index,
        )
        if kind != FUNCTION_CALL:
            part = {"type": "reasoning_text" if kind == REASONING else "output_text", "text": ""}
            frames += self._event(
                "response.content_part.added",
                content_index=0,
                item_id=opened["id"],
                output_index=index,
                part=part,
            )
        return frames, opened

    def _close(self) -> bytes:
        if not self._items:
            return b""
        item = {**self._items[-1], "status": "completed"}
        return self._event(
            "response.output_item.done", item=item, output_index=len(self._items) - 1
        )

    def _delta_frame(self, field_name: str, text: str, finish_reason: str | None) -> bytes:
        kind = MESSAGE if field_name == "content" else REASONING
        extra = {"role": "assistant", "content": []} if kind == MESSAGE else {"summary": []}
        frames, item = self._open(kind, **extra)
        delta = "response.output_text.delta" if kind == MESSAGE else "response.reasoning_text.delta"
        return frames + self._event(
            delta,
            content_index=0,
            delta=text,
            item_id=item["id"],
            output_index=len(self._items) - 1,
        )

    def _answer(self, first: int, end: int, answer_from: int, last: bool) -> bytes:
        """Answer tokens as text (the chat writer's), or the tool call's argument deltas."""
        call = self.tool_call
        if call is None:
            return super()._answer(first, end, answer_from, last)
        frames, item = self._open(FUNCTION_CALL, call_id=call.id, name=call.name, arguments="")
        fragment = call.argument_text(first - answer_from, end - answer_from)
        if not fragment:
            return frames  # the call's first token: the parser has read its name
        return frames + self._event(
            "response.function_call_arguments.delta",
            delta=fragment,
            item_id=item["id"],
            output_index=len(self._items) - 1,
        )

    def usage(self, completion_tokens: int | None = None, include_details: bool = True) -> dict:
        """The chat path's usage in the Responses API's names."""
        chat = super().usage(completion_tokens, include_details=True)
        details = chat.get("completion_tokens_details")
        reasoning = details["reasoning_tokens"] if details else 0
        usage: dict[str, Any] = {
            "input_tokens": chat["prompt_tokens"],
            "input_tokens_details": chat["prompt_tokens_details"],
            "output_tokens": chat["completion_tokens"],
            "total_tokens": chat["total_tokens"],
        }
        if details is not None or not self.reasoning_tokens:
            usage["output_tokens_details"] = {"reasoning_tokens": reasoning}
        return usage

    def completion(self, visible_from: int) -> dict:
        """The whole response: the chat path's message as output items, its usage, its end."""
        chat = super().completion(visible_from)
        message = chat["choices"][0]["message"]
        output: list[dict[str, Any]] = []
        if reasoning := message.get(self.reasoning_field):
            content = [{"type": "reasoning_text", "text": reasoning}]
            output.append({"type": REASONING, "summary": [], "content": content})
        for call in message.get("tool_calls") or ():
            function = call["function"]
            output.append(
                {
                    "type": FUNCTION_CALL,
                    "call_id": call["id"],
                    "name": function["name"],
                    "arguments": function["arguments"],
                }
            )
        if message.get("content"):
            content = [{"type": "output_text", "text": message["content"], "annotations": []}]
            output.append({"type": MESSAGE, "role": "assistant", "content": content})
        # the chat path's end: stop (a structured reply complete) or tool_calls end a response,
        # length cuts it at max_output_tokens
        finish = chat["choices"][0]["finish_reason"]
        status = "incomplete" if finish == "length" else "completed"
        self.ended = self._response(status, output, self.usage())
        return self.ended

    def end(self) -> bytes:
        """The open item's end, then ``response.completed``: there is no ``[DONE]``."""
        response = self.completion(self._visible_from)
        return self._close() + self._event("response.completed", response=response)

    def failed(self) -> bytes:
        """An ``error`` event, which ends a Responses stream."""
        return self._event(
            "error", code="server_error", message="Internal server error", param=None
        )
