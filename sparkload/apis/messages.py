"""Anthropic's Messages API (``/v1/messages``): its body, its headers, and its stream read event
by event.

The body: ``model``, ``max_tokens``, ``system`` (the system messages' text) and ``messages``
(``anthropic_messages``: user and assistant turns of content blocks, an assistant's tool calls
as ``tool_use`` blocks, a tool message as a user turn's ``tool_result`` block, turns of the same
role merged as Anthropic requires, OpenAI content parts as blocks), a reply's JSON format as
``output_config.format``, the run's extras, ``thinking: {"type": "disabled"}`` when
``--no-thinking`` asked (vLLM's Qwen template also reads the ``chat_template_kwargs`` the extras
carry), ``stream``, then the tools in Anthropic's form (``input_schema``) and ``tool_choice``
(``auto``, ``required`` -> ``any``, ``none``, a named function -> ``tool``). vLLM ignores what
it does not know of chat's fields (``ignore_eos``, ``min_tokens``): a pinned length is not
pinned on this API.

Every request carries ``anthropic-version``; the key goes in ``x-api-key`` (from ``--api-key``,
else ``$ANTHROPIC_API_KEY``, else ``$OPENAI_API_KEY``: ``sparkload.hostsecrets``).

The events, as vLLM (``entrypoints/anthropic``) and Anthropic send them:

- ``message_start``: the message's ``id`` and its first usage (``input_tokens``); not a token:
  Anthropic sends it before the model has written anything;
- ``content_block_start`` with a ``tool_use`` block starts a tool call (its ``id`` and ``name``:
  output, a token as chat's name delta is); text and thinking blocks start empty;
- ``content_block_delta``: ``text_delta`` an answer token, ``thinking_delta`` a reasoning token,
  ``input_json_delta`` a fragment of the open tool call's arguments (output), ``signature_delta``
  the thinking block's signature (no token);
- ``message_delta``: the ``stop_reason`` (``FINISH_OF_STOP``) and the usage so far;
- ``message_stop`` ends the stream; ``error`` is the server's failure (``server_error_event``);
  ``ping`` and ``content_block_stop`` carry nothing.

The usage is kept in chat's names (``chat_usage``): Anthropic counts cached input apart, so the
prompt is ``input_tokens`` + ``cache_read_input_tokens`` + ``cache_creation_input_tokens`` and
the cached tokens are the cache reads. It has no reasoning count: reasoning is counted from its
events (the tally's fallback).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import orjson

from sparkload.apis.chat import STUB_ARGUMENTS
from sparkload.apis.wire import BodyParts, PlannedRequest, WireApi, json_event, request_tail
from sparkload.records import API_MESSAGES, ERROR_SERVER_EVENT, FINISH_LENGTH
from sparkload.transport.tally import Reply, ReplyTally, StreamError, ToolCall

ANTHROPIC_VERSION = "2023-06-01"
KEY_ENV = "ANTHROPIC_API_KEY"
# ``stop_reason`` -> chat's finish reason (any other kept as it is)
FINISH_OF_STOP = {
    "end_turn": "stop",
    "stop_sequence": "stop",
    "max_tokens": FINISH_LENGTH,
    "tool_use": "tool_calls",
}
# chat's tool_choice strings -> Anthropic's
CHOICE_OF = {"auto": {"type": "auto"}, "required": {"type": "any"}, "none": {"type": "none"}}
DATA_URL = "data:"


def body(
    parts: BodyParts, request: PlannedRequest, response_format: Mapping[str, Any] | None
) -> dict[str, Any]:
    """One request's body in the Messages API's form."""
    system, turns = anthropic_messages(
        request.messages or ({"role": "user", "content": request.text},)
    )
    sent: dict[str, Any] = {"model": parts.model, "max_tokens": request.max_tokens}
    if system is not None:
        sent["system"] = system
    sent["messages"] = turns
    if response_format is not None:
        sent["output_config"] = {"format": output_format(response_format)}
    sent.update(parts.extras)
    template = parts.extras.get("chat_template_kwargs")
    if isinstance(template, Mapping) and template.get("enable_thinking") is False:
        sent.setdefault("thinking", {"type": "disabled"})
    sent.update(parts.stream)
    tools = [anthropic_tool(tool) for tool in request.tools] if request.tools is not None else None
    sent = request_tail(sent, parts, request, tools)
    if request.tool_choice is not None:
        sent["tool_choice"] = anthropic_choice(request.tool_choice)
    return sent


def stream_fields(extras: Mapping[str, Any]) -> dict[str, Any]:
    """Only ``stream``: ``message_delta`` always carries the usage."""
    return {"stream": True}


def x_api_key(api_key: str) -> dict[str, str]:
    """Anthropic's auth header: the key as ``x-api-key``."""
    return {"x-api-key": api_key}


def anthropic_messages(
    messages: Sequence[Mapping[str, Any]],
) -> tuple[str | None, list[dict[str, Any]]]:
    """Chat messages as the Messages API's ``system`` (the system messages' text, joined) and
    ``messages``: each a turn of content blocks (``content_blocks``), an assistant's tool calls
    as ``tool_use`` blocks (``input``: the arguments' JSON object), a tool message as a user
    turn's ``tool_result`` block; consecutive turns of one role merged into one (Anthropic
    requires them to alternate), a turn left without blocks dropped."""
    system: list[str] = []
    turns: list[dict[str, Any]] = []
    for message in messages:
        role, content = message.get("role"), message.get("content")
        if role in ("system", "developer"):
            system += [block["text"] for block in content_blocks(content) if "text" in block]
            continue
        if role == "tool":
            result = {
                "type": "tool_result",
                "tool_use_id": message.get("tool_call_id"),
                "content": content if isinstance(content, str) else content_blocks(content),
            }
            role, blocks = "user", [result]
        else:
            blocks = content_blocks(content)
            blocks += [tool_use(call) for call in message.get("tool_calls") or ()]
        if not blocks:
            continue
        if turns and turns[-1]["role"] == role:
            turns[-1]["content"] += blocks
        else:
            turns.append({"role": role, "content": blocks})
    return ("\n\n".join(system) if system else None), turns


def content_blocks(content: Any) -> list[dict[str, Any]]:
    """A chat message's content as content blocks: a string as one text block (none when it is
    empty: Anthropic refuses empty text), OpenAI's ``text`` parts as text blocks, ``image_url``
    parts as ``image`` blocks (``image_block``), any other part as it is."""
    if isinstance(content, str):
        return [{"type": "text", "text": content}] if content else []
    blocks: list[dict[str, Any]] = []
    for part in content if isinstance(content, list) else ():
        kind = part.get("type") if isinstance(part, dict) else None
        if kind == "text":
            if part.get("text"):
                blocks.append({"type": "text", "text": part["text"]})
        elif kind == "image_url":
            blocks.append(image_block(part.get("image_url")))
        elif isinstance(part, dict):
            blocks.append(part)
    return blocks


def image_block(image_url: Any) -> dict[str, Any]:
    """An OpenAI ``image_url`` (``{"url": ...}`` or the URL itself) as an ``image`` block: a data
    URL as a base64 source with its media type, any other URL as a ``url`` source."""
    url = image_url.get("url") if isinstance(image_url, dict) else image_url
    url = url if isinstance(url, str) else ""
    header, comma, data = url.partition(",")
    if url.startswith(DATA_URL) and comma and header.endswith(";base64"):
        media_type = header[len(DATA_URL) : -len(";base64")]
        source = {"type": "base64", "media_type": media_type, "data": data}
    else:
        source = {"type": "url", "url": url}
    return {"type": "image", "source": source}


def tool_use(call: Mapping[str, Any]) -> dict[str, Any]:
    """A chat tool call as a ``tool_use`` block; ``input`` is its arguments' JSON object, or
    ``{}`` for arguments that are not one (a call cut by max_tokens): Anthropic takes no
    other."""
    function = call.get("function") or {}
    arguments = function.get("arguments")
    try:
        parsed = orjson.loads(arguments) if isinstance(arguments, str) else arguments
    except orjson.JSONDecodeError:
        parsed = None
    return {
        "type": "tool_use",
        "id": call.get("id"),
        "name": function.get("name"),
        "input": parsed if isinstance(parsed, dict) else {},
    }


def anthropic_tool(tool: Mapping[str, Any]) -> Mapping[str, Any]:
    """A chat tool (``{"type": "function", "function": {...}}``) in Anthropic's form
    (``name``, ``description``, ``input_schema``); any other as it is."""
    function = tool.get("function")
    if tool.get("type") != "function" or not isinstance(function, Mapping):
        return tool
    described = {"description": function["description"]} if "description" in function else {}
    schema = function.get("parameters") or {"type": "object"}
    return {"name": function.get("name"), **described, "input_schema": schema}


def anthropic_choice(choice: Any) -> Any:
    """Chat's ``tool_choice`` in Anthropic's form: ``auto``, ``required`` (``any``), ``none``,
    a named function (``tool``); any other as it is."""
    if isinstance(choice, str) and choice in CHOICE_OF:
        return CHOICE_OF[choice]
    function = choice.get("function") if isinstance(choice, Mapping) else None
    if isinstance(function, Mapping) and choice.get("type") == "function":
        return {"type": "tool", "name": function.get("name")}
    return choice


def output_format(response_format: Mapping[str, Any]) -> Mapping[str, Any]:
    """Chat's ``response_format`` as ``output_config.format``: a ``json_schema``'s schema, a
    ``json_object`` as an object schema; any other as it is."""
    kind, schema = response_format.get("type"), response_format.get("json_schema")
    if kind == "json_schema" and isinstance(schema, Mapping):
        return {"type": "json_schema", "schema": schema.get("schema") or {"type": "object"}}
    if kind == "json_object":
        return {"type": "json_schema", "schema": {"type": "object"}}
    return response_format


class MessagesStream(ReplyTally):
    """The tally of one Messages stream, fed its events; the usage of ``message_start`` and
    ``message_delta`` is merged and kept in chat's names (``chat_usage``)."""

    __slots__ = ("_counts", "_stub")
    ending = "message_stop"

    def __init__(self, reply: Reply | None = None) -> None:
        super().__init__(reply)
        self._counts: dict[str, Any] = {}  # the usage in Anthropic's names, as last said
        self._stub: ToolCall | None = None  # its last fragment was vLLM's "{}" placeholder

    def feed(self, data: bytes, now: float) -> bool:
        """Take one SSE ``data`` payload received at ``now``; True once ``message_stop``."""
        event = json_event(data)
        if event is None:
            return self.done
        kind = event.get("type")
        if kind == "content_block_delta":
            self._note_delta(event, now)
        elif kind == "content_block_start":
            self._note_block(event, now)
        elif kind == "message_start":
            message = event.get("message")
            if isinstance(message, dict):
                if self.response_id is None and isinstance(message.get("id"), str):
                    self.response_id = message["id"]
                self._note_usage(message.get("usage"))
        elif kind == "message_delta":
            self._note_end(event)
        elif kind == "message_stop":
            self.done = True
            self.t_done = now
            return True
        elif kind == "error":
            raise StreamError(ERROR_SERVER_EVENT, _error_message(event))
        return False

    def _note_delta(self, event: dict, now: float) -> None:
        """A content block's delta: answer text, reasoning, or a tool call's fragment."""
        delta = event.get("delta")
        if not isinstance(delta, dict):
            return
        kind = delta.get("type")
        if kind == "text_delta":
            if text := delta.get("text"):
                self.note_token(now, text)
        elif kind == "thinking_delta":
            if delta.get("thinking"):
                self.note_token(now)
                self.note_reasoning(now)
        elif kind == "input_json_delta":
            fragment = delta.get("partial_json")
            if not fragment:
                return
            self.note_token(now)
            self.note_tool_delta(now)
            call = self.call_at(event.get("index"))
            if isinstance(fragment, str):
                call.arguments += fragment
            else:
                call.malformed = True
            self._stub = call if fragment == STUB_ARGUMENTS else None

    def _note_block(self, event: dict, now: float) -> None:
        """A content block begins: a ``tool_use`` one starts a tool call, output as chat's first
        tool-call delta is (the parser has read the function's name)."""
        block = event.get("content_block")
        if not isinstance(block, dict) or block.get("type") != "tool_use":
            return
        self.note_token(now)
        self.note_tool_delta(now)
        call = self.call_at(event.get("index"))
        if isinstance(call_id := block.get("id"), str):
            call.id = call_id
        if isinstance(name := block.get("name"), str):
            call.name = name
        if isinstance(given := block.get("input"), dict) and given:
            call.arguments += orjson.dumps(given).decode()

    def _note_end(self, event: dict) -> None:
        """``message_delta``: the stop reason and the usage. A call cut by max_tokens loses the
        ``{}`` vLLM wrote as its last fragment (chat's ``STUB_ARGUMENTS``)."""
        delta = event.get("delta")
        stop = delta.get("stop_reason") if isinstance(delta, dict) else None
        if isinstance(stop, str):
            self.finish_reason = FINISH_OF_STOP.get(stop, stop)
            if self.finish_reason == FINISH_LENGTH and self._stub is not None:
                self._stub.arguments = self._stub.arguments.removesuffix(STUB_ARGUMENTS)
        self._note_usage(event.get("usage"))

    def _note_usage(self, usage: object) -> None:
        if isinstance(usage, dict):
            self._counts.update(usage)
            self.usage = chat_usage(self._counts)


def chat_usage(usage: Mapping[str, Any]) -> dict[str, Any]:
    """A Messages usage in chat's names: the prompt is the input with the cache's reads and
    writes (Anthropic counts them apart), its cached tokens the reads, the completion the
    output. A count the server left out stays out."""
    chat: dict[str, Any] = {}
    fresh, read = usage.get("input_tokens"), usage.get("cache_read_input_tokens")
    written = usage.get("cache_creation_input_tokens")
    if isinstance(fresh, int):
        chat["prompt_tokens"] = sum(n for n in (fresh, read, written) if isinstance(n, int))
    if isinstance(read, int):
        chat["prompt_tokens_details"] = {"cached_tokens": read}
    if isinstance(output := usage.get("output_tokens"), int):
        chat["completion_tokens"] = output
    return chat


def _error_message(event: dict) -> str:
    """What an ``error`` event said (``error.type`` and ``error.message``)."""
    error = event.get("error")
    if isinstance(error, dict):
        said = error.get("message") or error
        return (f"{error['type']}: {said}" if error.get("type") else str(said))[:200]
    return str(error or event)[:200]


API = WireApi(
    API_MESSAGES,
    "/messages",
    body,
    MessagesStream,
    stream_fields,
    auth=x_api_key,
    headers={"anthropic-version": ANTHROPIC_VERSION},
    key_env=KEY_ENV,
    image_parts=True,
)
