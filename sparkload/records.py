"""The results-directory contract: one RequestRecord per request, one manifest per run.

Both halves of sparkload depend on this module and on nothing else of each other: the load side
writes these records, ``analysis`` reads them. Durations are seconds between the kernel's receive
stamps of the response's packets and the request's send time, all on ``time.time_ns()``'s clock;
when the target is a time-scaled simulator, ``Manifest.time_scale`` says how to turn them into
simulated time (``scale_to_simulated_time``).
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path
from typing import Any

SCHEMA_VERSION = 1

# Exit codes of every entry point (the locustfile, ``sparkload`` and its subcommands, and
# ``python -m analysis``, whose ``--check`` code the load side passes on): the same numbers on
# both sides of the contract.
EXIT_OK = 0
EXIT_REQUESTS_FAILED = 1  # Locust's own rule: some request failed
EXIT_BAD_INPUT = 2  # one line on stderr, nothing sent
EXIT_ABORTED = 3  # the run had to stop early (e.g. a worker was lost); its records are kept
EXIT_CHECK_FAILED = 4  # --check: a level breached a service level
EXIT_INTERRUPTED = 130  # Ctrl-C (the shell's convention)

# Workload names (``Manifest.workload["name"]``): what each run sent, as the analysis groups it.
WORKLOAD_CHAT, WORKLOAD_FRESH, WORKLOAD_EDIT = "chat", "fresh", "edit"
WORKLOAD_PREFILL, WORKLOAD_CONVERSATION = "prefill", "conversation"
WORKLOAD_NAMES = (
    WORKLOAD_CHAT,
    WORKLOAD_FRESH,
    WORKLOAD_EDIT,
    WORKLOAD_PREFILL,
    WORKLOAD_CONVERSATION,
)
WORKLOAD_TRACE = "trace"  # chosen by --trace, not by --workload
REQUESTS_FILE = "requests.jsonl"
MANIFEST_FILE = "manifest.json"
SERVER_METRICS_FILE = "server_metrics.jsonl"

PHASE_WARMUP = "warmup"
PHASE_MEASURE = "measure"
STATUS_OK = "ok"
STATUS_ERROR = "error"

# Run status (``Manifest.status``)
STATUS_RUNNING = "running"
STATUS_COMPLETE = "complete"
STATUS_STOPPED = "stopped"  # stopped by the user (Ctrl-C, SIGTERM, the web UI's STOP)
STATUS_ABORTED = "aborted"  # the plan could not be finished (e.g. a worker was lost)

# Failure classes (``error_kind``); HTTP failures are ``http_<code>``, e.g. ``http_500``.
ERROR_CONNECT = "connect"
ERROR_TIMEOUT = "timeout"
ERROR_DISCONNECT = "disconnect"  # stream ended without data: [DONE]
ERROR_MALFORMED_SSE = "malformed_sse"
ERROR_SERVER_EVENT = "server_error_event"  # {"error": ...} inside a 200 stream
ERROR_EMPTY_OUTPUT = "empty_output"
ERROR_CLIENT = "client_error"  # a fault of the load generator itself (always a bug to report)

# What a level's stream check can say (``LevelEntry.stream_flag_kinds``; ``sparkload.streamcheck``
# decides). The first two mean TTFT and ITL measure an intermediary's buffering, not the model
# server: ``--check`` fails such a level by default. The others qualify a figure but keep it.
STREAM_COLLAPSED = "collapsed"
STREAM_PARTIAL_BURST = "partial_burst"
STREAM_HEADERS_HELD = "headers_held"
STREAM_LONG_TAIL = "long_tail"
STREAM_CLOCK_ADJUSTED = "clock_adjusted"
STREAM_MEANINGLESS = (STREAM_COLLAPSED, STREAM_PARTIAL_BURST)

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
# Fields that are wall-clock times (epoch seconds): on the master's clock once the master took the
# record (shifted by the sending worker's clock offset, ``RequestRecord.clock_offset``).
WALL_CLOCK_FIELDS = ("start_time", "scheduled_time")


@dataclass(frozen=True)
class TelemetryFamily:
    """A Prometheus family of node telemetry that a snapshot in server_metrics.jsonl may carry.

    ``name`` is the family as exposed (a counter's samples add ``_total``); ``scale`` turns its
    values into the quantity's unit: joules, watts, MHz, degrees Celsius, percent, seconds or
    bytes."""

    name: str
    quantity: str
    scale: float = 1.0


# Quantities of node telemetry (``TelemetryFamily.quantity``).
ENERGY = "energy_j"  # a counter: the delta over a level is its energy
POWER = "power_w"  # a gauge: integrated over the level's samples when no counter is there
SM_CLOCK = "sm_clock_mhz"
SM_CLOCK_MAX = "sm_clock_max_mhz"
TEMPERATURE = "temperature_c"
GPU_UTIL = "gpu_util_pct"
CPU_SECONDS = "cpu_seconds"  # node_exporter's per-CPU, per-mode counter (label ``mode``)
CPU_BUSY = "cpu_busy_pct"
MEMORY_USED = "memory_used_bytes"
MEMORY_TOTAL = "memory_total_bytes"
MEMORY_AVAILABLE = "memory_available_bytes"

# Every family the scraper keeps beside ``vllm:``, in order of preference within a quantity:
# dcgm-exporter's DCGM fields (power in W, energy in mJ since boot), ``sparkload node-exporter``
# (nvidia-smi once a second, energy integrated there), node_exporter's hwmon, cpu and meminfo
# collectors. Written by ``sparkload.run.scrape`` and ``sparkload node-exporter``, read by
# ``analysis/telemetry.py``.
TELEMETRY = (
    TelemetryFamily("DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION", ENERGY, 1e-3),
    TelemetryFamily("sparkload_gpu_energy_joules", ENERGY),
    TelemetryFamily("node_hwmon_energy_joule", ENERGY),
    TelemetryFamily("DCGM_FI_DEV_POWER_USAGE", POWER),
    TelemetryFamily("sparkload_gpu_power_watts", POWER),
    TelemetryFamily("node_hwmon_power_average_watt", POWER),
    TelemetryFamily("node_hwmon_power_input_watt", POWER),
    TelemetryFamily("DCGM_FI_DEV_SM_CLOCK", SM_CLOCK),
    TelemetryFamily("sparkload_gpu_sm_clock_mhz", SM_CLOCK),
    TelemetryFamily("DCGM_FI_DEV_MAX_SM_CLOCK", SM_CLOCK_MAX),
    TelemetryFamily("sparkload_gpu_sm_clock_max_mhz", SM_CLOCK_MAX),
    TelemetryFamily("DCGM_FI_DEV_GPU_TEMP", TEMPERATURE),
    TelemetryFamily("sparkload_gpu_temperature_celsius", TEMPERATURE),
    TelemetryFamily("node_hwmon_temp_celsius", TEMPERATURE),
    TelemetryFamily("DCGM_FI_DEV_GPU_UTIL", GPU_UTIL),
    TelemetryFamily("sparkload_gpu_utilization_percent", GPU_UTIL),
    TelemetryFamily("sparkload_host_cpu_busy_percent", CPU_BUSY),
    TelemetryFamily("node_cpu_seconds", CPU_SECONDS),
    TelemetryFamily("sparkload_host_memory_used_bytes", MEMORY_USED),
    TelemetryFamily("sparkload_host_memory_total_bytes", MEMORY_TOTAL),
    TelemetryFamily("node_memory_MemTotal_bytes", MEMORY_TOTAL),
    TelemetryFamily("node_memory_MemAvailable_bytes", MEMORY_AVAILABLE),
)


def telemetry_family(sample_name: str) -> TelemetryFamily | None:
    """The telemetry family a sample (or exposition line) belongs to, or None."""
    return _TELEMETRY_BY_NAME.get(sample_name.removesuffix("_total").removesuffix("_created"))


_TELEMETRY_BY_NAME = {family.name: family for family in TELEMETRY}


def http_error_kind(status_code: int) -> str:
    return f"http_{status_code}"


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
    return GapSummary(
        mean,
        linear_percentile(ordered, 0.5),
        linear_percentile(ordered, 0.9),
        linear_percentile(ordered, 0.99),
        ordered[-1],
        longest_burst(gaps, BURST_GAP_SHARE * mean),
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
        for name in _OMITTED_WHEN_NONE:
            if data[name] is None:
                del data[name]
        if not data["extra"]:
            del data["extra"]
        return data


_FIELD_NAMES = tuple(f.name for f in fields(RequestRecord))
_OMITTED_WHEN_NONE = ("chunk_gaps", "session_id", "turn", "turns")


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


@dataclass
class LevelEntry:
    """One level of a run as the manifest keeps it: its plan, its timing and its checks."""

    index: int
    concurrency: int
    expected: int | None  # measured requests the plan asks for (None: time-based / open loop)
    started_at: str
    ended_at: str | None = None
    received: int = 0
    client: dict[str, Any] = field(default_factory=dict)  # the load generator's self-measurements
    client_flags: list[str] = field(default_factory=list)
    stream: dict[str, Any] = field(default_factory=dict)  # stream-shape figures of the level
    stream_flags: list[str] = field(default_factory=list)  # what the stream shape says of the path
    stream_flag_kinds: list[str] = field(default_factory=list)  # STREAM_* of each, in order
    arrival_rate: float | None = None  # open loop: the offered rate of this level (requests/s)
    # What showed the level over-saturated (None: nothing did); an open-loop level's arrivals
    # then stopped early unless --no-saturation-stop, a ladder level is only flagged
    saturation: str | None = None
    unsent: int = 0  # open loop: arrivals of its schedule never sent (stopped early)
    # open loop: its whole seeded schedule, sent or not: {"arrivals", "gap_cv"}
    schedule: dict[str, Any] = field(default_factory=dict)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> LevelEntry:
        return cls(**_known(cls, data))


@dataclass
class WorkerEntry:
    """One worker of a distributed run as the master saw it: who, its clock, how it timed.

    Clock offsets are the worker's wall clock minus the master's, in seconds, each measured by
    round trips over Locust's messaging (the shortest round trip's estimate, within half that
    round trip) at the run's start and at every level's start. Durations never use them: each
    is measured on one host's clock."""

    node: str  # Locust's client id: the worker's hostname and a random part
    index: int  # the ``worker`` field of its records
    hostname: str = ""
    clock_offset: float | None = None  # the latest reading (None: never measured)
    clock_rtt: float | None = None  # the round trip of that reading
    clock_readings: list[dict[str, Any]] = field(default_factory=list)  # {"at", "offset", "rtt"}
    clock_flags: list[str] = field(default_factory=list)  # offset unknown, or it moved
    receive_stamps: dict[str, Any] = field(default_factory=dict)  # sparkload.transport.stamps's
    secrets: dict[str, Any] = field(default_factory=dict)  # its own: a key or not, header names

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> WorkerEntry:
        return cls(**_known(cls, data))


@dataclass
class Manifest:
    """What a run was (target, plan, workload, versions) and how far it got: manifest.json.

    Written only by the load side's run controller, read through ``read_manifest`` by the
    analysis and the matrix runner. Fields unknown to this version are kept in ``unknown`` and
    written back, so an older reader never drops what a newer writer recorded.
    """

    label: str
    schema: int = SCHEMA_VERSION
    variant: str | None = None
    tp: int | None = None
    nodes: int | None = None
    endpoints: list[str] = field(default_factory=list)
    model: str = ""
    mode: str = "ladder"  # ladder | steps | arrival
    ladder: list[int] = field(default_factory=list)
    requests_per_user: int | None = None
    warmup_requests_per_level: int = 0
    step_duration: float | None = None
    # open loop: rates, users, duration, process and burstiness (or trace and speedup); with
    # "time": "target" the rates and duration are the target's time (before: real-time rates)
    arrival: dict[str, Any] | None = None
    slice_duration: float | None = None  # --slice-duration: report windows, target seconds
    # The capacity search's answer: {"bounds", "over": "concurrency" | "rate", "capacity" (None:
    # no probe met the bounds), "probes": [{"level_index", "value", "meets", "figures": {bound:
    # statistic}, "breaches": [...]}], "limit" (the smallest breaking probe above the capacity,
    # None: none), "complete" (False while searching, or when the run stopped first)}
    capacity: dict[str, Any] | None = None
    # A rate sweep stopped at an over-saturated level: its index (later rates were not run)
    saturated_at: int | None = None
    workload: dict[str, Any] = field(default_factory=dict)
    prompts: dict[str, Any] = field(default_factory=dict)
    sampling: dict[str, Any] = field(default_factory=dict)
    seed: int = 0
    request_timeout: float | None = None
    simulator: dict[str, Any] | None = None
    time_scale: float = 1.0
    versions: dict[str, Any] = field(default_factory=dict)
    host_info: dict[str, Any] = field(default_factory=dict)
    client: dict[str, Any] = field(default_factory=dict)
    request: dict[str, Any] = field(default_factory=dict)  # api, extra body, header names, ...
    servers: dict[str, dict[str, Any]] = field(default_factory=dict)  # endpoint -> version, headers
    # Prometheus endpoints scraped into server_metrics.jsonl: node name -> URL (the API
    # endpoints' /metrics as "api" / "api-N", then every --scrape NAME=URL)
    scrape: dict[str, str] = field(default_factory=dict)
    metadata: dict[str, str] = field(default_factory=dict)  # the user's --metadata KEY=VALUE
    repeat: dict[str, int] | None = None  # --repeat: {"run": k, "of": n}, runs back to back
    command: list[str] = field(default_factory=list)  # argv, secrets hidden
    started_at: str = ""
    ended_at: str | None = None
    status: str = STATUS_RUNNING
    abort_reason: str | None = None
    levels: list[LevelEntry] = field(default_factory=list)
    # distributed runs: every worker admitted, and every one refused at the worker token
    # ({"node", "reason", "at"}), whose messages were ignored
    workers: list[WorkerEntry] = field(default_factory=list)
    refused_workers: list[dict[str, Any]] = field(default_factory=list)
    unknown: dict[str, Any] = field(default_factory=dict)

    @property
    def workload_name(self) -> str:
        return str(self.workload.get("name") or "chat")

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Manifest:
        """Any manifest sparkload ever wrote; older ones lack fields and get their defaults."""
        known = _known(cls, data)
        known["label"] = str(known.get("label") or "")
        known["levels"] = [
            LevelEntry.from_dict(x) for x in data.get("levels") or [] if isinstance(x, dict)
        ]
        known["workers"] = [
            WorkerEntry.from_dict(x) for x in data.get("workers") or [] if isinstance(x, dict)
        ]
        if isinstance(known.get("workload"), str):  # the first manifests named the workload only
            known["workload"] = {"name": known["workload"]}
        if isinstance(known.get("command"), str):
            known["command"] = known["command"].split()
        names = {f.name for f in fields(cls)}
        known["unknown"] = {k: v for k, v in data.items() if k not in names}
        return cls(**known)

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data.update(data.pop("unknown"))
        return data


def read_manifest(run_dir: Path) -> Manifest:
    """The manifest of a run directory; ``OSError`` / ``ValueError`` when it is missing or bad."""
    data = json.loads((Path(run_dir) / MANIFEST_FILE).read_text(encoding="utf-8"))
    if not isinstance(data, dict):
        raise ValueError(f"{MANIFEST_FILE} is not a JSON object")
    return Manifest.from_dict(data)


def _known(cls: type, data: dict[str, Any]) -> dict[str, Any]:
    names = {f.name for f in fields(cls)} - {"unknown"}
    return {k: v for k, v in data.items() if k in names}
