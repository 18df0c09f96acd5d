"""Every request body, composed in one place: a run's template, and one request's bytes.

A body's parts, a later one winning a key it shares with an earlier one (each API writes them in
its own form: ``sparkload/apis/``):

1. ``model``, the request's output length and its prompt (chat's ``messages``, the completions
   API's ``prompt``, the Responses API's ``instructions`` and ``input``);
2. the workload's sampling (``Workload.sampling``: fresh and edit's notes method; a pinned
   length's ``ignore_eos`` and ``min_tokens``, which follows each request's ``max_tokens``;
   vLLM takes both on every API);
3. ``--temperature``, ``--top-p``, ``--no-thinking`` (merged into ``chat_template_kwargs``),
   the request's ``response_format`` (``format_of``: a dataset line's own schema, else
   ``--response-format``); vLLM's ``structured_outputs`` or llama.cpp's ``json_schema`` instead
   go in ``--extra-body``, with ``response_format`` null;
4. ``--extra-body``, where a key set to null removes the key from 2-4;
5. the API's stream fields (``WireApi.stream_fields``: chat's ``stream_options.include_usage``),
   which nothing removes: the measurement needs the stream and its usage;
6. the request's own ``tools`` and ``tool_choice`` (``PlannedRequest.tools``: the agent
   workload's), which ``--extra-body`` neither replaces nor removes (the agent workload refuses
   an ``--extra-body`` that sets them: ``--tools``, ``--tool-choice``); a request that plans no
   tools carries whatever 2-4 say (a chat run's ``--extra-body`` tools).

Parts 2-5 are settled once per run (``BodyTemplate.for_run``); a request costs one dict and one
encoding (``encode``), before its send time is taken. The manifest's ``sampling`` entry is the
same template (``sampling_entry``).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

import orjson

from sparkload.apis import wire_api
from sparkload.apis.wire import BodyParts, WireApi
from sparkload.inputs.schemas import JSON_SCHEMA, ResponseFormat
from sparkload.records import API_CHAT, SamplingEntry
from sparkload.workloads.contract import PlannedRequest, Sampling

if TYPE_CHECKING:
    from sparkload.config import RunOptions


@dataclass(frozen=True)
class BodyTemplate:
    """What every body of a run carries beside the prompt and its output length."""

    model: str
    max_tokens: int  # the run's output length (a request may plan its own)
    api: str = API_CHAT  # the --api name
    extras: dict[str, Any] = field(default_factory=dict)  # parts 2-4, without nulls
    min_tokens_follow: bool = False  # min_tokens = each request's max_tokens (a pinned length)
    response_format: dict[str, Any] | None = None  # --response-format, in chat's form
    wire: WireApi = field(init=False, repr=False, compare=False)  # the API of ``api``
    _parts: BodyParts = field(init=False, repr=False, compare=False)
    # the parts of a request naming another model (a mix's: ``model_mix``), made once per model
    _others: dict[str, BodyParts] = field(default_factory=dict, repr=False, compare=False)

    def __post_init__(self) -> None:
        wire = wire_api(self.api)
        stream = wire.stream_fields(self.extras)
        parts = BodyParts(self.model, self.extras, stream, self.min_tokens_follow)
        object.__setattr__(self, "wire", wire)
        object.__setattr__(self, "_parts", parts)

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

    def encode(self, request: PlannedRequest, model: str | None = None) -> bytes:
        """One request's body, encoded (once per request); ``model``: the model it asks for,
        when not the run's (a mix's draw)."""
        parts = self._parts
        model = model or request.model
        if model is not None and model != self.model:
            parts = self._others.get(model) or self._others.setdefault(
                model, replace(parts, model=model)
            )
        return orjson.dumps(self.wire.body(parts, request, self.format_of(request)))

    def format_of(self, request: PlannedRequest) -> dict[str, Any] | None:
        """The ``response_format`` a request asks for, in chat's form: a dataset line's own
        schema over the run's ``--response-format``; None when neither asks."""
        if request.schema is not None:
            return ResponseFormat(JSON_SCHEMA, "prompt", request.schema).body()
        return self.response_format

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
