"""The tally of one streamed reply, whatever API sent it (pure: times in, counts out).

Each API's stream reader (``sparkload/apis/``) decodes its own events and feeds this tally
what they carried: answer text, reasoning, tool-call deltas, the usage and the finish reason.
The rules of what counts are written here once, for every API:

- a token-carrying event is one ``note_token`` (TTFT: the first; the gaps between them; the
  last one's time);
- the TTFO rule (``note_output``): the time to first output is the first answer text or
  tool-call delta; reasoning is not output. A reply that never leaves its reasoning has no TTFO
  (None), never a made-up one;
- the reasoning rule (``note_reasoning``): reasoning events are counted apart and the last
  one's time kept; the count from events is the fallback when the server's usage counts none.

The usage is kept in chat's names (``prompt_tokens``, ``completion_tokens`` and their details):
a reader of another API translates its usage before it hands it over, so that every count and
record field is read by one code path.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import ClassVar

import orjson

from sparkload.records import COUNTED_BY_CHUNKS, COUNTED_BY_USAGE, FINISH_LENGTH


@dataclass(slots=True)
class ToolCall:
    """One tool call of a reply, assembled from its deltas (in OpenAI's chat form: the first
    delta of an ``index`` names the call, the later ones add fragments of its JSON
    ``arguments``; other APIs' readers assemble it from their own events)."""

    index: int
    id: str | None = None
    name: str = ""
    arguments: str = ""  # as streamed: parse it to use it (it may not be valid JSON)
    # a delta of this call broke the form (its arguments not a string): ``arguments`` is then
    # not all the server sent, and the call's arguments do not count as valid
    malformed: bool = False

    @property
    def arguments_valid(self) -> bool:
        """The arguments parse as a JSON object (an empty string does not)."""
        if self.malformed:
            return False
        try:
            return isinstance(orjson.loads(self.arguments), dict)
        except orjson.JSONDecodeError:
            return False


@dataclass(slots=True)
class Reply:
    """What a workload gets back of a reply it asked for (``PlannedRequest.wants_reply``): the
    answer's text (piece by piece) and the tool calls; never the reasoning."""

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


class ReplyTally:
    """Timing and token accounting of one stream; times are seconds since the request was sent.

    A subclass per API reads that API's events (``feed``) and reports what each carried with the
    ``note_*`` methods. ``reply``, when given, also keeps the answer's text and the tool calls
    (for a workload that asked for them); without it nothing of the text is kept.

    A reply with tool calls that ended at max_tokens (finish ``length``) is truncated: its
    arguments are cut, never valid (``tool_args_valid`` None, ``tool_args_truncated`` True).
    """

    __slots__ = (
        "chunks",
        "done",
        "finish_reason",
        "gaps",
        "metrics",
        "reasoning_chunks",
        "reply",
        "response_id",
        "t_done",
        "t_last_reasoning",
        "t_last_token",
        "t_tool_args",
        "tool_calls",
        "ttfc",
        "ttfo",
        "ttft",
        "usage",
    )
    ending: ClassVar[str]  # what ends a complete stream, named by the failure of its absence

    def __init__(self, reply: Reply | None = None) -> None:
        self.ttft: float | None = None
        self.ttfc: float | None = None  # the first answer text
        self.ttfo: float | None = None  # the first output (answer text or tool-call delta)
        self.t_last_token: float | None = None
        self.reasoning_chunks = 0
        self.t_last_reasoning: float | None = None
        self.reply = reply
        # assembled by the reader, into the reply's own list when one is kept
        self.tool_calls: list[ToolCall] = [] if reply is None else reply.tool_calls
        self.t_tool_args: float | None = None  # the last tool-call delta
        self.chunks = 0
        self.gaps: list[float] = []
        self.usage: dict | None = None  # in chat's names
        self.metrics: object = None  # the server's per-request figures (``request_metrics``)
        self.finish_reason: str | None = None
        self.done = False
        self.t_done: float | None = None  # when the stream's ending arrived
        self.response_id: str | None = None  # the server's id of the reply, to match its logs

    def feed(self, data: bytes, now: float) -> bool:
        """Take one SSE ``data`` payload received at ``now`` (seconds since the request was
        sent); True once the stream's ending arrived. A ``StreamError`` for a broken rule."""
        raise NotImplementedError

    def note_token(self, now: float, text: object = None) -> None:
        """A token-carrying event at ``now`` (answer, reasoning or tool call alike); ``text``:
        the answer text it carried, if any (the first is output: ``note_output``). Text that is
        not a string (a misbehaving server's) times the event but is not kept as the reply's.
        One method for both, not two: this runs once per streamed event (the hot path)."""
        if self.t_last_token is None:
            self.ttft = now
        else:
            self.gaps.append(now - self.t_last_token)
        self.t_last_token = now
        self.chunks += 1
        if text:
            if self.ttfc is None:
                self.ttfc = now
                self.note_output(now)
            if self.reply is not None and isinstance(text, str):
                self.reply.text.append(text)

    def note_output(self, now: float) -> None:
        """The TTFO rule: the first answer text or tool-call delta is the first output."""
        if self.ttfo is None:
            self.ttfo = now

    def note_tool_delta(self, now: float) -> None:
        """A tool-call delta at ``now`` (its token noted by the reader): output, and the latest
        time the calls' arguments were complete."""
        self.note_output(now)
        self.t_tool_args = now

    def call_at(self, index: object) -> ToolCall:
        """The tool call of output item (or content block) ``index``: appended when it starts
        one; a missing index continues the last call (APIs that number their calls by the
        reply's items: Responses, Messages)."""
        calls = self.tool_calls
        if not isinstance(index, int) or isinstance(index, bool):
            if calls:
                return calls[-1]
            index = 0
        for call in calls:
            if call.index == index:
                return call
        call = ToolCall(index)
        calls.append(call)
        return call

    def note_reasoning(self, now: float) -> None:
        """The reasoning rule: a reasoning event at ``now`` (its token noted by the reader) is
        counted apart, and the last one's time kept."""
        self.reasoning_chunks += 1
        self.t_last_reasoning = now

    @property
    def output_tokens(self) -> tuple[int | None, str | None]:
        """Tokens generated, and who counted them: the server's usage, else our chunk count (an
        API that generates none, embeddings, says (None, None))."""
        if self.usage and isinstance(self.usage.get("completion_tokens"), int):
            return self.usage["completion_tokens"], COUNTED_BY_USAGE
        return self.chunks, COUNTED_BY_CHUNKS

    @property
    def reasoning_tokens(self) -> tuple[int | None, str | None]:
        """Reasoning tokens, and who counted them; (None, None) for a reply that streamed no
        reasoning and whose usage counts none (not a thinking model's reply).

        The server's count (``usage.completion_tokens_details.reasoning_tokens``) where it gives
        one; else the reasoning chunks, one token each. With MTP (speculative decoding) one
        chunk can hold several tokens, so a count from chunks is then a lower bound. A usage
        that says 0 while reasoning streamed is a placeholder (a proxy that fills the field in),
        not a count: the chunks are counted then.
        """
        details = self.usage.get("completion_tokens_details") if self.usage else None
        counted = details.get("reasoning_tokens") if isinstance(details, dict) else None
        is_count = isinstance(counted, int) and not isinstance(counted, bool) and counted >= 0
        if is_count and (counted or not self.reasoning_chunks):
            return counted, COUNTED_BY_USAGE
        if self.reasoning_chunks:
            return self.reasoning_chunks, COUNTED_BY_CHUNKS
        return None, None

    @property
    def answer_tokens(self) -> int | None:
        """Output tokens that were not reasoning (None where reasoning was not counted)."""
        reasoning, _ = self.reasoning_tokens
        output, _ = self.output_tokens
        return None if reasoning is None or output is None else max(output - reasoning, 0)

    @property
    def tool_args_truncated(self) -> bool | None:
        """Whether the reply's tool calls were cut by max_tokens (None: no tool call)."""
        if not self.tool_calls:
            return None
        return self.finish_reason == FINISH_LENGTH

    @property
    def tool_args_valid(self) -> bool | None:
        """Whether every tool call's arguments parse as a JSON object (None: no tool call, or
        calls cut by max_tokens: truncated, neither valid nor invalid)."""
        if not self.tool_calls or self.tool_args_truncated:
            return None
        return all(call.arguments_valid for call in self.tool_calls)

    @property
    def prompt_tokens(self) -> int | None:
        return self.usage.get("prompt_tokens") if self.usage else None

    @property
    def cached_tokens(self) -> int | None:
        details = self.usage.get("prompt_tokens_details") if self.usage else None
        return details.get("cached_tokens") if isinstance(details, dict) else None
