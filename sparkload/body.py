"""Every request body, composed in one place: a run's template, and one request's bytes.

A body's parts, a later one winning a key it shares with an earlier one:

1. ``model``, the request's ``max_tokens`` and its prompt: the chat API's ``messages`` (the
   planned messages, else the text as one user message) or the completions API's ``prompt``;
   the Responses API's ``max_output_tokens``, ``instructions`` (the system messages) and
   ``input`` (the other messages as input items, ``responses_input``);
2. the workload's sampling (``Workload.sampling``: fresh and edit's notes method; a pinned
   length's ``ignore_eos`` and ``min_tokens``, which follows each request's ``max_tokens``;
   vLLM takes both on every API);
3. ``--temperature``, ``--top-p``, ``--no-thinking`` (merged into ``chat_template_kwargs``),
   the request's ``response_format`` (``format_of``: a dataset line's own schema, else
   ``--response-format``; the Responses API's ``text.format``); vLLM's ``structured_outputs`` or
   llama.cpp's ``json_schema`` instead go in ``--extra-body``, with ``response_format`` null;
4. ``--extra-body``, where a key set to null removes the key from 2-4;
5. the request's own ``tools`` and ``tool_choice`` (``PlannedRequest.tools``: the agent
   workload's, in chat's nested form; the Responses API gets them flat), which ``--extra-body``
   neither replaces nor removes (the agent workload refuses an ``--extra-body`` that sets them:
   ``--tools``, ``--tool-choice``); a request that plans no tools carries whatever 2-4 say (a
   chat run's ``--extra-body`` tools);
6. ``stream: true`` and ``stream_options.include_usage: true``, which nothing removes: the
   measurement needs the stream and its usage chunk (the Responses API has no stream options:
   its ``response.completed`` event always carries the usage).

Parts 2-4 and 6 are settled once per run (``BodyTemplate.for_run``); a request costs one dict
and one encoding (``encode``), before its send time is taken. The manifest's ``sampling`` entry
is the same template (``sampling_entry``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import orjson

from sparkload.errors import ConfigError
from sparkload.inputs.schemas import JSON_SCHEMA, ResponseFormat
from sparkload.records import SamplingEntry
from sparkload.transport.stream import API_CHAT, API_COMPLETIONS, API_RESPONSES
from sparkload.workloads.contract import PlannedRequest, Sampling

if TYPE_CHECKING:
    from sparkload.config import RunOptions


@dataclass(frozen=True)
class BodyTemplate:
    """What every body of a run carries beside the prompt and its output length."""

    model: str
    max_tokens: int  # the run's output length (a request may plan its own)
    api: str = API_CHAT
    extras: dict[str, Any] = field(default_factory=dict)  # parts 2-4, without nulls
    min_tokens_follow: bool = False  # min_tokens = each request's max_tokens (a pinned length)
    response_format: dict[str, Any] | None = None  # --response-format, in chat's form
    _stream: dict[str, Any] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        if self.api == API_RESPONSES:
            object.__setattr__(self, "_stream", {"stream": True})
            return
        options = self.extras.get("stream_options") or {}
        if not isinstance(options, dict):
            raise ConfigError("--extra-body: stream_options must be a JSON object")
        stream = {"stream": True, "stream_options": {**options, "include_usage": True}}
        object.__setattr__(self, "_stream", stream)

    @classmethod
    def for_run(
        cls, opts: RunOptions, sampling: Sampling, max_tokens: int, model: str
    ) -> BodyTemplate:
        """The template of a run: its options over the workload's ``sampling``."""
        extras: dict[str, Any] = dict(sampling.fields)
        if sampling.pinned:
            extras.update(ignore_eos=True, min_tokens=max_tokens)
        if opts.request.temperature is not None:
            extras["temperature"] = opts.request.temperature
        if opts.request.top_p is not None:
            extras["top_p"] = opts.request.top_p
        if opts.request.no_thinking:
            kwargs = dict(extras.get("chat_template_kwargs") or {})
            extras["chat_template_kwargs"] = {**kwargs, "enable_thinking": False}
        extras.update(opts.request.extra_body)
        return cls(
            model,
            max_tokens,
            opts.request.api,
            {key: value for key, value in extras.items() if value is not None},
            min_tokens_follow=sampling.pinned and "min_tokens" not in opts.request.extra_body,
            response_format=_run_format(opts),
        )

    def encode(self, request: PlannedRequest) -> bytes:
        """One request's body, encoded (once per request)."""
        if self.api == API_RESPONSES:
            return orjson.dumps(self._responses_body(request))
        prompt: dict[str, Any]
        if self.api == API_COMPLETIONS:
            prompt = {"prompt": request.text}
        elif request.messages:
            prompt = {"messages": list(request.messages)}
        else:
            prompt = {"messages": [{"role": "user", "content": request.text}]}
        if (response_format := self.format_of(request)) is not None:
            prompt["response_format"] = response_format  # part 3: --extra-body may replace it
        body = {
            "model": self.model,
            "max_tokens": request.max_tokens,
            **prompt,
            **self.extras,
            **self._stream,
        }
        if request.tools is not None:
            body["tools"] = list(request.tools)
        if request.tool_choice is not None:
            body["tool_choice"] = request.tool_choice
        if self.min_tokens_follow:
            body["min_tokens"] = request.max_tokens
        return orjson.dumps(body)

    def format_of(self, request: PlannedRequest) -> dict[str, Any] | None:
        """The ``response_format`` a request asks for, in chat's form: a dataset line's own
        schema over the run's ``--response-format``; None when neither asks."""
        if request.schema is not None:
            return ResponseFormat(JSON_SCHEMA, "prompt", request.schema).body()
        return self.response_format

    def _responses_body(self, request: PlannedRequest) -> dict[str, Any]:
        """One request's body in the Responses API's form (parts 1-6 as for chat)."""
        messages = request.messages or ({"role": "user", "content": request.text},)
        instructions, items = responses_input(messages)
        body: dict[str, Any] = {"model": self.model, "max_output_tokens": request.max_tokens}
        if request.previous_response_id is not None:
            body["previous_response_id"] = request.previous_response_id
        if instructions is not None:
            body["instructions"] = instructions
        body["input"] = items
        body.update(self.extras)
        if (response_format := self.format_of(request)) is not None:
            text = body.get("text")  # --extra-body's text options kept, its own format winning
            body["text"] = {
                "format": text_format(response_format),
                **(text if isinstance(text, dict) else {}),
            }
        body.update(self._stream)
        if request.tools is not None:
            body["tools"] = [flat_tool(tool) for tool in request.tools]
        if request.tool_choice is not None:
            body["tool_choice"] = request.tool_choice
        if self.min_tokens_follow:
            body["min_tokens"] = request.max_tokens
        return body

    def sampling_entry(self) -> SamplingEntry:
        """The manifest's ``sampling`` entry: what a request of the run's length carries beside
        its prompt."""
        return SamplingEntry.from_dict({"max_tokens": self.max_tokens, **self.extras})


def _run_format(opts: RunOptions) -> dict[str, Any] | None:
    """``--response-format`` in chat's form, unless ``--extra-body`` sets ``response_format`` to
    null (to send a server's own field instead; the replies are still judged by the option)."""
    fmt = opts.request.response_format
    if fmt is None or opts.request.extra_body.get("response_format", True) is None:
        return None
    return fmt.body()


def responses_input(messages: Sequence[Mapping[str, Any]]) -> tuple[str | None, list[Any]]:
    """Chat messages as the Responses API's ``instructions`` (the system messages' text, joined)
    and ``input`` items: a user or assistant message as ``{"role", "content"}``, an assistant's
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
                items.append({"role": role, "content": content})
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
