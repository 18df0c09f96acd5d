"""sparkload's options: one table, registered on Locust's parser, validated into RunOptions.

Registered on Locust's parser they work on the command line, in locust.conf, as environment
variables (SPARKLOAD_*, and OPENAI_API_KEY) and in the web UI form. Values from the web UI
arrive as strings, so everything is validated once, here, whatever its source.
"""

from __future__ import annotations

import argparse
import os
from dataclasses import dataclass
from pathlib import Path

PROJECT_ROOT = Path(__file__).resolve().parent.parent
DEFAULT_PROMPTS = PROJECT_ROOT / "prompts" / "prompts.txt"
SIM_PROFILES = ("fp8", "fp8-mtp", "awq-mtp", "nvfp4", "nvfp4-mtp", "fixed")
WORKLOADS = ("chat", "fresh", "edit", "prefill")  # defined in sparkload.workloads
DEFAULT_MAX_TOKENS = 128  # --max-tokens left at this value: fresh/edit use their own length


class ConfigError(ValueError):
    """A bad option value; its message is the one line the user sees."""


# (flag, default, help, extra add_argument kwargs)
_OPTIONS: list[tuple[str, object, str, dict]] = [
    ("--ladder", "1,2,4,8,16", "Concurrency levels of the ladder, comma-separated", {}),
    (
        "--requests-per-user",
        10,
        "Measured requests per user per ladder level (10 x C per level)",
        {},
    ),
    ("--max-tokens", DEFAULT_MAX_TOKENS, "max_tokens of every request", {}),
    ("--prompts", str(DEFAULT_PROMPTS), "Prompt file: one prompt per line", {}),
    (
        "--endpoints",
        "",
        (
            "Several target URLs, comma-separated (e.g. one replica per Spark): users "
            "are spread over them and each record names its endpoint (default: --host)"
        ),
        {},
    ),
    ("--model", "", "Model name (default: the first model of /v1/models)", {}),
    ("--label", "", "Run label (default: variant-tpN, or the simulator profile)", {}),
    ("--variant", "", "Deployment variant, e.g. fp8, nvfp4-mtp (drives report comparisons)", {}),
    ("--tp", 1, "Tensor-parallel size of the target deployment", {}),
    ("--nodes", 1, "Number of nodes (Sparks) serving the target", {}),
    ("--seed", 0, "Seed of the prompt order and the arrival process", {}),
    ("--results-dir", "results", "Where run directories are written", {}),
    # Not in the web UI: Locust would embed its value in the page; set it by CLI, conf or env.
    (
        "--api-key",
        "",
        "API key sent as Bearer token (default: $OPENAI_API_KEY)",
        {"env_var": "OPENAI_API_KEY", "include_in_web_ui": False},
    ),
    (
        "--insecure",
        False,
        "Skip TLS certificate verification of the target (verified by default)",
        {},
    ),
    ("--request-timeout", 300.0, "Seconds a whole request (send to end of stream) may take", {}),
    (
        "--step-duration",
        0.0,
        "Time-based steps: seconds per ladder level (0: count-based ladder)",
        {},
    ),
    ("--arrival-rate", 0.0, "Open loop: Poisson arrivals per second (0: closed loop)", {}),
    ("--arrival-users", 64, "Open loop: client pool size (most requests in flight)", {}),
    ("--arrival-duration", 60.0, "Open loop: seconds of arrivals", {}),
    ("--keep-chunk-gaps", False, "Store every chunk gap in the records, not just a summary", {}),
    (
        "--sim-profile",
        "awq-mtp",
        "Simulator profile used when no --host is given",
        {"choices": SIM_PROFILES},
    ),
    (
        "--sim-time-scale",
        10.0,
        "Simulator speed-up over real time (figures are in simulated time)",
        {},
    ),
    (
        "--workload",
        "chat",
        (
            "What each request asks: chat (--prompts), fresh (write a module from a "
            "one-line spec, 400 tokens), edit (~2,000-token file + 'add a method to every class', 3,000 "
            "tokens), prefill (~8K/32K/100K-token prompts, max_tokens 1, C=1). A --max-tokens other than "
            "128 overrides fresh/edit's length"
        ),
        {"choices": WORKLOADS},
    ),
    (
        "--identical-prompts",
        False,
        (
            "Every request sends the same prompt (no cache busting): the "
            "contrast case that prefix caching flatters"
        ),
        {},
    ),
    (
        "--ignore-eos",
        "auto",
        (
            "Pin output length with ignore_eos + min_tokens: yes, no, or auto "
            "(yes for fresh/edit). Records keep asked (max_tokens) and received (output_tokens) length"
        ),
        {"choices": ("auto", "yes", "no"), "nargs": "?", "const": "yes"},
    ),
    (
        "--prefill-sizes",
        "8000,32000,100000",
        "Prefill workload: prompt sizes in tokens, one C=1 level each",
        {},
    ),
    (
        "--prefill-runs",
        2,
        "Prefill workload: measured cold requests per size (after one warm-up)",
        {},
    ),
    (
        "--metrics-interval",
        5.0,
        (
            "Seconds between mid-level /metrics gauge samples (running, waiting, "
            "KV usage); counters are read at every level boundary; 0 = boundaries only"
        ),
        {},
    ),
    ("--no-server-metrics", False, "Do not scrape the target's /metrics", {}),
]


def _env_name(flag: str) -> str:
    return "SPARKLOAD_" + flag.lstrip("-").replace("-", "_").upper()


def register(parser: argparse.ArgumentParser) -> None:
    """Add sparkload's options to Locust's parser (an ``init_command_line_parser`` listener)."""
    for flag, default, help_text, extra in _OPTIONS:
        kwargs = {"default": default, "help": help_text, "env_var": _env_name(flag), **extra}
        if isinstance(default, bool):
            kwargs["action"] = "store_true"
        parser.add_argument(flag, **kwargs)
    # A load generator's own UI should not listen on every interface by default (DESIGN §10);
    # sparkload's progress line replaces Locust's periodic stats table in headless runs.
    parser.set_defaults(web_host="127.0.0.1", only_summary=True)


@dataclass(frozen=True)
class RunOptions:
    ladder: tuple[int, ...]
    requests_per_user: int
    max_tokens: int
    prompts: Path
    endpoints: tuple[str, ...]
    model: str
    label: str
    variant: str
    tp: int
    nodes: int
    seed: int
    results_dir: Path
    api_key: str
    insecure: bool
    request_timeout: float
    step_duration: float
    arrival_rate: float
    arrival_users: int
    arrival_duration: float
    keep_chunk_gaps: bool
    sim_profile: str
    sim_time_scale: float
    workload: str = "chat"
    identical_prompts: bool = False
    ignore_eos: str = "auto"  # auto | yes | no
    prefill_sizes: tuple[int, ...] = ()
    metrics_interval: float = 5.0
    server_metrics: bool = True

    @property
    def mode(self) -> str:
        if self.arrival_rate > 0:
            return "arrival"
        return "steps" if self.step_duration > 0 else "ladder"


def parse_ladder(text: str) -> tuple[int, ...]:
    levels = tuple(_positive_int("--ladder", part.strip()) for part in str(text).split(","))
    return levels


def _positive_int(flag: str, value: object) -> int:
    try:
        number = int(str(value).strip())
    except ValueError:
        raise ConfigError(f"{flag}: {value!r} is not a whole number") from None
    if number < 1:
        raise ConfigError(f"{flag}: {value!r} must be 1 or more")
    return number


def _non_negative_float(flag: str, value: object) -> float:
    try:
        number = float(str(value).strip())
    except ValueError:
        raise ConfigError(f"{flag}: {value!r} is not a number") from None
    if not number >= 0 or number == float("inf"):
        raise ConfigError(f"{flag}: {value!r} must be a finite number >= 0")
    return number


def _bool(value: object) -> bool:
    return (
        value
        if isinstance(value, bool)
        else str(value).strip().lower() in ("1", "true", "yes", "on")
    )


def from_namespace(ns: argparse.Namespace) -> RunOptions:
    """Validate Locust's parsed options (CLI, conf file, env or web form) into RunOptions."""
    if not str(getattr(ns, "ladder", "")).strip():
        raise ConfigError("--ladder: give at least one level, e.g. 1,2,4,8,16")
    timeout = _non_negative_float("--request-timeout", ns.request_timeout)
    if timeout <= 0:
        raise ConfigError("--request-timeout: must be more than 0 seconds")
    time_scale = _non_negative_float("--sim-time-scale", ns.sim_time_scale)
    if time_scale <= 0:
        raise ConfigError("--sim-time-scale: must be more than 0")
    if ns.sim_profile not in SIM_PROFILES:
        raise ConfigError(
            f"--sim-profile: {ns.sim_profile!r} is not one of {', '.join(SIM_PROFILES)}"
        )
    try:
        seed = int(str(ns.seed).strip())
    except ValueError:
        raise ConfigError(f"--seed: {ns.seed!r} is not a whole number") from None
    workload = _workload_plan(ns)
    return RunOptions(
        ladder=workload.get("ladder") or parse_ladder(ns.ladder),
        requests_per_user=workload.get("requests_per_user")
        or _positive_int("--requests-per-user", ns.requests_per_user),
        max_tokens=workload["max_tokens"],
        prompts=Path(os.path.expanduser(str(ns.prompts))),
        endpoints=tuple(url.strip() for url in str(ns.endpoints or "").split(",") if url.strip()),
        model=str(ns.model or "").strip(),
        label=str(ns.label or "").strip(),
        variant=str(ns.variant or "").strip(),
        tp=_positive_int("--tp", ns.tp),
        nodes=_positive_int("--nodes", ns.nodes),
        seed=seed,
        results_dir=Path(os.path.expanduser(str(ns.results_dir))),
        api_key=str(ns.api_key or ""),
        insecure=_bool(ns.insecure),
        request_timeout=timeout,
        step_duration=_non_negative_float("--step-duration", ns.step_duration),
        arrival_rate=_non_negative_float("--arrival-rate", ns.arrival_rate),
        arrival_users=_positive_int("--arrival-users", ns.arrival_users),
        arrival_duration=_non_negative_float("--arrival-duration", ns.arrival_duration),
        keep_chunk_gaps=_bool(ns.keep_chunk_gaps),
        sim_profile=ns.sim_profile,
        sim_time_scale=time_scale,
        workload=workload["name"],
        identical_prompts=_bool(getattr(ns, "identical_prompts", False)),
        ignore_eos=workload["ignore_eos"],
        prefill_sizes=workload.get("prefill_sizes", ()),
        metrics_interval=_non_negative_float(
            "--metrics-interval", getattr(ns, "metrics_interval", 5.0)
        ),
        server_metrics=not _bool(getattr(ns, "no_server_metrics", False)),
    )


def _workload_plan(ns: argparse.Namespace) -> dict:
    """--workload and what it overrides: output length, and for prefill the ladder (C=1 per size)."""
    name = str(getattr(ns, "workload", "chat") or "chat").strip()
    if name not in WORKLOADS:
        raise ConfigError(f"--workload: {name!r} is not one of {', '.join(WORKLOADS)}")
    ignore_eos = str(getattr(ns, "ignore_eos", "auto") or "auto").strip().lower()
    if ignore_eos not in ("auto", "yes", "no"):
        ignore_eos = (
            "yes" if _bool(ignore_eos) else "no" if ignore_eos in ("0", "false", "off") else ""
        )
        if not ignore_eos:
            raise ConfigError("--ignore-eos: give auto, yes or no")
    max_tokens = _positive_int("--max-tokens", ns.max_tokens)
    from sparkload.workloads import DEFAULT_MAX_TOKENS as WORKLOAD_MAX_TOKENS  # no import cycle

    if name in WORKLOAD_MAX_TOKENS and (max_tokens == DEFAULT_MAX_TOKENS or name == "prefill"):
        max_tokens = WORKLOAD_MAX_TOKENS[name]
    plan: dict = {"name": name, "ignore_eos": ignore_eos, "max_tokens": max_tokens}
    if name == "prefill":
        if _non_negative_float("--step-duration", ns.step_duration) or _non_negative_float(
            "--arrival-rate", ns.arrival_rate
        ):
            raise ConfigError(
                "--workload prefill runs its own C=1 ladder: drop --step-duration/--arrival-rate"
            )
        text = str(getattr(ns, "prefill_sizes", "") or "")
        sizes = tuple(
            _positive_int("--prefill-sizes", part.strip())
            for part in text.split(",")
            if part.strip()
        )
        if not sizes:
            raise ConfigError(
                "--prefill-sizes: give at least one size in tokens, e.g. 8000,32000,100000"
            )
        plan.update(
            prefill_sizes=sizes,
            ladder=(1,) * len(sizes),
            requests_per_user=_positive_int("--prefill-runs", getattr(ns, "prefill_runs", 2)),
        )
    return plan
