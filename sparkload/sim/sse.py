"""Chat-completion (and completion) chunks framed the way vLLM's OpenAI server frames them.

Order of a stream (vLLM 0.33 ``chat_completion_stream_generator``, notes s.2): a role chunk
(``{"role": "assistant", "content": ""}``) written together with the first token's chunk,
then one chunk per engine output (several tokens with MTP), ``reasoning`` deltas before
``content`` deltas when the request reasons, ``finish_reason`` on the last token's chunk, the
usage chunk (``choices: []``) when ``stream_options.include_usage`` is set, and
``data: [DONE]``. With ``continuous_usage_stats`` every chunk carries a running ``usage``. A
reasoning request's usage has ``completion_tokens_details.reasoning_tokens`` (vLLM with a
reasoning parser; the think tag not counted), unless ``reasoning_usage`` is off.

A tool call (``tools.PlannedCall``) is the answer instead of content, in vLLM's delta form:
the answer's first token brings ``{"tool_calls": [{"index": 0, "id": "chatcmpl-tool-…",
"type": "function", "function": {"name": NAME, "arguments": ""}}]}`` (the parser has read the
function's name), each later engine output ``{"tool_calls": [{"index": 0, "function":
{"arguments": FRAGMENT}}]}`` with its tokens' part of the arguments, and the last one
``finish_reason: "tool_calls"``.

Hold-back (``holdback`` N, only where a tool parser reads the answer: a request with tools
whose choice is not ``none``): a parser that must decide whether text is a tool call keeps it
until it knows, as qwen3_coder keeps ``<tool_call>`` and the function header until the name is
complete. The first N tokens of the answer, content or tool call, go out with the (N+1)-th
(one write; a tool call's name delta and its first fragment as two events in it), or with the
last if the answer is shorter. Reasoning before it is not held: TTFT stays, the first output
token (TTFO) comes N decode steps later, the stream has N fewer answer chunks and one gap N+1
steps long where the answer begins (with no reasoning that gap is in the TTFT itself).

Token text is filler: one short word per token, so ~4 characters per token as in English.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass, field
from typing import ClassVar

from sparkload.sim.structured import PlannedJson
from sparkload.sim.tools import PlannedCall

WORDS = (
    " the",
    " load",
    " test",
    " runs",
    " on",
    " a",
    " small",
    " box",
    " and",
    " it",
    " must",
    " stay",
    " fast",
    " so",
    " we",
    " can",
    " trust",
    " each",
    " tok",
    " en",
)
DONE = b"data: [DONE]\n\n"


DRIFT_SHIFT = 7  # a changed token's word: this many places on (``drift.py``: never the same)


def token_text(start: int, count: int, changed_from: int | None = None) -> str:
    """Text of tokens ``start .. start + count - 1`` of an output; tokens from ``changed_from``
    on (a drifted reply's, ``drift.py``) are other words."""
    if changed_from is None or start + count <= changed_from:
        return "".join(WORDS[i % len(WORDS)] for i in range(start, start + count))
    return "".join(
        WORDS[(i + (DRIFT_SHIFT if i >= changed_from else 0)) % len(WORDS)]
        for i in range(start, start + count)
    )


def frame(payload: dict) -> bytes:
    return b"data: " + json.dumps(payload, separators=(",", ":")).encode() + b"\n\n"


@dataclass
class ChunkWriter:
    """Builds the frames of one response; tracks how many tokens went out."""

    serves_metrics: ClassVar[bool] = True  # vLLM's per-request ``metrics`` (chat, completions)
    request_id: str
    model: str
    prompt_tokens: int
    reasoning_tokens: int = 0
    reasoning_field: str = "reasoning"
    continuous_usage: bool = False
    cached_tokens: int = 0
    created: int = field(default_factory=lambda: int(time.time()))
    generated: int = 0  # tokens produced, hidden ones included (what usage counts)
    tool_call: PlannedCall | None = None  # the answer is this tool call, not content
    holdback: int = 0  # answer tokens the tool parser holds back before its first delta
    structured: PlannedJson | None = None  # the answer is this JSON text (response_format)
    reasoning_usage: bool = True  # usage counts reasoning tokens apart, when there are some
    changed_from: int | None = None  # the answer token this reply changes from (drift.py)
    # vLLM's per-request ``metrics`` (``request_metrics``), set once the request is done: in the
    # usage chunk and the non-streamed body
    metrics: dict | None = None
    _visible_from: int = field(default=0, init=False)
    _answer_shown: int = field(default=0, init=False)  # answer tokens before this are out

    def __post_init__(self) -> None:
        head = {
            "id": self.request_id,
            "object": "chat.completion.chunk",
            "created": self.created,
            "model": self.model,
        }
        # Pre-encoded around a one-field delta: the per-token path of the capacity benchmark
        # (no usage, no finish) then costs one json.dumps of a short string.
        self._delta_head = (
            b"data: "
            + json.dumps(head, separators=(",", ":"))[:-1].encode()
            + b',"choices":[{"index":0,"delta":{'
        )
        self._delta_tail = b'},"logprobs":null,"finish_reason":null}]}\n\n'

    def _delta_frame(self, field_name: str, text: str, finish_reason: str | None) -> bytes:
        if finish_reason is None and not self.continuous_usage:
            return (
                self._delta_head
                + json.dumps(field_name).encode()
                + b":"
                + json.dumps(text).encode()
                + self._delta_tail
            )
        return frame(self._chunk({field_name: text}, finish_reason))

    def _chunk(
        self, delta: dict, finish_reason: str | None = None, completion_tokens: int | None = None
    ) -> dict:
        choice = {"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish_reason}
        if finish_reason is not None:
            choice["stop_reason"] = None
        return self._envelope("chat.completion.chunk", choice, completion_tokens)

    def _envelope(self, kind: str, choice: dict, completion_tokens: int | None) -> dict:
        """One chunk of ``kind`` around ``choice``, with the running usage when asked for."""
        chunk = {
            "id": self.request_id,
            "object": kind,
            "created": self.created,
            "model": self.model,
            "choices": [choice],
        }
        if self.continuous_usage:
            chunk["usage"] = self.usage(completion_tokens, include_details=False)
        return chunk

    def role(self) -> bytes:
        """The role chunk; vLLM sends it with the first output, counting no tokens yet."""
        return frame(self._chunk({"role": "assistant", "content": ""}, completion_tokens=0))

    def tokens(self, count: int, visible_from: int, last: bool) -> bytes:
        """Frames for ``count`` new tokens; tokens before ``visible_from`` are never shown.

        Returns b"" when every token is hidden (the reasoning parser's swallowed think tag) or
        held back (the tool parser's first ``holdback`` tokens of the answer, shown together
        with the next one, or at the end).
        """
        self._visible_from = visible_from
        start = max(self.generated, visible_from)
        self.generated += count
        end = self.generated
        if start >= end:
            return frame(self._chunk({}, "length")) if last else b""
        answer_from = visible_from + self.reasoning_tokens
        split = min(max(answer_from, start), end)
        frames = b""
        if start < split:
            text = token_text(start, split - start)
            finish = "length" if last and split == end else None
            frames += self._delta_frame(self.reasoning_field, text, finish)
        held = not last and end - answer_from <= self.holdback
        if split < end and not held:
            frames += self._answer(max(self._answer_shown, answer_from), end, answer_from, last)
            self._answer_shown = end
        return frames

    def _answer(self, first: int, end: int, answer_from: int, last: bool) -> bytes:
        """The frames of answer tokens ``first .. end - 1``: content, or the tool call's."""
        call, planned = self.tool_call, self.structured
        if call is None and planned is not None:
            text = planned.piece(first - answer_from, end - answer_from)
            done = "stop" if planned.complete(end - answer_from) else "length"
            return self._delta_frame("content", text, done if last else None)
        if call is None:
            text = token_text(first, end - first, self._changed(answer_from))
            return self._delta_frame("content", text, _finish(last))
        finish = "tool_calls" if last else None
        start, stop = first - answer_from, end - answer_from
        frames = b""
        if start == 0:  # the call's first token: the parser names the function
            function = {"name": call.name, "arguments": ""}
            header = {"index": 0, "id": call.id, "type": "function", "function": function}
            frames += frame(self._chunk({"tool_calls": [header]}, finish if stop == 1 else None))
        if stop > 1:
            fragment = {"index": 0, "function": {"arguments": call.argument_text(start, stop)}}
            frames += frame(self._chunk({"tool_calls": [fragment]}, finish))
        return frames

    def _changed(self, answer_from: int) -> int | None:
        """The output token this reply changes from (None: it does not)."""
        return None if self.changed_from is None else answer_from + self.changed_from

    def reasoning_generated(self, completion_tokens: int) -> int:
        """Reasoning tokens among the first ``completion_tokens`` (the think tag not counted,
        as vLLM's reasoning parsers count them)."""
        return min(self.reasoning_tokens, max(0, completion_tokens - self._visible_from))

    def usage(self, completion_tokens: int | None = None, include_details: bool = True) -> dict:
        completion = self.generated if completion_tokens is None else completion_tokens
        usage: dict[str, int | dict[str, int]] = {
            "prompt_tokens": self.prompt_tokens,
            "total_tokens": self.prompt_tokens + completion,
            "completion_tokens": completion,
        }
        if include_details:
            usage["prompt_tokens_details"] = {"cached_tokens": self.cached_tokens}
        if self.reasoning_tokens and self.reasoning_usage:
            reasoning = self.reasoning_generated(completion)
            usage["completion_tokens_details"] = {"reasoning_tokens": reasoning}
        return usage

    def with_metrics(self, body: dict) -> dict:
        """``body`` with the request's ``metrics``, once they are known."""
        if self.metrics is not None:
            body["metrics"] = self.metrics
        return body

    def usage_chunk(self) -> bytes:
        return frame(
            self.with_metrics(
                {
                    "id": self.request_id,
                    "object": "chat.completion.chunk",
                    "created": self.created,
                    "model": self.model,
                    "choices": [],
                    "usage": self.usage(),
                }
            )
        )

    def end(self) -> bytes:
        """What ends a complete stream, after the usage chunk."""
        return DONE

    def failed(self) -> bytes:
        """A mid-stream error event (the ``error_event`` fault) and the stream's end after it."""
        return error_frame() + DONE

    def completion(self, visible_from: int) -> dict:
        """The non-streaming response body for everything generated so far."""
        self._visible_from = visible_from
        reasoning_end = min(visible_from + self.reasoning_tokens, self.generated)
        answer = self.generated - reasoning_end
        finish = "length"
        changed = self._changed(visible_from + self.reasoning_tokens)
        message: dict = {
            "role": "assistant",
            "content": token_text(reasoning_end, answer, changed),
        }
        if (planned := self.structured) is not None and self.tool_call is None:
            message["content"] = planned.piece(0, answer)
            finish = "stop" if planned.complete(answer) else "length"
        if self.tool_call is not None and answer > 0:
            call = self.tool_call.message()
            call["function"]["arguments"] = self.tool_call.argument_text(0, answer)
            message, finish = (
                {"role": "assistant", "content": None, "tool_calls": [call]},
                "tool_calls",
            )
        if reasoning_end > visible_from:
            message[self.reasoning_field] = token_text(visible_from, reasoning_end - visible_from)
        return self.with_metrics(
            {
                "id": self.request_id,
                "object": "chat.completion",
                "created": self.created,
                "model": self.model,
                "choices": [
                    {
                        "index": 0,
                        "message": message,
                        "logprobs": None,
                        "finish_reason": finish,
                        "stop_reason": None,
                    }
                ],
                "usage": self.usage(),
            }
        )


def _finish(last: bool) -> str | None:
    return "length" if last else None


class CompletionWriter(ChunkWriter):
    """The frames of ``/v1/completions`` (vLLM's ``completion_stream_generator``).

    No role chunk and no reasoning: each engine output is one ``text_completion`` chunk whose
    ``choices[0].text`` carries its tokens; ``finish_reason`` on the last; then, as for chat,
    the usage chunk (``choices: []``) when ``include_usage`` is set, and ``[DONE]``.
    """

    def _text_chunk(self, choice: dict, completion_tokens: int | None = None) -> dict:
        return self._envelope("text_completion", choice, completion_tokens)

    def role(self) -> bytes:
        return b""

    def tokens(self, count: int, visible_from: int, last: bool) -> bytes:
        start = self.generated
        self.generated += count
        choice = {
            "index": 0,
            "text": token_text(start, count, self._changed(0)),
            "logprobs": None,
            "finish_reason": "length" if last else None,
            "stop_reason": None,
        }
        return frame(self._text_chunk(choice))

    def usage_chunk(self) -> bytes:
        chunk = self._text_chunk({})
        chunk["choices"], chunk["usage"] = [], self.usage()
        return frame(self.with_metrics(chunk))

    def completion(self, visible_from: int) -> dict:
        choice = {
            "index": 0,
            "text": token_text(0, self.generated, self._changed(0)),
            "logprobs": None,
            "finish_reason": "length",
            "stop_reason": None,
        }
        return self.with_metrics({**self._text_chunk(choice), "usage": self.usage()})


def malformed_frame(request_id: str) -> bytes:
    """A ``data: {`` line cut off mid-object: not valid JSON."""
    head = f'data: {{"id":"{request_id}","object":"chat.completion.chunk","choices":[{{'
    return head.encode() + b"\n\n"


def error_frame(message: str = "Internal server error") -> bytes:
    return frame(
        {"error": {"message": message, "type": "InternalServerError", "param": None, "code": 500}}
    )


def error_body(message: str, error_type: str, code: int, param: str | None = None) -> dict:
    """OpenAI-style error object, as vLLM returns it before a stream starts."""
    return {"error": {"message": message, "type": error_type, "param": param, "code": code}}
