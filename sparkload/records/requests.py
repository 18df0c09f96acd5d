"""One request's record (a row of requests.parquet; a line of requests.jsonl in earlier
versions): what it measured, the metrics derived from it (``RequestRecord.derive``) and its chunk
gaps, kept compactly."""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from operator import attrgetter

from sparkload.records.vocabulary import (
    DURATION_FIELDS,
    RATE_FIELDS,
    SCHEMA_VERSION,
    STATUS_OK,
    WALL_CLOCK_FIELDS,
)

# A gap this small next to the request's own mean gap is not a decode step: the chunks on either
# side were released together (one read, or one flush split over packets microseconds apart).
BURST_GAP_SHARE = 0.1


@dataclass(slots=True)
class GapSummary:
    """Gaps between token-carrying chunks (vLLM's per-chunk "ITL"), kept compactly.

    ``burst`` is the most chunks that arrived together: a run of consecutive chunks whose gaps are
    each at most ``BURST_GAP_SHARE`` of the request's mean gap (a gap of 0 is one read). A model
    server releases one chunk per decode step; a run of many means something held them back.
    """

    mean: float | None = None
    p50: float | None = None
    p90: float | None = None
    p99: float | None = None
    max: float | None = None
    burst: int | None = None


def linear_percentile(ordered: list[float], q: float) -> float:
    """Percentile ``q`` (0..1) of sorted values, interpolating linearly (numpy's default)."""
    position = q * (len(ordered) - 1)
    low = int(position)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (position - low)


def summarize_gaps(gaps: list[float]) -> GapSummary:
    """Mean, p50/p90/p99 and max of one request's chunk gaps: once per request, after the stream."""
    if not gaps:
        return GapSummary()
    ordered = sorted(gaps)
    mean = sum(ordered) / len(ordered)
    within = BURST_GAP_SHARE * mean
    return GapSummary(
        mean,
        linear_percentile(ordered, 0.5),
        linear_percentile(ordered, 0.9),
        linear_percentile(ordered, 0.99),
        ordered[-1],
        # a steady stream, no gap that small, is a burst of one without walking its gaps
        1 if ordered[0] > within else longest_burst(gaps, within),
    )


def longest_burst(gaps: list[float], within: float) -> int:
    """The most chunks in one run whose consecutive gaps are all ``<= within`` (in arrival
    order; a run of one chunk when no gap is that small)."""
    longest = run = 1
    for gap in gaps:
        run = run + 1 if gap <= within else 1
        if run > longest:
            longest = run
    return longest


@dataclass(slots=True)
class RequestRecord:
    """Everything one request measured. ``None`` means "not observed", never zero."""

    request_id: str
    level: int  # concurrency C of the ladder level (users running when it was sent)
    level_index: int
    phase: str  # PHASE_WARMUP | PHASE_MEASURE | PHASE_BASELINE (a --tenants class alone)
    worker: str  # "local" or the worker index
    user: int
    endpoint: str
    model: str
    prompt_index: int
    max_tokens: int  # output length asked for
    start_time: float  # epoch seconds at send (wall-clock placement only)
    status: str = STATUS_OK
    error_kind: str | None = None
    error: str | None = None
    http_status: int | None = None
    server: str | None = None  # the Server header of a failed response: a proxy's 502 reads as one
    ttfb: float | None = None
    ttft: float | None = None
    ttfc: float | None = None
    t_last_token: float | None = None
    latency: float | None = None
    output_tokens: int | None = None
    tokens_counted_by: str | None = None  # "usage" | "chunks"
    chunks: int = 0
    prompt_tokens: int | None = None
    cached_tokens: int | None = None
    finish_reason: str | None = None
    response_id: str | None = None  # the server's completion id ("chatcmpl-…"), to match its logs
    chunk_gap_mean: float | None = None
    chunk_gap_p50: float | None = None
    chunk_gap_p90: float | None = None
    chunk_gap_p99: float | None = None
    chunk_gap_max: float | None = None
    burst_chunks: int | None = None  # the most token chunks that arrived together (GapSummary)
    scheduled_time: float | None = None  # open-loop mode: when the request was due (epoch s)
    queue_wait: float | None = None  # open-loop mode: due → actually sent (waiting for a client)
    chunk_gaps: list[float] | None = None  # the full list, only with --keep-chunk-gaps
    # Receive stamps were raised to keep time monotonic (a read stamped before the one before it,
    # or before the send: a clock step, or a read that fell back to the read time).
    clock_adjusted: bool = False
    # Sent again on a new connection: the kept-alive one had been closed by the server before
    # any byte of the response (times start at the send that was answered).
    resent: bool = False
    # Seconds the request's connection took to open (name look-up, TCP, TLS) before its bytes
    # left, inside its TTFT: a new connection's (the first, one after a failure, every request of
    # a churn phase); None on a kept-alive connection, and left out of the record's dict then.
    connect_time: float | None = None
    # Seconds taken off the wall-clock fields (WALL_CLOCK_FIELDS) to put them on the master's
    # clock: the sending worker's measured offset (None: not shifted; a local run, or a worker
    # whose offset was not known yet; the manifest's ``workers`` flags that).
    clock_offset: float | None = None
    # A conversation's requests (``--workload conversation``): the session they belong to, this
    # request's turn in it (1-based) and the turns the session was planned with. None for a
    # request that is a session of its own; left out of the record's dict then.
    session_id: str | None = None
    turn: int | None = None
    turns: int | None = None
    # An agent's request (``--workload agent``): the agent session it belongs to (the session's
    # own id at depth 0, else a sub-agent's, which runs inside the session: ``session_id``,
    # ``turn`` and ``turns`` count the whole session, sub-agents included), the agent session
    # that spawned it (None at depth 0) and how deep it is nested (0: the top-level agent).
    agent_session: str | None = None
    parent_session: str | None = None
    depth: int | None = None
    # A thinking model's and an agent's replies (None: not observed; left out of the dict then).
    # TTFO, time to first output token: the first content or tool-call chunk, reasoning excluded
    # (aiperf's and guidellm's name); TTFT stays the first token of any kind.
    ttfo: float | None = None
    t_last_reasoning: float | None = None  # the last reasoning chunk
    reasoning_tokens: int | None = None
    answer_tokens: int | None = None  # output tokens that were not reasoning
    reasoning_counted_by: str | None = None  # COUNTED_BY_USAGE | COUNTED_BY_CHUNKS
    tool_calls: int | None = None  # tool calls the reply streamed
    tool_args_done: float | None = None  # when the last tool call's arguments were complete
    # every tool call's arguments parse as a JSON object (None: no call, or calls truncated)
    tool_args_valid: bool | None = None
    # the reply's tool calls were cut by max_tokens (finish "length"): never valid, counted apart
    tool_args_truncated: bool | None = None
    step: str | None = None  # an agent's request: STEP_TOOL_CALL | STEP_ANSWER
    # what the request asks, as its dataset line names it (coding, math, ...; None: not named)
    category: str | None = None
    # --tenants: the traffic class the request's user was dealt to (None: a run of one class)
    tenant: str | None = None
    # With --response-format: the reply's verdict (STRUCTURED_VERDICTS), never its text; None
    # when no format was asked, or the request failed
    structured: str | None = None
    structured_error: str | None = None  # a parse_error's kind (PARSE_ERROR_KINDS)
    # With --keep-outputs only (outputs may be private): the prompt's key (``prompt_key``, the
    # same prompt's in every run and level), the reply's text (chat content or completions
    # text; reasoning and tool calls not kept) and the characters of each of its text chunks in
    # order (a chunk is a token where the server streams one token a chunk)
    prompt_key: str | None = None
    output_text: str | None = None
    output_chunks: list[int] | None = None
    # The images the request carried (None: none): how many, their encoded bytes (data URLs';
    # an http URL's are not known) and their size "WxH" when all share one known size
    images: int | None = None
    image_bytes: int | None = None
    image_size: str | None = None
    # Inputs the request carried, for an API that sends several a request (``--api embeddings``,
    # ``--batch-size``); None for the APIs that send one prompt
    inputs: int | None = None
    # The server's own figures of this request, where it sent them (vLLM's per-request
    # metrics, ``transport/request_metrics.py``; None where it sent none, never made up):
    # seconds queued (queued → scheduled), to its first token (scheduled → first token, its
    # prefill), generating (first token → last), its mean ITL, and its tokens/s
    server_queue: float | None = None
    server_ttft: float | None = None
    server_generation: float | None = None
    server_itl: float | None = None
    server_tps: float | None = None
    # speculative decoding: tokens per verify step (the bonus token included), accepted drafts
    # / drafts, the histogram (index j: verify steps that accepted exactly j drafts), the
    # verify steps, accepted draft tokens and proposed draft tokens
    acceptance_length: float | None = None
    acceptance_rate: float | None = None
    spec_histogram: list[int] | None = None
    spec_steps: int | None = None
    spec_accepted: int | None = None
    spec_drafts: int | None = None
    schema: int = SCHEMA_VERSION
    # Derived per-request metrics, filled by ``derive`` (the reports' definitions, in one place).
    itl: float | None = None
    tps: float | None = None
    decode_tps: float | None = None
    reasoning_tps: float | None = None  # reasoning decode rate (tokens/s after the first)
    answer_tps: float | None = None  # answer decode rate (tokens/s after TTFO)
    extra: dict = field(default_factory=dict)  # workload-specific fields (e.g. asked/received)

    def derive(self) -> RequestRecord:
        """Fill itl/tps/decode_tps, and a thinking model's reasoning_tps/answer_tps, from the
        measured fields.

        itl = (t_last_token − ttft) / (output_tokens − 1): output tokens, not chunks, because one
        MTP chunk carries several tokens. Undefined (None), never 0, for a single token and where
        no gap was measured: every token in one chunk (a server that sends a whole reply as one
        event) has no time between its first token and its last.
        tps = output_tokens / latency (end to end, TTFT included, as the reports use it).
        reasoning_tps = (reasoning_tokens − 1) / (t_last_reasoning − ttft): the reasoning's own
        decode rate (a thinking model's first token is its reasoning's).
        answer_tps = (answer_tokens − 1) / (t_last_token − ttfo): the answer's decode rate, from
        its first output token. Each is undefined (None, never 0) for fewer than two tokens or
        a span of no time, and for a reply without its start (no TTFO: it never answered).
        """
        n = self.output_tokens
        if self.status != STATUS_OK or not n:
            return self
        if self.latency:
            self.tps = n / self.latency
        if n > 1 and self.ttft is not None and self.t_last_token is not None:
            decode = self.t_last_token - self.ttft
            if decode > 0:
                self.itl = decode / (n - 1)
                self.decode_tps = (n - 1) / decode
        self.reasoning_tps = _rate(self.reasoning_tokens, self.ttft, self.t_last_reasoning)
        self.answer_tps = _rate(self.answer_tokens, self.ttfo, self.t_last_token)
        return self

    def to_dict(self) -> dict:
        data = dict(zip(_FIELD_NAMES, _field_values(self), strict=True))
        for name in OMITTED_WHEN_NONE:
            if data[name] is None:
                del data[name]
        if not data["extra"]:
            del data["extra"]
        return data


def _rate(tokens: int | None, first: float | None, last: float | None) -> float | None:
    """Tokens after the first per second between the first's and the last's chunk (None when
    undefined: fewer than two tokens, a time missing, or no time between them)."""
    if tokens is None or tokens < 2 or first is None or last is None or last <= first:
        return None
    return (tokens - 1) / (last - first)


_FIELD_NAMES = tuple(f.name for f in fields(RequestRecord))
_field_values = attrgetter(*_FIELD_NAMES)  # one C call for every field's value
# Left out of the record's dict while None (a field only some records have: JSON lines stay short)
OMITTED_WHEN_NONE = (
    "chunk_gaps",
    "connect_time",
    "session_id",
    "turn",
    "turns",
    "agent_session",
    "parent_session",
    "depth",
    "ttfo",
    "t_last_reasoning",
    "reasoning_tokens",
    "answer_tokens",
    "reasoning_counted_by",
    "tool_calls",
    "tool_args_done",
    "tool_args_valid",
    "tool_args_truncated",
    "step",
    "category",
    "tenant",
    "structured",
    "structured_error",
    "prompt_key",
    "output_text",
    "output_chunks",
    "images",
    "image_bytes",
    "image_size",
    "inputs",
    "server_queue",
    "server_ttft",
    "server_generation",
    "server_itl",
    "server_tps",
    "acceptance_length",
    "acceptance_rate",
    "spec_histogram",
    "spec_steps",
    "spec_accepted",
    "spec_drafts",
    "reasoning_tps",
    "answer_tps",
)


def scale_to_simulated_time(record: dict, time_scale: float) -> dict:
    """A copy of a record dict in simulated time (a simulator run ``time_scale`` × faster)."""
    if time_scale == 1:
        return record
    out = dict(record)
    for key in DURATION_FIELDS:
        if out.get(key) is not None:
            out[key] = out[key] * time_scale
    for key in RATE_FIELDS:
        if out.get(key) is not None:
            out[key] = out[key] / time_scale
    return out


def on_master_clock(record: dict, offset: float) -> dict:
    """A copy of a worker's record dict with its wall-clock fields on the master's clock
    (``offset``: the worker's clock minus the master's, in seconds), saying so."""
    out = dict(record)
    for key in WALL_CLOCK_FIELDS:
        if out.get(key) is not None:
            out[key] = out[key] - offset
    out["clock_offset"] = offset
    return out
