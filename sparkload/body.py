"""Every request body, composed in one place: a run's template, and one request's bytes.

A body's parts, a later one winning a key it shares with an earlier one:

1. ``model``, the request's ``max_tokens`` and its prompt: the chat API's ``messages`` (the
   planned messages, else the text as one user message) or the completions API's ``prompt``;
2. the workload's sampling (``Workload.sampling``: fresh and edit's notes method; a pinned
   length's ``ignore_eos`` and ``min_tokens``, which follows each request's ``max_tokens``);
3. ``--temperature``, ``--top-p``, ``--no-thinking`` (merged into ``chat_template_kwargs``),
   ``--response-format`` (OpenAI's ``response_format``; vLLM's ``structured_outputs`` instead
   goes in ``--extra-body``);
4. ``--extra-body``, where a key set to null removes the key from 2-4;
5. the request's own ``tools`` and ``tool_choice`` (``PlannedRequest.tools``: the agent
   workload's), which ``--extra-body`` neither replaces nor removes (the agent workload refuses
   an ``--extra-body`` that sets them: ``--tools``, ``--tool-choice``); a request that plans no
   tools carries whatever 2-4 say (a chat run's ``--extra-body`` tools);
6. ``stream: true`` and ``stream_options.include_usage: true``, which nothing removes: the
   measurement needs the stream and its usage chunk.

Parts 2-4 and 6 are settled once per run (``BodyTemplate.for_run``); a request costs one dict
and one encoding (``encode``), before its send time is taken. The manifest's ``sampling`` entry
is the same template (``sampling_entry``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import orjson

from sparkload.errors import ConfigError
from sparkload.inputs.schemas import JSON_SCHEMA, ResponseFormat
from sparkload.records import SamplingEntry
from sparkload.transport.stream import API_CHAT, API_COMPLETIONS
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
    response_format: dict[str, Any] | None = None  # --response-format, in OpenAI's form
    _stream: dict[str, Any] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
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
            response_format=fmt.body() if (fmt := opts.request.response_format) else None,
        )

    def encode(self, request: PlannedRequest) -> bytes:
        """One request's body, encoded (once per request)."""
        prompt: dict[str, Any]
        if self.api == API_COMPLETIONS:
            prompt = {"prompt": request.text}
        elif request.messages:
            prompt = {"messages": list(request.messages)}
        else:
            prompt = {"messages": [{"role": "user", "content": request.text}]}
        if request.schema is not None:  # a dataset line's own, over --response-format
            prompt["response_format"] = ResponseFormat(JSON_SCHEMA, "prompt", request.schema).body()
        elif self.response_format is not None:  # before part 4: --extra-body may replace it
            prompt["response_format"] = self.response_format
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

    def sampling_entry(self) -> SamplingEntry:
        """The manifest's ``sampling`` entry: what a request of the run's length carries beside
        its prompt."""
        return SamplingEntry.from_dict({"max_tokens": self.max_tokens, **self.extras})
