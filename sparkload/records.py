"""The results-directory contract: one RequestRecord per request, one manifest per run.

Both halves of sparkload depend on this module and on nothing else of each other: the load side
writes these records, ``analysis`` reads them. Durations are seconds of the client's wall clock
(``time.perf_counter``); when the target is a time-scaled simulator, ``manifest["time_scale"]``
says how to turn them into simulated time (``scale_to_simulated_time``).
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields

SCHEMA_VERSION = 1
REQUESTS_FILE = "requests.jsonl"
MANIFEST_FILE = "manifest.json"
SERVER_METRICS_FILE = "server_metrics.jsonl"

PHASE_WARMUP = "warmup"
PHASE_MEASURE = "measure"
STATUS_OK = "ok"
STATUS_ERROR = "error"

# Failure classes (``error_kind``); HTTP failures are ``http_<code>``, e.g. ``http_500``.
ERROR_CONNECT = "connect"
ERROR_TIMEOUT = "timeout"
ERROR_DISCONNECT = "disconnect"  # stream ended without data: [DONE]
ERROR_MALFORMED_SSE = "malformed_sse"
ERROR_SERVER_EVENT = "server_error_event"  # {"error": ...} inside a 200 stream
ERROR_EMPTY_OUTPUT = "empty_output"
ERROR_CLIENT = "client_error"  # a fault of the load generator itself (always a bug to report)

# Fields measured in seconds (multiplied by the time scale) and in per-second rates (divided).
DURATION_FIELDS = (
    "ttfb",
    "ttft",
    "ttfc",
    "t_last_token",
    "latency",
    "itl",
    "queue_wait",
    "chunk_gap_mean",
    "chunk_gap_p50",
    "chunk_gap_p90",
    "chunk_gap_p99",
    "chunk_gap_max",
)
RATE_FIELDS = ("tps", "decode_tps")


def http_error_kind(status_code: int) -> str:
    return f"http_{status_code}"


@dataclass(slots=True)
class GapSummary:
    """Gaps between token-carrying chunks (vLLM's per-chunk "ITL"), kept compactly."""

    mean: float | None = None
    p50: float | None = None
    p90: float | None = None
    p99: float | None = None
    max: float | None = None


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
    return GapSummary(
        sum(ordered) / len(ordered),
        linear_percentile(ordered, 0.5),
        linear_percentile(ordered, 0.9),
        linear_percentile(ordered, 0.99),
        ordered[-1],
    )


@dataclass(slots=True)
class RequestRecord:
    """Everything one request measured. ``None`` means "not observed", never zero."""

    request_id: str
    level: int  # concurrency C of the ladder level (users running when it was sent)
    level_index: int
    phase: str  # PHASE_WARMUP | PHASE_MEASURE
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
    scheduled_time: float | None = None  # open-loop mode: when the request was due (epoch s)
    queue_wait: float | None = None  # open-loop mode: due → actually sent (waiting for a client)
    chunk_gaps: list[float] | None = None  # the full list, only with --keep-chunk-gaps
    schema: int = SCHEMA_VERSION
    # Derived per-request metrics, filled by ``derive`` (the reports' definitions, in one place).
    itl: float | None = None
    tps: float | None = None
    decode_tps: float | None = None
    extra: dict = field(default_factory=dict)  # workload-specific fields (e.g. asked/received)

    def derive(self) -> RequestRecord:
        """Fill itl/tps/decode_tps from the measured fields.

        itl = (t_last_token − ttft) / (output_tokens − 1): output tokens, not chunks, because one
        MTP chunk carries several tokens. Undefined (None) for a single token, never 0.
        tps = output_tokens / latency (end to end, TTFT included, as the reports use it).
        """
        n = self.output_tokens
        if self.status != STATUS_OK or not n:
            return self
        if self.latency:
            self.tps = n / self.latency
        if n > 1 and self.ttft is not None and self.t_last_token is not None:
            decode = self.t_last_token - self.ttft
            self.itl = decode / (n - 1)
            if decode > 0:
                self.decode_tps = (n - 1) / decode
        return self

    def to_dict(self) -> dict:
        data = {name: getattr(self, name) for name in _FIELD_NAMES}
        if data["chunk_gaps"] is None:
            del data["chunk_gaps"]
        if not data["extra"]:
            del data["extra"]
        return data


_FIELD_NAMES = tuple(f.name for f in fields(RequestRecord))


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
