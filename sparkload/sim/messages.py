"""The simulator's ``POST /v1/messages``: Anthropic's Messages API on the chat path's engine.

A Messages body is read as the chat body it means (``chat_body``), as vLLM's
``entrypoints/anthropic`` converts it: ``system`` as the system message, ``tool_use`` blocks as
an assistant's tool calls, ``tool_result`` blocks as tool messages, text and image blocks as
content parts, tools' ``input_schema`` as chat's ``parameters``, ``tool_choice`` (``any`` ->
``required``, ``tool`` -> a named function), ``thinking: {"type": "disabled"}`` as
``chat_template_kwargs.enable_thinking`` false and ``output_config.format`` as
``response_format``. So its prompt counts, its prefix-cache blocks, its reasoning, its tool calls
and every token's time are the chat request's: only the framing differs.

The framing (``MessagesWriter``) is vLLM's: ``message_start`` with the first output (where the
chat path sends its role chunk; its usage counts the prompt), each content block opened by
``content_block_start`` (``thinking``, ``text`` or ``tool_use``) and closed by
``content_block_stop`` (a thinking block after its ``signature_delta``); one
``thinking_delta``, ``text_delta`` or ``input_json_delta`` per engine output; then
``message_delta`` with the ``stop_reason`` (``max_tokens`` for an answer cut at its length,
``tool_use`` for a tool call, ``end_turn`` for a complete structured reply) and the usage in
Anthropic's names (``input_tokens`` without the cache's reads, ``cache_read_input_tokens``,
``output_tokens``), and ``message_stop``. The ``no_done`` fault leaves out ``message_stop``;
``error_event`` sends an ``error`` event and ends the stream.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from sparkload.sim.sse import ChunkWriter, frame

THINKING, TEXT, TOOL_USE = "thinking", "text", "tool_use"
DELTA_OF = {THINKING: "thinking_delta", TEXT: "text_delta"}
# chat's finish reason -> Anthropic's stop reason
STOP_OF_FINISH = {"length": "max_tokens", "stop": "end_turn", "tool_calls": "tool_use"}
# Anthropic's tool_choice types -> chat's
CHOICE_OF = {"auto": "auto", "any": "required", "none": "none"}
SIGNATURE = "sparkload-sim"  # a thinking block's signature: vLLM's is a placeholder too


def chat_body(body: Any) -> Any:
    """The chat-completions body a Messages body means (anything not a JSON object as it is,
    for the chat path to refuse)."""
    if not isinstance(body, dict):
        return body
    moved = ("system", "messages", "tools", "tool_choice", "thinking", "output_config")
    chat = {key: value for key, value in body.items() if key not in moved}
    chat["messages"] = messages_of(body.get("messages"), body.get("system"))
    if isinstance(tools := body.get("tools"), list):
        chat["tools"] = [_chat_tool(tool) for tool in tools]
    if isinstance(choice := body.get("tool_choice"), dict):
        chat["tool_choice"] = _chat_choice(choice)
    thinking = body.get("thinking")
    if isinstance(thinking, dict) and thinking.get("type") == "disabled":
        kwargs = chat.get("chat_template_kwargs")
        chat["chat_template_kwargs"] = {
            **(kwargs if isinstance(kwargs, dict) else {}),
            "enable_thinking": False,
        }
    output = body.get("output_config")
    if isinstance(output, dict) and isinstance(fmt := output.get("format"), dict):
        schema = {"name": "json_schema", "schema": fmt.get("schema")}
        chat["response_format"] = {"type": "json_schema", "json_schema": schema}
    chat["stream_options"] = None  # the usage comes in message_delta, never in a chunk
    return chat


def messages_of(turns: Any, system: Any) -> list[Any]:
    """Messages turns and their ``system`` as chat messages: a turn's text and image blocks as
    its content parts, its ``tool_use`` blocks as tool calls, its ``tool_result`` blocks as tool
    messages before it; a turn of no known form is kept for the chat path to skip."""
    messages: list[Any] = []
    if system_text := _text(system):
        messages.append({"role": "system", "content": system_text})
    for turn in turns if isinstance(turns, list) else []:
        content = turn.get("content") if isinstance(turn, dict) else None
        if not isinstance(content, list):
            messages.append(turn)
            continue
        parts: list[Any] = []
        calls: list[Any] = []
        for block in content:
            kind = block.get("type") if isinstance(block, dict) else None
            if kind == "tool_result":
                call_id = block.get("tool_use_id")
                result = {"role": "tool", "tool_call_id": call_id, "content": _text(block)}
                messages.append(result)
            elif kind == TOOL_USE:
                arguments = json.dumps(block.get("input") or {})
                function = {"name": block.get("name", ""), "arguments": arguments}
                calls.append({"id": block.get("id"), "type": "function", "function": function})
            elif kind == TEXT:
                parts.append({"type": "text", "text": block.get("text", "")})
            elif kind == "image":
                parts.append({"type": "image_url", "image_url": {"url": _image_url(block)}})
        if parts or calls:
            message: dict[str, Any] = {"role": turn.get("role"), "content": parts or None}
            messages.append({**message, "tool_calls": calls} if calls else message)
    return messages


def _text(content: Any) -> str:
    """A ``system`` or a ``tool_result``'s content: a string, or the text of its text blocks."""
    if isinstance(content, dict):
        content = content.get("content")
    if isinstance(content, str):
        return content
    blocks = content if isinstance(content, list) else []
    return "".join(
        b.get("text", "") for b in blocks if isinstance(b, dict) and b.get("type") == TEXT
    )


def _image_url(block: dict) -> str:
    source = block.get("source")
    if not isinstance(source, dict):
        return ""
    if source.get("type") == "url":
        return str(source.get("url", ""))
    return f"data:{source.get('media_type')};base64,{source.get('data', '')}"


def _chat_tool(tool: Any) -> Any:
    if not isinstance(tool, dict) or "input_schema" not in tool:
        return tool
    function = {k: v for k, v in tool.items() if k not in ("input_schema", "type")}
    return {"type": "function", "function": {**function, "parameters": tool["input_schema"]}}


def _chat_choice(choice: dict) -> Any:
    kind = choice.get("type")
    if kind == "tool":
        return {"type": "function", "function": {"name": choice.get("name")}}
    return CHOICE_OF.get(str(kind), kind)


@dataclass
class MessagesWriter(ChunkWriter):
    """A ``ChunkWriter`` whose frames are Messages events; the chat writer decides which tokens
    are reasoning, answer or tool call, and when each goes out (``tokens``)."""

    _blocks: list[str] = field(default_factory=list, init=False)  # opened, in order
    _open: bool = field(default=False, init=False)  # the last block is not closed yet

    def _event(self, kind: str, **fields: Any) -> bytes:
        return b"event: " + kind.encode() + b"\n" + frame({"type": kind, **fields})

    def role(self) -> bytes:
        """``message_start``, with the first output."""
        message: dict[str, Any] = {
            "id": self.request_id,
            "type": "message",
            "role": "assistant",
            "content": [],
            "model": self.model,
            "stop_reason": None,
            "stop_sequence": None,
            "usage": self.usage(0),
        }
        return self._event("message_start", message=message)

    def _block(self, kind: str, **block: Any) -> bytes:
        """Open a block of ``kind`` for the next delta, unless it is the open one (the open one
        closed first)."""
        if self._open and self._blocks[-1] == kind:
            return b""
        frames = self._close()
        self._blocks.append(kind)
        self._open = True
        return frames + self._event(
            "content_block_start", index=len(self._blocks) - 1, content_block=block
        )

    def _close(self) -> bytes:
        if not self._open:
            return b""
        self._open = False
        index = len(self._blocks) - 1
        frames = b""
        if self._blocks[-1] == THINKING:
            delta = {"type": "signature_delta", "signature": SIGNATURE}
            frames = self._event("content_block_delta", index=index, delta=delta)
        return frames + self._event("content_block_stop", index=index)

    def _delta_frame(self, field_name: str, text: str, finish_reason: str | None) -> bytes:
        kind = TEXT if field_name == "content" else THINKING
        frames = self._block(kind, type=kind, **{kind: ""})
        delta = {"type": DELTA_OF[kind], kind: text}
        return frames + self._event("content_block_delta", index=len(self._blocks) - 1, delta=delta)

    def _answer(self, first: int, end: int, answer_from: int, last: bool) -> bytes:
        """Answer tokens as text (the chat writer's), or the tool call's ``input_json_delta``s."""
        call = self.tool_call
        if call is None:
            return super()._answer(first, end, answer_from, last)
        frames = self._block(TOOL_USE, type=TOOL_USE, id=call.id, name=call.name, input={})
        fragment = call.argument_text(first - answer_from, end - answer_from)
        if not fragment:
            return frames  # the call's first token: the parser has read its name
        delta = {"type": "input_json_delta", "partial_json": fragment}
        return frames + self._event("content_block_delta", index=len(self._blocks) - 1, delta=delta)

    def usage(self, completion_tokens: int | None = None, include_details: bool = True) -> dict:
        """The chat path's usage in Anthropic's names: the cache's reads apart from the input."""
        chat = super().usage(completion_tokens, include_details=True)
        return {
            "input_tokens": chat["prompt_tokens"] - self.cached_tokens,
            "output_tokens": chat["completion_tokens"],
            "cache_creation_input_tokens": 0,
            "cache_read_input_tokens": self.cached_tokens,
        }

    def completion(self, visible_from: int) -> dict:
        """The whole message: the chat path's reply as content blocks, its usage, its end."""
        chat = super().completion(visible_from)
        reply = chat["choices"][0]["message"]
        content: list[dict[str, Any]] = []
        if reasoning := reply.get(self.reasoning_field):
            content.append({"type": THINKING, "thinking": reasoning, "signature": SIGNATURE})
        if reply.get("content"):
            content.append({"type": TEXT, "text": reply["content"]})
        for call in reply.get("tool_calls") or ():
            function = call["function"]
            try:
                given = json.loads(function["arguments"])
            except ValueError:
                given = {}
            block = {"id": call["id"], "name": function["name"], "input": given}
            content.append({"type": TOOL_USE, **block})
        return {
            "id": self.request_id,
            "type": "message",
            "role": "assistant",
            "content": content,
            "model": self.model,
            "stop_reason": STOP_OF_FINISH.get(chat["choices"][0]["finish_reason"]),
            "stop_sequence": None,
            "usage": self.usage(),
        }

    def end(self) -> bytes:
        """The open block's end, ``message_delta`` (the stop reason, the usage) and
        ``message_stop``."""
        message = self.completion(self._visible_from)
        delta = {"stop_reason": message["stop_reason"], "stop_sequence": None}
        return (
            self._close()
            + self._event("message_delta", delta=delta, usage=message["usage"])
            + self._event("message_stop")
        )

    def failed(self) -> bytes:
        """An ``error`` event, which ends a Messages stream."""
        error = {"type": "api_error", "message": "Internal server error"}
        return self._event("error", error=error)
