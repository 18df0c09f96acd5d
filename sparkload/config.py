"""Every sparkload option, defined once: flag, default, help, group, environment name, parser.

``OPTIONS`` is the single source. From it come Locust's command-line, ``locust.conf``,
environment (``SPARKLOAD_<OPTION>``) and web-UI options (``sparkload.plugin.options``), the
validated ``RunOptions`` of a run (``from_namespace``), the keys a matrix file may set
(``matrix/spec.py``), the locustfile's ``--sim-*`` options (from the simulator's own table,
``sim/options.py``) and the environment docker-compose passes through (``environment_names``; a
test holds the compose file to it). Values from the web UI arrive as strings, so each option's
``parse`` validates whatever the source. What a workload makes of the options (prefill's own
ladder, the output length) is the workload's: ``sparkload.workloads.registry.settle``.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from sparkload.errors import ConfigError
from sparkload.paths import DEFAULT_PROMPTS
from sparkload.records import (
    WORKLOAD_CHAT,
    WORKLOAD_CONVERSATION,
    WORKLOAD_EDIT,
    WORKLOAD_FRESH,
    WORKLOAD_NAMES,
    WORKLOAD_PREFILL,
)
from sparkload.sim import options as sim_options
from sparkload.sim.speculation import parse_spec
from sparkload.transport.stream import API_CHAT, API_COMPLETIONS
from sparkload.workloads.lengths import Component, parse_seq_dist

SIM_PROFILES = sim_options.PROFILE_NAMES
IGNORE_EOS_CHOICES = ("auto", "yes", "no")
APIS = (API_CHAT, API_COMPLETIONS)
CONTENT_CODINGS = ("identity", "gzip", "deflate", "br")
POISSON, CONSTANT, GAMMA = "poisson", "constant", "gamma"
ARRIVAL_PROCESSES = (POISSON, CONSTANT, GAMMA)
# each workload's own output length (a conversation's: per turn), when --max-tokens is not given
OUTPUT_TOKENS = {
    WORKLOAD_CHAT: 128,
    WORKLOAD_FRESH: 400,
    WORKLOAD_EDIT: 3000,
    WORKLOAD_PREFILL: 1,
    WORKLOAD_CONVERSATION: 128,
}
HISTORY_MODEL, HISTORY_DATASET = "model", "dataset"  # --history: whose replies a turn carries
HISTORIES = (HISTORY_MODEL, HISTORY_DATASET)

Parse = Callable[[str, Any], Any]


# ----- value parsers: (flag, raw value) -> value, or ConfigError naming the flag ---------------
def whole(flag: str, value: Any) -> int:
    """A whole number >= 1."""
    try:
        number = int(str(value).strip())
    except ValueError:
        raise ConfigError(f"{flag}: {value!r} is not a whole number") from None
    if number < 1:
        raise ConfigError(f"{flag}: {value!r} must be 1 or more")
    return number


def integer(flag: str, value: Any) -> int:
    try:
        return int(str(value).strip())
    except ValueError:
        raise ConfigError(f"{flag}: {value!r} is not a whole number") from None


def non_negative(flag: str, value: Any) -> float:
    try:
        number = float(str(value).strip())
    except ValueError:
        raise ConfigError(f"{flag}: {value!r} is not a number") from None
    if not 0 <= number < math.inf:
        raise ConfigError(f"{flag}: {value!r} must be a finite number >= 0")
    return number


def positive(flag: str, value: Any) -> float:
    number = non_negative(flag, value)
    if number == 0:
        raise ConfigError(f"{flag}: must be more than 0")
    return number


def text(_flag: str, value: Any) -> str:
    return str(value or "").strip()


def boolean(_flag: str, value: Any) -> bool:
    if isinstance(value, bool):
        return value
    return str(value).strip().lower() in ("1", "true", "yes", "on")


def path(_flag: str, value: Any) -> Path:
    return Path(os.path.expanduser(str(value)))


def rates(flag: str, value: Any) -> tuple[float, ...]:
    """Comma-separated rates >= 0; a single 0 means none (closed loop)."""
    parts = value if isinstance(value, list | tuple) else str(value).split(",")
    found = tuple(non_negative(flag, part) for part in parts if str(part).strip())
    if len(found) > 1 and not all(found):
        raise ConfigError(f"{flag}: every rate of a sweep must be more than 0")
    return found if any(found) else ()


def optional_whole(flag: str, value: Any) -> int | None:
    """A whole number >= 1, or None (not given)."""
    return None if value is None or str(value).strip() == "" else whole(flag, value)


def levels(flag: str, value: Any) -> tuple[int, ...]:
    """Comma-separated whole numbers (a YAML list is accepted too)."""
    parts = value if isinstance(value, list | tuple) else str(value or "").split(",")
    if not any(str(part).strip() for part in parts):
        raise ConfigError(f"{flag}: give at least one level, e.g. 1,2,4,8,16")
    return tuple(whole(flag, part) for part in parts)


def optional_path(_flag: str, value: Any) -> Path | None:
    """A path, or None (not given)."""
    return None if value is None or str(value).strip() == "" else path(_flag, value)


def urls(_flag: str, value: Any) -> tuple[str, ...]:
    parts = value if isinstance(value, list | tuple) else str(value or "").split(",")
    return tuple(str(url).strip() for url in parts if str(url).strip())


def optional_number(flag: str, value: Any) -> float | None:
    """A finite number, or None (not given)."""
    if value is None or str(value).strip() == "":
        return None
    try:
        number = float(str(value).strip())
    except ValueError:
        raise ConfigError(f"{flag}: {value!r} is not a number") from None
    if not math.isfinite(number):
        raise ConfigError(f"{flag}: {value!r} must be a finite number")
    return number


def json_object(flag: str, value: Any) -> dict[str, Any]:
    """A JSON object (``'{"temperature": 0}'``); a dict from a matrix file is taken as it is."""
    if isinstance(value, dict):
        return dict(value)
    text = str(value or "").strip()
    if not text:
        return {}
    try:
        data = json.loads(text)
    except ValueError as exc:
        raise ConfigError(f"{flag}: not valid JSON ({exc})") from None
    if not isinstance(data, dict):
        raise ConfigError(f"{flag}: give a JSON object, e.g. '{{\"temperature\": 0}}'")
    return data


def _pairs(value: Any) -> list[str]:
    """A repeatable option's values: a list (command line) or one string (env, web form)."""
    if isinstance(value, list | tuple):
        return [str(item) for item in value if str(item).strip()]
    return [str(value)] if str(value or "").strip() else []


def headers(flag: str, value: Any) -> dict[str, str]:
    """``Name: value`` pairs. The values are never shown: they may be secrets."""
    out: dict[str, str] = {}
    for pair in _pairs(value):
        name, colon, header_value = pair.partition(":")
        if not colon or not name.strip():
            raise ConfigError(f"{flag}: give 'Name: value' (the value is not shown here)")
        out[name.strip()] = header_value.strip()
    return out


def key_values(flag: str, value: Any) -> dict[str, str]:
    """``KEY=VALUE`` pairs (a mapping from a matrix file is taken as it is)."""
    if isinstance(value, dict):
        return {str(k): str(v) for k, v in value.items()}
    out: dict[str, str] = {}
    for pair in _pairs(value):
        key, equals, item = pair.partition("=")
        if not equals or not key.strip():
            raise ConfigError(f"{flag}: {pair!r} is not KEY=VALUE")
        out[key.strip()] = item.strip()
    return out


_NODE_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]*")


def scrape_targets(flag: str, value: Any) -> dict[str, str]:
    """``NAME=URL`` per node (repeatable, or comma-separated in one value; a mapping from a
    matrix file): a Prometheus endpoint to read beside the target's. A URL without a path gets
    ``/metrics``; credentials in a URL are refused, as the manifest keeps the URLs."""
    if isinstance(value, dict):
        items = list(value.items())
    else:
        pairs = [part for pair in _pairs(value) for part in pair.split(",") if part.strip()]
        if any("=" not in pair for pair in pairs):
            raise ConfigError(f"{flag}: give NAME=URL, e.g. spark-2=http://spark-2:9400/metrics")
        items = [(pair.partition("=")[0], pair.partition("=")[2]) for pair in pairs]
    out: dict[str, str] = {}
    for raw_name, raw_url in items:
        name, url = str(raw_name).strip(), str(raw_url).strip()
        if not _NODE_NAME.fullmatch(name):
            raise ConfigError(f"{flag}: node name {name!r}: letters, digits, '.', '_' or '-'")
        if name in out:
            raise ConfigError(f"{flag}: node {name} given twice")
        parts = urlsplit(url)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise ConfigError(f"{flag}: {name}: {url!r} is not an http(s) URL")
        if parts.username or parts.password:
            raise ConfigError(f"{flag}: {name}: no credentials in the URL (it is kept in results)")
        out[name] = url if parts.path not in ("", "/") else url.rstrip("/") + "/metrics"
    return out


def encodings(flag: str, value: Any) -> str:
    """What the client accepts: identity (the default), or gzip / deflate / br, comma-separated."""
    codings = [part.strip().lower() for part in str(value or "identity").split(",") if part.strip()]
    unknown = [c for c in codings if c not in CONTENT_CODINGS]
    if unknown or not codings:
        raise ConfigError(f"{flag}: {value!r}: give any of {', '.join(CONTENT_CODINGS)}")
    return ", ".join(codings)


def one_of(choices: tuple[str, ...]) -> Parse:
    def parse(flag: str, value: Any) -> str:
        name = str(value).strip()
        if name not in choices:
            raise ConfigError(f"{flag}: {name!r} is not one of {', '.join(choices)}")
        return name

    return parse


def ignore_eos(flag: str, value: Any) -> str:
    word = str(value if value is not None else "auto").strip().lower()
    if word in IGNORE_EOS_CHOICES:
        return word
    if word in ("1", "true", "on"):
        return "yes"
    if word in ("0", "false", "off"):
        return "no"
    raise ConfigError(f"{flag}: give auto, yes or no")


def spec(flag: str, value: Any) -> str | None:
    """Speculative decoding of a simulator build (``none``, ``mtp:K``, ``dspark:K``) or None."""
    text = str(value or "").strip()
    if not text:
        return None
    try:
        parse_spec(text)
    except ValueError as exc:
        raise ConfigError(f"{flag}: {exc}") from None
    return text


# ----- the table ---------------------------------------------------------------------------
PLAN = "load plan"
TARGET = "target"
WORKLOAD = "workload"
REQUEST = "request"
RESULTS = "results"
SIMULATOR = "built-in simulator"
SERVER_METRICS = "server metrics"
DISTRIBUTED = "distributed"


@dataclass(frozen=True)
class Option:
    flag: str
    default: Any
    help: str
    group: str
    parse: Parse
    choices: tuple[str, ...] | None = None
    secret: bool = False  # never in the web UI (Locust would embed it in the page), never written
    env: str = ""  # default: SPARKLOAD_<OPTION>
    per_target: bool = False  # a deployment's identity: set per matrix target, not matrix-wide
    argparse_extra: dict[str, Any] = field(default_factory=dict)

    @property
    def dest(self) -> str:
        return self.flag.lstrip("-").replace("-", "_")

    @property
    def env_var(self) -> str:
        return self.env or "SPARKLOAD_" + self.dest.upper()

    @property
    def is_flag(self) -> bool:
        return isinstance(self.default, bool)

    def value(self, raw: Any) -> Any:
        """The validated value of ``raw`` (None: the default)."""
        return self.parse(self.flag, self.default if raw is None else raw)


LOCUSTFILE_SIM_TIME_SCALE = 10.0  # a newcomer's first run: about a minute for the whole ladder


def _simulator_option(option: sim_options.SimOption) -> Option:
    """The locustfile's ``--sim-X`` for the simulator's ``--X``: same meaning, help and choices;
    the time scale defaults to 10x here (1x for a standalone ``sparkload sim``)."""
    parse: Parse
    if option.choices:
        parse = one_of(option.choices)
    elif option.switch:
        parse = boolean
    elif option is sim_options.SPEC:
        parse = spec
    elif option.type is int:
        parse = optional_whole
    else:
        parse = positive
    default = LOCUSTFILE_SIM_TIME_SCALE if option is sim_options.TIME_SCALE else option.default
    return Option(
        "--sim-" + option.flag.removeprefix("--"),
        default,
        f"Built-in simulator (no --host given): {option.help}",
        SIMULATOR,
        parse,
        choices=option.choices,
        per_target=True,
    )


OPTIONS: tuple[Option, ...] = (
    # load plan
    Option(
        "--ladder",
        "1,2,4,8,16",
        "Concurrency levels of the ladder, comma-separated",
        PLAN,
        levels,
    ),
    Option(
        "--requests-per-user",
        10,
        "Measured requests per user per ladder level (10 x C per level); with --workload "
        "conversation, conversations per user per level (C x this x --turns requests)",
        PLAN,
        whole,
    ),
    Option(
        "--step-duration",
        0.0,
        "Time-based steps: seconds per ladder level (0: count-based ladder)",
        PLAN,
        non_negative,
    ),
    Option(
        "--arrival-rate",
        "0",
        "Open loop: arrivals per second of the target's time (simulated seconds on the built-in "
        "simulator), or several rates comma-separated (2,4,8,16: one level each, a rate sweep); "
        "0: closed loop",
        PLAN,
        rates,
    ),
    Option(
        "--arrival-users",
        64,
        "Open loop: client pool size (most requests in flight)",
        PLAN,
        whole,
    ),
    Option(
        "--arrival-duration",
        60.0,
        "Open loop: seconds of arrivals per rate, in the target's time",
        PLAN,
        non_negative,
    ),
    Option(
        "--arrival-process",
        POISSON,
        "Open loop: how arrivals are spaced: poisson (exponential gaps), constant (even gaps) "
        "or gamma (gaps of shape --burstiness and the rate's mean, vLLM's); seeded",
        PLAN,
        one_of(ARRIVAL_PROCESSES),
        choices=ARRIVAL_PROCESSES,
    ),
    Option(
        "--burstiness",
        1.0,
        "Open loop, --arrival-process gamma: the gamma shape B (vLLM's --burstiness): 1 is "
        "Poisson, below 1 burstier, above 1 more even (the gaps' coefficient of variation is "
        "1/sqrt(B))",
        PLAN,
        positive,
    ),
    Option(
        "--no-saturation-stop",
        False,
        "Open loop: run every rate of a sweep even when a level is over-saturated (its backlog "
        "grows without bound); the level is only flagged, not ended early",
        PLAN,
        boolean,
    ),
    Option(
        "--trace",
        "",
        "Replay a trace, open loop: each line is sent at its timestamp (target time) with its "
        "input and output lengths; Mooncake JSONL (timestamp ms, input_length, output_length, "
        "hash_ids of 512-token blocks: shared ids become shared prompt text) or the Azure LLM "
        "inference CSV (TIMESTAMP, ContextTokens, GeneratedTokens); --arrival-users caps those "
        "in flight",
        PLAN,
        optional_path,
    ),
    Option(
        "--trace-speedup",
        1.0,
        "Trace replay: send the trace this many times faster than its timestamps (2: twice the "
        "rate)",
        PLAN,
        positive,
    ),
    Option(
        "--find-capacity",
        "",
        "Search instead of a ladder: the largest concurrency meeting every bound (--check's "
        "syntax, e.g. 'ttft_p90_ms<=800'), or with one --arrival-rate (the first probe) the "
        "highest rate, within 5 %; doubles until a probe breaks the bounds, then bisects, each "
        "probe a complete level; exit 4 when not even the lowest probe meets them",
        PLAN,
        text,
    ),
    Option(
        "--capacity-start",
        1,
        "Capacity search, closed loop: the first concurrency probed",
        PLAN,
        whole,
    ),
    Option(
        "--capacity-max",
        256.0,
        "Capacity search: the highest concurrency (closed loop) or rate (open loop) probed",
        PLAN,
        positive,
    ),
    Option(
        "--repeat",
        1,
        "Run the whole plan N times back to back, each run in its own directory (the "
        "single-Spark notes' 'two consecutive runs'); the report sets them side by side",
        PLAN,
        whole,
    ),
    Option(
        "--seed",
        0,
        "Seed of the prompt order and the arrival process",
        PLAN,
        integer,
    ),
    # target
    Option(
        "--endpoints",
        "",
        "Several target URLs, comma-separated (e.g. one replica per Spark): users are spread "
        "over them and each record names its endpoint (default: --host)",
        TARGET,
        urls,
        per_target=True,
    ),
    Option(
        "--model",
        "",
        "Model name (default: the first model of /v1/models)",
        TARGET,
        text,
    ),
    Option(
        "--label",
        "",
        "Run label (default: variant-tpN, or the simulator profile)",
        TARGET,
        text,
        per_target=True,
    ),
    Option(
        "--variant",
        "",
        "Deployment variant, e.g. fp8, nvfp4-mtp (drives report comparisons)",
        TARGET,
        text,
        per_target=True,
    ),
    Option(
        "--tp",
        1,
        "Tensor-parallel size of the target deployment",
        TARGET,
        whole,
        per_target=True,
    ),
    Option(
        "--nodes",
        1,
        "Number of nodes (Sparks) serving the target",
        TARGET,
        whole,
        per_target=True,
    ),
    Option(
        "--api-key",
        "",
        "API key sent as Bearer token (default: $OPENAI_API_KEY; not in the web UI, never written)",
        TARGET,
        text,
        secret=True,
        env="OPENAI_API_KEY",
    ),
    Option(
        "--secrets-file",
        "",
        "A file of this host's secrets, NAME=value a line: OPENAI_API_KEY, SPARKLOAD_HEADER "
        "(repeatable), SPARKLOAD_WORKER_TOKEN; each used where the command line and the "
        "environment give none. Read by the process it is given to, at start: a master never "
        "sends secrets, nor this path",
        TARGET,
        optional_path,
        secret=True,  # not in the web UI (read before it starts), not sent, not a matrix key
    ),
    Option(
        "--insecure",
        False,
        "Skip TLS certificate verification of the target (verified by default)",
        TARGET,
        boolean,
    ),
    Option(
        "--request-timeout",
        300.0,
        "Seconds a whole request (send to end of stream) may take",
        REQUEST,
        positive,
    ),
    Option(
        "--api",
        API_CHAT,
        "Which streaming API: chat (/v1/chat/completions) or completions (/v1/completions, the "
        "prompt as text)",
        REQUEST,
        one_of(APIS),
        choices=APIS,
    ),
    Option(
        "--extra-body",
        "",
        'JSON object merged into every request body, e.g. \'{"chat_template_kwargs": '
        '{"enable_thinking": false}, "seed": 1}\' (a key set to null is removed); stream and'
        " its usage chunk stay on",
        REQUEST,
        json_object,
    ),
    Option(
        "--header",
        [],
        "Extra request header 'Name: value' (repeatable), e.g. a gateway's tenant header; "
        "values are never written or shown",
        REQUEST,
        headers,
        secret=True,
        argparse_extra={"action": "append"},
    ),
    Option(
        "--temperature",
        None,
        "Sampling temperature of every request (default: the server's, or the workload's)",
        REQUEST,
        optional_number,
    ),
    Option(
        "--top-p",
        None,
        "Nucleus sampling top_p of every request (default: the server's)",
        REQUEST,
        optional_number,
    ),
    Option(
        "--no-thinking",
        False,
        "Ask a reasoning model not to think (chat_template_kwargs.enable_thinking = false, as "
        "Qwen3's template reads it), so TTFT is the answer's first token",
        REQUEST,
        boolean,
    ),
    Option(
        "--accept-encoding",
        "identity",
        "Accept-Encoding of every request: identity (default), or what a real client sends, "
        "e.g. 'gzip, br' (each event is timed when its compressed bytes arrive)",
        REQUEST,
        encodings,
    ),
    # workload
    Option(
        "--workload",
        WORKLOAD_CHAT,
        "What each request asks: chat (--prompts), fresh (write a module from a one-line spec, "
        "400 tokens), edit (~2,000-token file + 'add a method to every class', 3,000 tokens), "
        "prefill (~8K/32K/100K-token prompts, max_tokens 1, C=1), conversation (multi-turn "
        "sessions, each turn sending the whole history: --turns, --think-time)",
        WORKLOAD,
        one_of(WORKLOAD_NAMES),
        choices=WORKLOAD_NAMES,
    ),
    Option(
        "--prompts",
        str(DEFAULT_PROMPTS),
        "Prompt file of the chat workload: one prompt per line (.txt), a JSONL dataset of "
        '{"messages": [...], "max_tokens": N} or {"prompt": "..."} lines (.jsonl), or ShareGPT '
        "conversations (.json)",
        WORKLOAD,
        path,
    ),
    Option(
        "--reply-lengths",
        False,
        "ShareGPT dataset: ask each prompt for as many tokens as its first gpt reply "
        "(characters / 4), as vLLM's benchmark does (default: --max-tokens)",
        WORKLOAD,
        boolean,
    ),
    Option(
        "--input-tokens",
        None,
        "Chat workload: synthetic prompts of exactly N prompt tokens, counted by --tokenizer, "
        "else the target's /tokenize (chat template included), else 4 characters a token "
        "(flagged); replaces --prompts",
        WORKLOAD,
        optional_whole,
    ),
    Option(
        "--input-tokens-stddev",
        0.0,
        "Synthetic prompts: the standard deviation of their input lengths around --input-tokens "
        "(normal, clamped to 1 token, a pool of 64 seeded lengths)",
        WORKLOAD,
        non_negative,
    ),
    Option(
        "--seq-dist",
        "",
        'Synthetic prompts of a mix of input and output lengths, aiperf\'s "ISL,OSL:WEIGHT;..." '
        '(e.g. "256,16:0.75;2048,16:0.25"; ISL|SD,OSL|SD for a spread; weights are relative); '
        "replaces --input-tokens and --output-tokens, lengths pinned",
        WORKLOAD,
        parse_seq_dist,
    ),
    Option(
        "--prefix-tokens",
        None,
        "Synthetic prompts: every prompt starts with one of --prefix-count fixed prefixes of N "
        "tokens (a shared system prompt, served from the prefix cache once warm), then its own "
        "--input-tokens",
        WORKLOAD,
        optional_whole,
    ),
    Option(
        "--prefix-count",
        1,
        "How many distinct --prefix-tokens prefixes; requests take them in turn",
        WORKLOAD,
        whole,
    ),
    Option(
        "--output-tokens",
        None,
        "Exactly N output tokens per request: max_tokens N, pinned with ignore_eos + min_tokens "
        "unless --ignore-eos no (overrides a dataset's own max_tokens)",
        WORKLOAD,
        optional_whole,
    ),
    Option(
        "--output-tokens-stddev",
        0.0,
        "The standard deviation of the output lengths around --output-tokens (normal, clamped "
        "to 1 token, seeded)",
        WORKLOAD,
        non_negative,
    ),
    Option(
        "--tokenizer",
        "",
        "A Hugging Face tokenizer.json that counts --input-tokens (the message text only: no "
        "chat template or special tokens)",
        WORKLOAD,
        optional_path,
    ),
    Option(
        "--max-tokens",
        None,
        "max_tokens of every request (default: the workload's own length: "
        + ", ".join(f"{k} {v}" for k, v in OUTPUT_TOKENS.items())
        + ")",
        WORKLOAD,
        optional_whole,
    ),
    Option(
        "--identical-prompts",
        False,
        "Every request sends the same prompt (no cache busting): the contrast case that prefix "
        "caching flatters",
        WORKLOAD,
        boolean,
    ),
    Option(
        "--cache-bust",
        False,
        "Chat workload: start every prompt with a unique nonce, so no request is served from "
        "the prefix cache (fresh, edit and prefill always do; default: prompts are reused "
        "across levels, the quantization report's method)",
        WORKLOAD,
        boolean,
    ),
    Option(
        "--ignore-eos",
        "auto",
        "Pin output length with ignore_eos + min_tokens: yes, no, or auto (yes for fresh/edit)."
        " Records keep asked (max_tokens) and received (output_tokens) length",
        WORKLOAD,
        ignore_eos,
        choices=IGNORE_EOS_CHOICES,
        argparse_extra={"nargs": "?", "const": "yes"},
    ),
    Option(
        "--prefill-sizes",
        "8000,32000,100000",
        "Prefill workload: prompt sizes in tokens, one C=1 level each",
        WORKLOAD,
        levels,
    ),
    Option(
        "--prefill-runs",
        2,
        "Prefill workload: measured cold requests per size (after one warm-up)",
        WORKLOAD,
        whole,
    ),
    Option(
        "--turns",
        None,
        "Conversation workload: user turns per conversation (default 4; a dataset: each "
        "conversation's own, at most this many)",
        WORKLOAD,
        optional_whole,
    ),
    Option(
        "--turns-stddev",
        0.0,
        "Conversation workload: standard deviation of the turns per conversation (normal, "
        "rounded, at least 1; aiperf's --conversation-turn-stddev); 0: every conversation has "
        "--turns",
        WORKLOAD,
        non_negative,
    ),
    Option(
        "--think-time",
        0.0,
        "Conversation workload: mean seconds between a reply and the next user message, in the "
        "target's time (seeded exponential, none before a first turn); 0: none",
        WORKLOAD,
        non_negative,
    ),
    Option(
        "--history",
        HISTORY_MODEL,
        "Conversation workload: the assistant turns each request carries: model (the replies "
        "the model streamed) or dataset (a dataset's own replies)",
        WORKLOAD,
        one_of(HISTORIES),
        choices=HISTORIES,
    ),
    # results
    Option(
        "--results-dir",
        "results",
        "Where run directories are written",
        RESULTS,
        path,
    ),
    Option(
        "--keep-chunk-gaps",
        False,
        "Store every chunk gap in the records, not just a summary",
        RESULTS,
        boolean,
    ),
    Option(
        "--slice-duration",
        0.0,
        "Seconds of the target's time per report window inside every level: requests "
        "completed, TTFT/ITL p50/p90, output tokens/s and requests in flight per window, and a "
        "throughput drift flag (0: no windows; sparkload report --slice-duration overrides it)",
        RESULTS,
        non_negative,
    ),
    Option(
        "--check",
        "",
        "Fail the run on a service level, checked per level at its end with the report's own "
        "definitions, e.g. 'ttft_p90_ms<=1000,failure_ratio<=0.01' ('stream_flags<=0': no "
        "stream flag at all); a level whose streams the path collapsed, wholly or partly, "
        "fails too; a breach prints the level and the figure and exits with code 4",
        RESULTS,
        text,
    ),
    Option(
        "--metadata",
        [],
        "Free-form KEY=VALUE about the run (repeatable), kept in the manifest and shown in the "
        "report",
        RESULTS,
        key_values,
        argparse_extra={"action": "append"},
    ),
    # server metrics
    Option(
        "--metrics-interval",
        5.0,
        "Seconds between mid-level /metrics gauge samples (running, waiting, KV usage); "
        "counters are read at every level boundary; 0 = boundaries only",
        SERVER_METRICS,
        non_negative,
    ),
    Option(
        "--no-server-metrics",
        False,
        "Do not scrape the target's /metrics",
        SERVER_METRICS,
        boolean,
    ),
    Option(
        "--scrape",
        [],
        "Another node's Prometheus endpoint, NAME=URL (repeatable): each Spark's vLLM /metrics, a "
        "dcgm-exporter, a node_exporter or sparkload node-exporter; read with the target's at "
        "every level, for per-node power, energy per token, clocks and temperature. Each must "
        "answer before the load; it never gets the API key",
        SERVER_METRICS,
        scrape_targets,
        argparse_extra={"action": "append"},
    ),
    # distributed runs
    Option(
        "--worker-token",
        "",
        "A shared secret every worker must prove it holds when it connects (HMAC challenge: "
        "the token never crosses the network); workers without it are refused. Set it on the "
        "master and on every worker (default: $SPARKLOAD_WORKER_TOKEN; none: any worker joins)",
        DISTRIBUTED,
        text,
        secret=True,
    ),
    # the built-in simulator: its own options (sparkload/sim/options.py), prefixed --sim-
    *(_simulator_option(option) for option in sim_options.SHARED),
)

BY_DEST: dict[str, Option] = {option.dest: option for option in OPTIONS}
SIMULATOR_OPTIONS = tuple(option for option in OPTIONS if option.group == SIMULATOR)
GROUP_ORDER = (PLAN, TARGET, WORKLOAD, REQUEST, RESULTS, SERVER_METRICS, DISTRIBUTED, SIMULATOR)


def default(dest: str) -> Any:
    """An option's parsed default (``default("ladder") == (1, 2, 4, 8, 16)``)."""
    return BY_DEST[dest].value(None)


def environment_names() -> list[str]:
    return [option.env_var for option in OPTIONS]


@dataclass(frozen=True)
class RunOptions:
    """One run's validated options (``from_namespace``); every process builds the same."""

    ladder: tuple[int, ...]
    requests_per_user: int
    step_duration: float
    arrival_rate: tuple[float, ...]  # open loop: one level per rate (empty: closed loop)
    arrival_users: int
    arrival_duration: float  # target time
    arrival_process: str  # poisson | constant | gamma
    burstiness: float
    no_saturation_stop: bool
    trace: Path | None
    trace_speedup: float
    find_capacity: str  # --check bounds of a capacity search ("": no search)
    capacity_start: int
    capacity_max: float
    repeat: int
    seed: int
    endpoints: tuple[str, ...]
    model: str
    label: str
    variant: str
    tp: int
    nodes: int
    api_key: str  # this process's own (sparkload.hostsecrets), never the master's
    secrets_file: Path | None
    insecure: bool
    request_timeout: float
    api: str
    extra_body: dict[str, Any]
    header: dict[str, str]  # extra request headers: secret values, never written
    temperature: float | None
    top_p: float | None
    no_thinking: bool
    accept_encoding: str
    workload: str
    prompts: Path
    max_tokens: int | None  # as given (None: the workload's own length)
    identical_prompts: bool
    cache_bust: bool
    ignore_eos: str  # auto | yes | no
    prefill_sizes: tuple[int, ...]
    prefill_runs: int
    turns: int | None  # a conversation's turns (None: the workload's default, a dataset's own)
    turns_stddev: float
    think_time: float  # mean think time, target seconds (0: none)
    history: str  # model | dataset
    reply_lengths: bool
    input_tokens: int | None  # synthetic prompts of this many tokens (None: --prompts)
    input_tokens_stddev: float
    seq_dist: tuple[Component, ...]  # a mix of (input, output) lengths (empty: not given)
    prefix_tokens: int | None  # shared prefixes of this many tokens (None: none)
    prefix_count: int
    output_tokens: int | None  # pinned output length (None: not asked)
    output_tokens_stddev: float
    tokenizer: Path | None
    results_dir: Path
    keep_chunk_gaps: bool
    slice_duration: float  # seconds of target time per report window (0: none)
    check: str
    metadata: dict[str, str]
    metrics_interval: float
    no_server_metrics: bool
    scrape: dict[str, str]  # node name -> its Prometheus URL
    worker_token: str  # this process's own (sparkload.hostsecrets), never sent
    sim_profile: str
    sim_spec: str | None
    sim_max_num_batched_tokens: int | None
    sim_no_prefix_caching: bool
    sim_block_size: int | None
    sim_time_scale: float

    @property
    def mode(self) -> str:
        if self.arrival_rate or self.trace is not None:
            return "arrival"
        return "steps" if self.step_duration > 0 else "ladder"

    @property
    def level_count(self) -> int:
        """Levels of one run of the plan: one per rate, the trace's one, or one per C."""
        if self.trace is not None:
            return 1
        return len(self.arrival_rate) if self.arrival_rate else len(self.ladder)

    @property
    def synthetic(self) -> bool:
        """The chat prompts are fitted synthetic texts (--input-tokens or --seq-dist)."""
        return self.input_tokens is not None or bool(self.seq_dist)

    @property
    def server_metrics(self) -> bool:
        return not self.no_server_metrics

    def simulator_args(self) -> list[str]:
        """The built-in simulator's own options, as the run's --sim-* options set them."""
        args: list[str] = []
        for option in sim_options.SHARED:
            value = getattr(self, "sim_" + option.flag.removeprefix("--").replace("-", "_"))
            if option.switch:
                args += [option.flag] if value else []
            elif value is not None:
                args += [option.flag, f"{value:g}" if isinstance(value, float) else str(value)]
        return args


def from_namespace(ns: argparse.Namespace) -> RunOptions:
    """Validate Locust's parsed options (CLI, conf file, env or web form) into RunOptions, each
    by its own parser, and the load plan's rules across options (the chosen workload settles
    them further: ``workloads.registry.settle``)."""
    options = RunOptions(
        **{option.dest: option.value(getattr(ns, option.dest, None)) for option in OPTIONS}
    )
    check_plan(options)
    return options


def check_plan(opts: RunOptions) -> None:
    """The load plan's rules across options: a ConfigError of one line naming the conflict.

    A trace brings its own timing, so the options of every other plan are refused beside it
    (a value equal to the default cannot be told from none, and passes)."""
    if opts.burstiness != 1.0 and opts.arrival_process != GAMMA:
        raise ConfigError("--burstiness shapes gamma arrivals: add --arrival-process gamma")
    if opts.arrival_process != POISSON and not opts.arrival_rate and opts.trace is None:
        raise ConfigError("--arrival-process spaces open-loop arrivals: give --arrival-rate")
    if opts.trace is None:
        if opts.trace_speedup != 1.0:
            raise ConfigError("--trace-speedup without --trace: give the trace to replay")
        return
    given = {
        "--arrival-rate": bool(opts.arrival_rate),
        "--step-duration": opts.step_duration > 0,
        "--ladder": opts.ladder != default("ladder"),
        "--requests-per-user": opts.requests_per_user != default("requests_per_user"),
        "--arrival-duration": opts.arrival_duration != default("arrival_duration"),
        "--arrival-process": opts.arrival_process != POISSON,
    }
    clash = [flag for flag, present in given.items() if present]
    if clash:
        raise ConfigError(
            f"--trace sends each line at its own timestamp: drop {', '.join(clash)} "
            "(--trace-speedup changes the pace, --arrival-users the requests in flight)"
        )
