"""The manifest's entries: what the run was (arrivals, simulator, requests, client, workload,
prompts, servers), what each level's checks found and what each worker said of itself.

Each is an ``Entry`` (``records.codec``): typed fields, unknown keys kept. A field's comment
says when its writer leaves it out; fields the analysis reads are typed, the rest of an open
entry (a workload's own parameters, where prompts came from) stays in ``unknown`` as written.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from sparkload.records.codec import Entry, JSONValue, omitted

TARGET_TIME = "target"  # ``ArrivalEntry.time``: rates and durations in the target's time

# The simulator's speculation and batch budget per profile for manifests that did not record
# them (``SimulatorEntry.spec`` and ``max_num_batched_tokens`` null: the profile's own then): what
# a run on each profile ran with. The manifest writer records the effective values
# (``sparkload.sim.options.effective_setup``), so this table serves only the older manifests and
# never changes; tests/sim holds it to the simulator's defaults.
LEGACY_SIMULATOR_SETUP: dict[str, tuple[str, int]] = {
    "fp8": ("none", 8192),
    "fp8-mtp": ("mtp:3", 8192),
    "awq-mtp": ("mtp:3", 8192),
    "nvfp4": ("none", 2048),
    "nvfp4-mtp": ("mtp:3", 2048),
    "qwen3.8-fp8": ("dspark:7", 2048),
    "qwen3.8-int4": ("dspark:7", 2048),
    "qwen3.8-nvfp4": ("dspark:7", 2048),
}
# Likewise the weights' format per profile, drafting aside, for manifests from before
# ``SimulatorEntry.quantization`` (``sparkload.sim.options.quantization``; tests/sim holds it)
LEGACY_QUANTIZATION: dict[str, str] = {
    "fp8": "fp8",
    "fp8-mtp": "fp8",
    "awq-mtp": "awq",
    "nvfp4": "nvfp4",
    "nvfp4-mtp": "nvfp4",
    **{build: build for build in ("qwen3.8-fp8", "qwen3.8-int4", "qwen3.8-nvfp4")},
}


# ----- what the run was ----------------------------------------------------------------------
@dataclass
class TraceEntry(Entry):
    """A replayed trace file (``--trace``): where it is and what it spans."""

    path: str = ""
    format: str = ""
    sha256: str = ""
    lines: int = 0
    span_s: float = 0.0  # the trace's own seconds
    block_tokens: int | None = None  # tokens per hash block (Mooncake traces)


@dataclass
class ArrivalEntry(Entry):
    """An open loop's plan: rates, users, duration, the arrival process (or a trace)."""

    rates: list[float] = field(default_factory=list)  # one per level (a search's: its probes)
    rate: float | None = omitted()  # the first open-loop manifests: their one rate
    users: int | None = None
    duration: float | None = None
    process: str | None = omitted()  # poisson | gamma | constant (not for a trace)
    burstiness: float | None = omitted()
    trace: TraceEntry | None = omitted()
    speedup: float | None = omitted()  # a trace's replay speed
    # TARGET_TIME: rates and duration in the target's time; absent (before issue 18): rates per
    # real second
    time: str | None = omitted()


@dataclass
class SimulatorEntry(Entry):
    """The simulator a run started, with the speculation and batch budget it ran with."""

    profile: str = ""
    tp: int | None = None
    time_scale: float = 1.0
    spec: str | None = None  # none | mtp:K | dspark:K (None: fixed timing, no engine)
    # the weights' format, drafting aside (fp8-mtp: fp8); written since issue 49
    quantization: str | None = omitted()
    max_num_batched_tokens: int | None = None  # the batch token budget (None: fixed timing)
    prefix_caching: bool = True
    block_size: int | None = None  # --sim-block-size (None: the profile's)
    # how a thinking, tool-calling server answers (written only when the run set them)
    reasoning_tokens: int | None = omitted()  # every answer's first N tokens as reasoning
    reasoning_field: str | None = omitted()  # reasoning | reasoning_content
    reasoning_usage: bool | None = omitted()  # completion_tokens_details.reasoning_tokens sent
    tool_call_rate: float | None = omitted()  # share of tool_choice auto answered by a call
    tool_call_error_rate: float | None = omitted()  # share of calls with broken arguments
    tool_parser_holdback: int | None = omitted()  # tokens a tool parser holds back
    # share of greedy replies changed when batched beside others (written only when set)
    output_drift: float | None = omitted()
    # per-draft acceptance by request category (--sim-category-acceptance; written only when set)
    category_acceptance: dict[str, float] | None = omitted()
    # LoRA adapters served beside the model, the slots that hold them and what loading one
    # costs in ms (--sim-lora, --sim-max-loras, --sim-lora-switch-ms; written only when served)
    lora: list[str] | None = omitted()
    max_loras: int | None = omitted()
    lora_switch_ms: float | None = omitted()

    @classmethod
    def upgraded(cls, data: dict[str, Any]) -> dict[str, Any]:
        """A manifest from before the effective setup was recorded: the profile's defaults of
        that time (``LEGACY_SIMULATOR_SETUP``) where it wrote null, and the weights' format
        (``LEGACY_QUANTIZATION``) where it wrote none."""
        profile = str(data.get("profile"))
        legacy = LEGACY_SIMULATOR_SETUP.get(profile)
        if legacy is None:
            return data
        upgraded = dict(data)
        if not upgraded.get("quantization"):
            upgraded["quantization"] = LEGACY_QUANTIZATION[profile]
        for key, default in zip(("spec", "max_num_batched_tokens"), legacy, strict=True):
            if upgraded.get(key) is None:
                upgraded[key] = default
        return upgraded


@dataclass
class RequestEntry(Entry):
    """How every request was sent (``--api``, ``--extra-body``, ``--header``, ...)."""

    api: str = ""
    extra_body: dict[str, JSONValue] = field(default_factory=dict)
    headers: list[str] = field(default_factory=list)  # names only: values may be secrets
    accept_encoding: str = ""
    cache_bust: bool | None = omitted()  # before it moved here, ``WorkloadEntry.cache_bust``
    # --response-format as sent (OpenAI's response_format, the schema in it); None: not asked
    response_format: dict[str, JSONValue] | None = omitted()


@dataclass
class ReceiveStamps(Entry):
    """How a process timed the packets it received (``sparkload.transport.stamps``)."""

    method: str = ""
    split_ms: float | None = None
    uncertainty_us: float | None = None
    note: str | None = omitted()  # when the method needs a word of explanation


@dataclass
class ClientEntry(Entry):
    """The load generator: a local process or a master and its workers."""

    runner: str = ""  # local | master
    workers: int | None = None
    processes: int | None = None
    receive_stamps: ReceiveStamps | None = omitted()  # a local run's (a master's: its workers')


@dataclass
class Versions(Entry):
    """The versions of what ran the load (other packages an older writer named: unknown)."""

    sparkload: str = ""
    locust: str = ""
    python: str = ""
    geventhttpclient: str | None = omitted()


@dataclass
class HostInfo(Entry):
    """The host that ran the master (or the local process)."""

    hostname: str = ""
    platform: str = ""
    cpus: int | None = None


@dataclass
class WorkloadEntry(Entry):
    """What the run sent: the workload's name and output length; its own parameters (a
    conversation's turns, a prefill probe's sizes, a trace's path) stay in ``unknown``."""

    name: str = ""  # a WORKLOAD_* name ("" in manifests that named none: chat)
    max_tokens: int | None = omitted()
    ignore_eos: bool | None = omitted()
    identical_prompts: bool | None = omitted()  # the prompt-set workloads
    cache_bust: bool | None = omitted()  # the prompt-set workloads


@dataclass
class LengthComponent(Entry):
    """One part of a length distribution (``--seq-dist``)."""

    input_tokens: int = 0
    input_stddev: float = 0.0
    output_tokens: int | None = None  # None: the run's output length
    output_stddev: float = 0.0
    weight: float = 0.0


@dataclass
class PrefixEntry(Entry):
    """The shared prefixes synthetic prompts start with (``--prefix-tokens``)."""

    tokens: int = 0
    count: int = 0
    counted: list[int] = field(default_factory=list)  # each prefix's tokens as counted


@dataclass
class TokenCount(Entry):
    """How synthetic prompts' tokens were counted (its figures stay in ``unknown``)."""

    method: str = ""  # server:/tokenize, tokenizer:PATH, estimate:4-chars


@dataclass
class PromptsEntry(Entry):
    """What the prompts came from. A prompt file gives its path and digest, synthetic prompts
    their generator and seed, a dataset its format (all in ``unknown``); the fields the
    analysis reads are typed, each written only by the sources that have it."""

    count: int | None = omitted()  # prompts in the pool
    input_tokens: int | None = omitted()  # synthetic: each prompt's tokens (null: a distribution)
    token_count: TokenCount | None = omitted()  # synthetic prompts fitted to a token count
    lengths: list[LengthComponent] | None = omitted()
    prefix: PrefixEntry | None = omitted()
    trace: TraceEntry | None = omitted()


@dataclass
class SamplingEntry(Entry):
    """What a request of the run's length carries beside its prompt: ``max_tokens``, and the
    body's other keys as they are (in ``unknown``)."""

    max_tokens: int | None = omitted()


@dataclass
class ServerEntry(Entry):
    """What an endpoint said about itself: identifying headers (its own and the proxies' on the
    way) and its version, where it reports one."""

    headers: dict[str, str] = field(default_factory=dict)
    version: str | None = omitted()
    version_source: str | None = omitted()  # the route that said it (/version, /props)
    # vLLM's GET /server_info (served with VLLM_SERVER_DEV_MODE=1), secrets redacted
    info: dict[str, JSONValue] | None = omitted()
    # what it refused of --reset-prefix-cache and --server-profile, in order
    control: list[ControlRefusal] | None = omitted()


@dataclass
class ControlRefusal(Entry):
    """A server-control call the endpoint refused (``run/servercontrol.py``); the run went on
    without it."""

    action: str  # reset_prefix_cache | start_profile | stop_profile
    level_index: int  # the level it was for
    problem: str  # what came back: a status, a refusal in the body, a connection error


@dataclass
class RepeatEntry(Entry):
    """``--repeat``: this run's place among the runs of one plan, back to back."""

    run: int
    of: int


@dataclass
class RefusedWorker(Entry):
    """A worker the worker token kept out: its messages were ignored."""

    node: str
    hostname: str = ""
    reason: str = ""
    at: str = ""  # UTC time of the refusal


# ----- a level's checks, a worker's clock ------------------------------------------------------
@dataclass
class ClientCheck(Entry):
    """The load generator's self-measurements over a level (``sparkload.clientcheck``)."""

    processes: int = 0
    samples: int = 0
    lagging_share: float | None = None  # None: no samples
    lag_max_ms: float = 0.0
    cpu_pct_max: float = 0.0
    cpu_s: float = 0.0
    runqueue_pct_max: float = 0.0


@dataclass
class StreamCheck(Entry):
    """A level's stream-shape figures (``sparkload.streamcheck``): medians over its answered
    requests, written only when it had one."""

    requests: int = 0
    chunk_gap_p50_ms: float | None = omitted()
    ttft_share_of_latency: float | None = omitted()
    ttft_minus_ttfb_ms: float | None = omitted()
    ttft_minus_ttfb_share: float | None = omitted()
    tail_ms: float | None = omitted()
    itl_ms: float | None = omitted()
    burst_chunks: int | None = omitted()
    burst_of_chunks: int | None = omitted()
    burst_cause: str | None = omitted()  # a burst flag's: streamcheck.CAUSE_*
    clock_adjusted: int | None = omitted()
    resent: int | None = omitted()


@dataclass
class Schedule(Entry):
    """An open-loop level's whole seeded schedule, sent or not (``schedule_summary``)."""

    arrivals: int = 0
    gap_cv: float | None = None  # the coefficient of variation of its gaps (None: < 2 arrivals)


@dataclass
class ClockReading(Entry):
    """One measured offset of a worker's clock (the worker's minus the master's, seconds)."""

    at: str | int  # "start" or a level index
    offset: float
    rtt: float  # the round trip that bounds it (within half of it)


@dataclass
class SecretNames(Entry):
    """What a worker held of its own secrets: whether a key, and header names (never values)."""

    api_key: bool = False
    headers: list[str] = field(default_factory=list)
