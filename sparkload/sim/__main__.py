"""``python -m sparkload.sim`` / ``sparkload sim``: run the simulated vLLM server.

When it is ready it prints exactly one line to stdout and flushes it:
``sparkload-sim listening on http://127.0.0.1:PORT`` (``--port 0`` picks a free port, so a
parent process learns it from this line). SIGTERM and SIGINT end it cleanly with exit code 0.
Bad options print one line to stderr and exit with code 2, and so does a configuration the
engine would refuse to start (``--spec dspark:14`` at the default batch budget, as vLLM does).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import signal
import ssl
import sys
from dataclasses import replace
from pathlib import Path
from typing import NoReturn

from aiohttp import web

from sparkload.sim import options
from sparkload.sim.backends import EngineBackend, FixedBackend, FixedTiming
from sparkload.sim.faults import parse_fault_spec
from sparkload.sim.lora import LoraSetup
from sparkload.sim.notes_profiles import BUILDS, DEFAULT_BUDGET, DEFAULT_SPEC, compose
from sparkload.sim.options import FIXED
from sparkload.sim.profiles import SUPPORTED_TP, Profile, get_profile, with_tp
from sparkload.sim.server import Backend, ServerConfig, SimServer
from sparkload.sim.speculation import parse_category_acceptance, parse_spec
from sparkload.sim.thermal import ThermalModel

READY_LINE = "sparkload-sim listening on {scheme}://{host}:{port}"


class UsageError(Exception):
    """A bad option value: reported in one line, exit code 2."""


class OneLineParser(argparse.ArgumentParser):
    """argparse, but a bad option is one line on stderr (no usage dump), exit code 2."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: error: {message}\n")


def build_parser() -> argparse.ArgumentParser:
    parser = OneLineParser(
        prog="sparkload sim",
        description="Simulated vLLM server (OpenAI-compatible): Qwen3.6-27B on DGX Spark (the "
        "quantization report's variants) or Qwen3.8-27B on one Spark (the measurement notes' "
        "builds, qwen3.8-*). Profiles: " + ", ".join(options.PROFILE_NAMES) + ". Chat "
        "replies as with vLLM's --reasoning-parser qwen3 --enable-auto-tool-choice "
        "--tool-call-parser qwen3_coder: reasoning deltas (--reasoning-tokens), and tool calls "
        "for requests with tools (--tool-call-rate, --tool-parser-holdback). The "
        "locustfile starts it itself when no --host is given (its --sim-* options; time scale "
        "10 there).",
    )
    for option in options.SHARED:
        if option.switch:
            parser.add_argument(
                option.flag, action="store_true", help=option.help + " (default: off)"
            )
            continue
        shown = "" if option.default is None else f" (default: {option.default})"
        parser.add_argument(
            option.flag,
            default=option.default,
            type=option.type,
            choices=option.choices,
            help=option.help + shown,
        )
    parser.add_argument(
        "--tp",
        type=int,
        default=1,
        choices=SUPPORTED_TP,
        help="tensor-parallel size, Sparks in the cluster (default: 1)",
    )
    parser.add_argument("--host", default="127.0.0.1", help="default: 127.0.0.1")
    parser.add_argument(
        "--port", type=int, default=8000, help="0 picks a free port (default: 8000)"
    )
    parser.add_argument(
        "--seed",
        type=int,
        default=0,
        help="engine, frontend and tool-call randomness (default: 0)",
    )
    parser.add_argument(
        "--faults",
        default="",
        help='rates per request, e.g. "http_500=0.1,disconnect=0.05" (default: none)',
    )
    parser.add_argument(
        "--fault-seed", type=int, default=0, help="randomness of fault picks (default: 0)"
    )
    parser.add_argument(
        "--allreduce-us",
        type=float,
        default=None,
        help="latency of one all-reduce over the node link, TP>1 (default: 50)",
    )
    parser.add_argument(
        "--served-model-name", default=None, help="default: the profile's model name"
    )
    parser.add_argument(
        "--fixed-ttft-ms", type=float, default=100.0, help="profile fixed: TTFT (default: 100)"
    )
    parser.add_argument(
        "--fixed-itl-ms",
        type=float,
        default=10.0,
        help="profile fixed: gap between chunks (default: 10)",
    )
    parser.add_argument(
        "--fixed-tokens-per-chunk",
        type=int,
        default=1,
        help="profile fixed: tokens per chunk (default: 1)",
    )
    parser.add_argument(
        "--timing-log",
        type=Path,
        default=None,
        help="append one JSON line of server-side timing per request (default: off)",
    )
    parser.add_argument(
        "--tls-cert",
        type=Path,
        default=None,
        help="serve HTTPS with this PEM certificate (default: plain HTTP)",
    )
    parser.add_argument(
        "--tls-key",
        type=Path,
        default=None,
        help="the certificate's PEM private key (default: none)",
    )
    parser.add_argument(
        "--exit-with-parent",
        action="store_true",
        help="exit when stdin closes; a parent that starts the simulator passes a pipe "
        "(default: off)",
    )
    return parser


def engine_profile(args: argparse.Namespace) -> Profile:
    """The engine profile the options describe; ``UsageError`` if they do not fit together."""
    if args.block_size is not None and args.block_size < 1:
        raise UsageError("--block-size must be 1 or more")
    profile = _engine_profile(args)
    return profile if args.block_size is None else replace(profile, block_size=args.block_size)


def _engine_profile(args: argparse.Namespace) -> Profile:
    allreduce = None if args.allreduce_us is None else args.allreduce_us * 1e-6
    notes_options = args.spec, args.max_num_batched_tokens, args.no_prefix_caching or None
    if args.profile not in BUILDS:
        if any(option is not None for option in notes_options):
            raise UsageError(
                "--spec, --max-num-batched-tokens and --no-prefix-caching apply to the "
                f"qwen3.8-* builds only, not --profile {args.profile}"
            )
        return get_profile(args.profile, args.tp, allreduce)
    spec = args.spec or DEFAULT_SPEC
    budget = DEFAULT_BUDGET if args.max_num_batched_tokens is None else args.max_num_batched_tokens
    try:
        parse_spec(spec)
    except ValueError as err:
        raise UsageError(f"--spec: {err}") from None
    try:
        profile = compose(args.profile, spec, budget, not args.no_prefix_caching)
    except ValueError as err:  # the engine's own refusal to start
        raise UsageError(str(err)) from None
    return with_tp(profile, args.tp, allreduce)


def lora_setup(args: argparse.Namespace) -> LoraSetup:
    """--lora, --max-loras, --lora-switch-ms; ``UsageError`` if they do not fit."""
    adapters = tuple(name.strip() for name in (args.lora or "").split(",") if name.strip())
    if len(set(adapters)) != len(adapters):
        raise UsageError(f"--lora: {args.lora!r} names an adapter twice")
    if args.max_loras is not None and args.max_loras < 1:
        raise UsageError("--max-loras must be 1 or more")
    if args.lora_switch_ms < 0:
        raise UsageError("--lora-switch-ms must be >= 0")
    return LoraSetup(adapters, args.max_loras or 1, args.lora_switch_ms / 1e3)


def build_server(args: argparse.Namespace) -> SimServer:
    """Check the option values and assemble backend and server; ``UsageError`` if bad."""
    if args.time_scale <= 0:
        raise UsageError("--time-scale must be positive")
    if (args.reasoning_tokens or 0) < 0 or args.fixed_tokens_per_chunk < 1:
        raise UsageError("--reasoning-tokens must be >= 0 and --fixed-tokens-per-chunk >= 1")
    if (args.tool_parser_holdback or 0) < 0:
        raise UsageError("--tool-parser-holdback must be >= 0")
    for flag, rate in (
        ("--tool-call-rate", args.tool_call_rate),
        ("--tool-call-error-rate", args.tool_call_error_rate or 0.0),
        ("--schema-error-rate", args.schema_error_rate),
        ("--output-drift", args.output_drift),
        ("--accuracy", 0.0 if args.accuracy is None else args.accuracy),
    ):
        if not 0 <= rate <= 1:
            raise UsageError(f"{flag} must be between 0 and 1")
    if args.fixed_ttft_ms < 0 or args.fixed_itl_ms < 0:
        raise UsageError("--fixed-ttft-ms and --fixed-itl-ms must be >= 0")
    try:
        rates = parse_fault_spec(args.faults)
    except ValueError as err:
        raise UsageError(f"--faults: {err}") from None
    try:
        categories = (
            parse_category_acceptance(args.category_acceptance)
            if args.category_acceptance
            else None
        )
    except ValueError as err:
        raise UsageError(f"--category-acceptance: {err}") from None
    lora = lora_setup(args)
    backend: Backend
    if args.profile == FIXED:
        if args.block_size is not None:
            raise UsageError("--block-size: --profile fixed has no KV cache")
        if args.thermal:
            raise UsageError("--thermal: --profile fixed draws no power to heat with")
        timing = FixedTiming(
            args.fixed_ttft_ms / 1e3, args.fixed_itl_ms / 1e3, args.fixed_tokens_per_chunk
        )
        backend = FixedBackend(timing, args.time_scale, lora)
        model, speculative = "sparkload-sim-fixed", False
    else:
        profile = engine_profile(args)
        thermal = ThermalModel() if args.thermal else None
        backend = EngineBackend(profile, args.time_scale, args.seed, lora, thermal)
        model, speculative = profile.model_name, profile.spec is not None
    config = ServerConfig(
        model_name=args.served_model_name or model,
        time_scale=args.time_scale,
        fault_rates=rates,
        fault_seed=args.fault_seed,
        reasoning_tokens=args.reasoning_tokens or 0,
        reasoning_field=args.reasoning_field,
        timing_log=args.timing_log,
        speculative=speculative,
        tool_call_rate=args.tool_call_rate,
        tool_call_error_rate=args.tool_call_error_rate or 0.0,
        tool_parser_holdback=args.tool_parser_holdback or 0,
        reasoning_usage=not args.no_reasoning_usage,
        seed=args.seed,
        schema_error_rate=args.schema_error_rate,
        output_drift=args.output_drift,
        accuracy=args.accuracy,
        category_acceptance=categories,
        lora=lora,
    )
    return SimServer(backend, config)


def tls_context(args: argparse.Namespace) -> ssl.SSLContext | None:
    """Serve HTTPS with the given certificate (to test clients' TLS verification)."""
    if not args.tls_cert:
        return None
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    context.load_cert_chain(args.tls_cert, args.tls_key)
    return context


def stop_when_stdin_closes(loop: asyncio.AbstractEventLoop, stop: asyncio.Event) -> None:
    """End with the parent: its end of our stdin pipe closes when it exits, even on SIGKILL."""

    def on_readable() -> None:
        if not os.read(sys.stdin.fileno(), 4096):
            loop.remove_reader(sys.stdin.fileno())
            stop.set()

    loop.add_reader(sys.stdin.fileno(), on_readable)


async def serve(
    server: SimServer,
    host: str,
    port: int,
    exit_with_parent: bool = False,
    tls: ssl.SSLContext | None = None,
) -> None:
    """Serve until SIGTERM/SIGINT (or the parent's exit), announcing the bound port on stdout."""
    runner = web.AppRunner(server.app(), access_log=None, handle_signals=False)
    await runner.setup()
    site = web.TCPSite(runner, host, port, ssl_context=tls)
    await site.start()
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)
    if exit_with_parent:
        stop_when_stdin_closes(loop, stop)
    scheme = "https" if tls else "http"
    print(READY_LINE.format(scheme=scheme, host=host, port=runner.addresses[0][1]), flush=True)
    try:
        await stop.wait()
    finally:
        await runner.cleanup()


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        server = build_server(args)
    except UsageError as err:
        print(f"sparkload sim: error: {err}", file=sys.stderr)
        return 2
    try:
        asyncio.run(serve(server, args.host, args.port, args.exit_with_parent, tls_context(args)))
    except OSError as err:  # e.g. the port is taken
        print(f"sparkload sim: error: {err}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
