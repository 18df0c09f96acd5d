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


class ConfigError(ValueError):
    """A bad option value; its message is the one line the user sees."""


# (flag, default, help, extra add_argument kwargs)
_OPTIONS: list[tuple[str, object, str, dict]] = [
    ("--ladder", "1,2,4,8,16", "Concurrency levels of the ladder, comma-separated", {}),
    ("--requests-per-user", 10, "Measured requests per user per ladder level (10 x C per level)", {}),
    ("--max-tokens", 128, "max_tokens of every request", {}),
    ("--prompts", str(DEFAULT_PROMPTS), "Prompt file: one prompt per line", {}),
    ("--endpoints", "", "Several target URLs, comma-separated (e.g. one replica per Spark): users "
     "are spread over them and each record names its endpoint (default: --host)", {}),
    ("--model", "", "Model name (default: the first model of /v1/models)", {}),
    ("--label", "", "Run label (default: variant-tpN, or the simulator profile)", {}),
    ("--variant", "", "Deployment variant, e.g. fp8, nvfp4-mtp (drives report comparisons)", {}),
    ("--tp", 1, "Tensor-parallel size of the target deployment", {}),
    ("--nodes", 1, "Number of nodes (Sparks) serving the target", {}),
    ("--seed", 0, "Seed of the prompt order and the arrival process", {}),
    ("--results-dir", "results", "Where run directories are written", {}),
    ("--api-key", "", "API key sent as Bearer token (default: $OPENAI_API_KEY)",
     {"env_var": "OPENAI_API_KEY", "is_secret": True}),
    ("--request-timeout", 300.0, "Seconds a whole request (send to end of stream) may take", {}),
    ("--step-duration", 0.0, "Time-based steps: seconds per ladder level (0: count-based ladder)", {}),
    ("--arrival-rate", 0.0, "Open loop: Poisson arrivals per second (0: closed loop)", {}),
    ("--arrival-users", 64, "Open loop: client pool size (most requests in flight)", {}),
    ("--arrival-duration", 60.0, "Open loop: seconds of arrivals", {}),
    ("--keep-chunk-gaps", False, "Store every chunk gap in the records, not just a summary", {}),
    ("--sim-profile", "awq-mtp", "Simulator profile used when no --host is given", {"choices": SIM_PROFILES}),
    ("--sim-time-scale", 10.0, "Simulator speed-up over real time (figures are in simulated time)", {}),
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
    request_timeout: float
    step_duration: float
    arrival_rate: float
    arrival_users: int
    arrival_duration: float
    keep_chunk_gaps: bool
    sim_profile: str
    sim_time_scale: float

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
    return value if isinstance(value, bool) else str(value).strip().lower() in ("1", "true", "yes", "on")


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
        raise ConfigError(f"--sim-profile: {ns.sim_profile!r} is not one of {', '.join(SIM_PROFILES)}")
    try:
        seed = int(str(ns.seed).strip())
    except ValueError:
        raise ConfigError(f"--seed: {ns.seed!r} is not a whole number") from None
    return RunOptions(
        ladder=parse_ladder(ns.ladder),
        requests_per_user=_positive_int("--requests-per-user", ns.requests_per_user),
        max_tokens=_positive_int("--max-tokens", ns.max_tokens),
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
        request_timeout=timeout,
        step_duration=_non_negative_float("--step-duration", ns.step_duration),
        arrival_rate=_non_negative_float("--arrival-rate", ns.arrival_rate),
        arrival_users=_positive_int("--arrival-users", ns.arrival_users),
        arrival_duration=_non_negative_float("--arrival-duration", ns.arrival_duration),
        keep_chunk_gaps=_bool(ns.keep_chunk_gaps),
        sim_profile=ns.sim_profile,
        sim_time_scale=time_scale,
    )
