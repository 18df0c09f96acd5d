"""The simulator options a load test also sets: defined here once, for ``sparkload sim`` and for
the locustfile's ``--sim-*`` options (``sparkload/config.py`` derives them from this table), and
the engine setup they come to (``effective_setup``), which a run's manifest records.

No server imports: the load side reads it without loading aiohttp.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from sparkload.sim.notes_profiles import BUILDS, DEFAULT_BUDGET, DEFAULT_SPEC
from sparkload.sim.profiles import PROFILES
from sparkload.sim.speculation import parse_spec

FIXED = "fixed"  # fixed timing (tests, reference runs), not a deployment
PROFILE_NAMES = (*PROFILES, *BUILDS, FIXED)


@dataclass(frozen=True)
class SimOption:
    flag: str  # as ``sparkload sim`` spells it; the locustfile prefixes ``--sim-``
    default: Any
    help: str
    choices: tuple[str, ...] | None = None
    type: type = str
    switch: bool = False  # a flag without a value (store_true)
    rate: bool = False  # a share from 0 to 1: 0 is a value, not only "none"
    count: bool = False  # a whole number from 0 (0: none), not from 1


PROFILE = SimOption(
    "--profile",
    "awq-mtp",
    "deployment profile: the quantization report's Qwen3.6-27B variants (fp8, fp8-mtp, awq-mtp, "
    "nvfp4, nvfp4-mtp), the single-Spark notes' Qwen3.8-27B builds (qwen3.8-*), or fixed",
    choices=PROFILE_NAMES,
)
SPEC = SimOption(
    "--spec",
    None,
    f"qwen3.8-* builds: speculative decoding, none | mtp:K | dspark:K (default: {DEFAULT_SPEC})",
)
BUDGET = SimOption(
    "--max-num-batched-tokens",
    None,
    f"qwen3.8-* builds: vLLM's batch token budget (default: {DEFAULT_BUDGET}, vLLM's value on "
    "GB10; dspark:K reserves (K-1) x 256 of it, so K >= 10 needs e.g. 16384)",
    type=int,
)
NO_PREFIX_CACHING = SimOption(
    "--no-prefix-caching",
    False,
    "qwen3.8-* builds: disable the prefix cache (stock vLLM in the notes' speed-up ladder)",
    switch=True,
)
BLOCK_SIZE = SimOption(
    "--block-size",
    None,
    "KV page and prefix-cache granularity in tokens, as vLLM's --block-size (default: the "
    "profile's, 512: the hybrid model's page; 16 is vLLM's for a dense model)",
    type=int,
)
TIME_SCALE = SimOption(
    "--time-scale", 1.0, "run S times faster than real time (figures in simulated time)", type=float
)
# A thinking, tool-calling model's replies, as vLLM streams them with --reasoning-parser qwen3
# --enable-auto-tool-choice --tool-call-parser qwen3_coder. A count's default of None is the
# simulator's own (0): the locustfile's parser of counts takes whole numbers from 1.
REASONING_TOKENS = SimOption(
    "--reasoning-tokens",
    None,
    "stream the first N tokens of every chat answer as reasoning (default: 0, none; a request's "
    "chat_template_kwargs.enable_thinking false turns it off, true without it streams 32)",
    type=int,
    count=True,
)
REASONING_FIELD = SimOption(
    "--reasoning-field",
    "reasoning",
    "the reasoning deltas' field: vLLM's since PR #27752, or the older reasoning_content",
    choices=("reasoning", "reasoning_content"),
)
NO_REASONING_USAGE = SimOption(
    "--no-reasoning-usage",
    False,
    "leave completion_tokens_details.reasoning_tokens out of the usage (a server whose "
    "reasoning tokens a client must count from the deltas)",
    switch=True,
)
TOOL_CALL_RATE = SimOption(
    "--tool-call-rate",
    0.7,
    "share of chat requests with tools and tool_choice auto answered with a tool call, seeded "
    "by --seed (required and a named function: always; none: never)",
    type=float,
    rate=True,
)
TOOL_CALL_ERROR_RATE = SimOption(
    "--tool-call-error-rate",
    0.0,
    "share of tool calls whose arguments are cut short or not JSON",
    type=float,
    rate=True,
)
SCHEMA_ERROR_RATE = SimOption(
    "--schema-error-rate",
    0.0,
    "share of replies to a response_format broken on purpose, seeded by --seed: half not JSON, "
    "half JSON that breaks the schema (the others match it)",
    type=float,
    rate=True,
)
TOOL_PARSER_HOLDBACK = SimOption(
    "--tool-parser-holdback",
    None,
    "with tools in a request, the tool parser holds back the first N tokens of the answer "
    "(content or tool call) and sends them with the next, as qwen3_coder holds its "
    "<tool_call> tag: later first output token, one long chunk gap (default: 0)",
    type=int,
    count=True,
)
OUTPUT_DRIFT = SimOption(
    "--output-drift",
    0.0,
    "share of greedy (temperature 0) replies changed from some token on when admitted beside "
    "other requests (a share exact to one request; alone, a reply never changes): the "
    "simulator's setting for testing output fidelity, not a claim about a model",
    type=float,
    rate=True,
)

ACCURACY = SimOption(
    "--accuracy",
    None,
    "answer the built-in accuracy probes (arithmetic, retrieval) right for this share of items, "
    "seeded by --seed per item: the simulator's setting, not a model's (default: none, filler "
    "replies, a probe scores 0; sim/accuracy.py)",
    type=float,
    rate=True,
)
CATEGORY_ACCEPTANCE = SimOption(
    "--category-acceptance",
    None,
    "CATEGORY=RATE,...: a per-draft acceptance rate (0 to 1) for requests of each category "
    "(their X-Sparkload-Category header, sent for a dataset line's category): each of a verify "
    "step's k drafts accepted in turn at that rate; other requests keep the profile's "
    "acceptance (default: none, every request the profile's)",
)
LORA = SimOption(
    "--lora",
    None,
    "NAME,NAME,...: LoRA adapters served beside the model, each listed by /v1/models with the "
    "model as its parent and asked for by its name, as vLLM's --lora-modules (default: none; "
    "sim/lora.py)",
)
MAX_LORAS = SimOption(
    "--max-loras",
    None,
    "distinct LoRA adapters a batch may hold, as vLLM's --max-loras: a request whose adapter is "
    "in no slot loads it into one no running request's adapter holds, else waits (default: 1)",
    type=int,
)
LORA_SWITCH_MS = SimOption(
    "--lora-switch-ms",
    0.0,
    "milliseconds loading an adapter into a slot costs: the step admitting its request lasts "
    "that much longer (--profile fixed: that request's first token comes that much later)",
    type=float,
)
THERMAL = SimOption(
    "--thermal",
    False,
    "heat each node with its draw and lower its SM clock past 80 °C (steps slower by the "
    "clock's share), over minutes of simulated time; SM clock and temperature served as "
    "dcgm-exporter's gauges beside the power (sim/thermal.py; illustrative numbers)",
    switch=True,
)
SHARED = (
    PROFILE,
    SPEC,
    BUDGET,
    NO_PREFIX_CACHING,
    BLOCK_SIZE,
    TIME_SCALE,
    REASONING_TOKENS,
    REASONING_FIELD,
    NO_REASONING_USAGE,
    TOOL_CALL_RATE,
    TOOL_CALL_ERROR_RATE,
    TOOL_PARSER_HOLDBACK,
    SCHEMA_ERROR_RATE,
    OUTPUT_DRIFT,
    ACCURACY,
    CATEGORY_ACCEPTANCE,
    LORA,
    MAX_LORAS,
    LORA_SWITCH_MS,
    THERMAL,
)


@dataclass(frozen=True)
class EngineSetup:
    """The speculative decoding and batch token budget a simulated engine runs with."""

    spec: str  # none | mtp:K | dspark:K
    max_num_batched_tokens: int


def quantization(profile: str) -> str | None:
    """The weights' format of ``profile``, drafting aside (None for fixed timing, no engine):
    a qwen3.8-* build is its own, a report variant with MTP shares its base's (fp8-mtp: fp8)."""
    if profile == FIXED:
        return None
    return profile if profile in BUILDS else PROFILES[profile].quantization


def effective_setup(
    profile: str, spec: str | None = None, max_num_batched_tokens: int | None = None
) -> EngineSetup | None:
    """What a simulator of ``profile`` runs with, given ``--spec`` and
    ``--max-num-batched-tokens`` (None: not given): a qwen3.8-* build's options or their
    defaults; a report variant's own drafting (MTP, k its draft tokens) and budget. None for
    fixed timing, which has no engine. ValueError for a spec that does not parse or options a
    report variant does not take, KeyError for an unknown profile."""
    if profile == FIXED:
        return None
    if profile in BUILDS:
        budget = DEFAULT_BUDGET if max_num_batched_tokens is None else max_num_batched_tokens
        return EngineSetup(str(parse_spec(spec or DEFAULT_SPEC)), budget)
    if spec is not None or max_num_batched_tokens is not None:
        raise ValueError(
            f"--spec and --max-num-batched-tokens: qwen3.8-* builds only, not {profile}"
        )
    variant = PROFILES[profile]
    drafting = "none" if variant.spec is None else f"mtp:{variant.spec.num_draft_tokens}"
    return EngineSetup(drafting, variant.max_num_batched_tokens)
