"""The target's options: which server (or servers) is under test, and what the run calls it."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from sparkload.config.option import TARGET, Option
from sparkload.config.parsers import (
    boolean,
    model_choice,
    optional_path,
    optional_whole,
    text,
    urls,
    whole,
)

ROWS: tuple[Option, ...] = (
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
        "Model name (default: the first model of /v1/models), or a mix spreading the requests "
        "over models, e.g. a base model and its LoRA adapters: A:0.7,B:0.3 (weights summing to "
        "1) or zipf:S:A,B,C (Zipf's law over the list); each user deals its requests' models "
        "from a seeded low-discrepancy deal, so the shares are near-exact and repeat with "
        "--seed; every model must be one the server lists",
        TARGET,
        model_choice,
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
        "API key, sent as a Bearer token (--api messages: as x-api-key; default: "
        "$OPENAI_API_KEY, on --api messages $ANTHROPIC_API_KEY first; not in the web UI, never "
        "written)",
        TARGET,
        text,
        secret=True,
        env="OPENAI_API_KEY",
    ),
    Option(
        "--secrets-file",
        "",
        "A file of this host's secrets, NAME=value a line: OPENAI_API_KEY (or "
        "ANTHROPIC_API_KEY for --api messages), SPARKLOAD_HEADER (repeatable), "
        "SPARKLOAD_WORKER_TOKEN; each used where the command line and the "
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
        "--reset-prefix-cache",
        False,
        "Empty every endpoint's prefix cache before each level, before its first request "
        "(vLLM's POST /reset_prefix_cache, served with VLLM_SERVER_DEV_MODE=1; SGLang's POST "
        "/flush_cache): no level is served from what an earlier one cached. A refusal is one "
        "log line and a note in the manifest; the run goes on",
        TARGET,
        boolean,
    ),
    Option(
        "--server-profile",
        None,
        "Profile level N (counted from 1, as the progress line counts) on the server: vLLM's "
        "POST /start_profile when its measured requests begin, /stop_profile when it ends (the "
        "server needs a profiler configured); a refusal is one log line and a note in the "
        "manifest",
        TARGET,
        optional_whole,
    ),
)


@dataclass(frozen=True)
class TargetOptions:
    endpoints: tuple[str, ...]
    model: str  # one model, or a mix (``sparkload.model_mix``: ModelMix.parse reads it)
    label: str
    variant: str
    tp: int
    nodes: int
    api_key: str  # this process's own (sparkload.hostsecrets), never the master's
    secrets_file: Path | None
    insecure: bool
    reset_prefix_cache: bool
    server_profile: int | None  # the level number (from 1) to profile on the server
