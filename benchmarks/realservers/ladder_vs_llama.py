"""sparkload's ladder against llama-server, beside the server's own prompt-processing time.

Part 1 (direct): each level C of 1,2,4,8 is its own run of the main job (chat, 2 requests per
user, 32 tokens), repeated ``--runs`` times; llama-server's ``/metrics`` counters are read
before and after each run, so the server's mean prompt time per request at that level is
Δ``llamacpp:prompt_seconds_total`` / requests sent (warm-up included: the server saw it too).

Part 2 (paths): one run of the whole ladder per path: direct, nginx ``plain``, nginx
``unbuffered``, the gateway (LiteLLM); TTFT / ITL / latency means per level side by side.

    python -m benchmarks.realservers.ladder_vs_llama [--runs 2] [--skip-gateway]

Bounded: every run of the main job has a deadline (benchmarks/harness.py) and the whole
benchmark stops starting runs after ``--budget`` seconds.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from functools import partial
from pathlib import Path
from typing import Any

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from benchmarks.harness import run_main_job
from benchmarks.realservers.gateway import Gateway, executable
from benchmarks.realservers.llama_server import LlamaServer, metrics
from benchmarks.realservers.nginx import Nginx, nginx_binary

LEVELS = (1, 2, 4, 8)
REQUESTS_PER_USER = 2
MAX_TOKENS = 32
# cold prompts in every run: a path measured after another must not find them in the cache
JOB = [
    "--requests-per-user",
    str(REQUESTS_PER_USER),
    "--max-tokens",
    str(MAX_TOKENS),
    "--cache-bust",
]


def mean(values: list[float]) -> float | None:
    return statistics.fmean(values) if values else None


def ms(value: float | None) -> str:
    return "-" if value is None else f"{value * 1000:8.2f}"


def measured(records: list[dict], level: int) -> list[dict]:
    return [r for r in records if r["level"] == level and r["phase"] == "measure"]


def ok_failed(records: list[dict]) -> tuple[int, int, str]:
    """Counts of ok and failed records, and the failure classes."""
    failed = [r.get("error_kind") or "?" for r in records if r["status"] != "ok"]
    kinds = ",".join(f"{k}x{failed.count(k)}" for k in sorted(set(failed)))
    return len(records) - len(failed), len(failed), kinds


COUNTERS = (
    "llamacpp:prompt_seconds_total",
    "llamacpp:tokens_predicted_seconds_total",
    "llamacpp:tokens_predicted_total",
)


def one_level(url: str, level: int, workdir: Path) -> tuple[list[dict], dict[str, float]]:
    """Run level C alone; its records and the server's counter increments over the run."""
    before = metrics(url)
    _, records = run_main_job(url, workdir, "--ladder", str(level), *JOB)
    after = metrics(url)
    return records, {name: after[name] - before[name] for name in COUNTERS}


def direct_part(url: str, runs: int, deadline: float) -> None:
    """Per level: sparkload's TTFT (mean/p50) beside the server's mean prompt time, and
    sparkload's ITL beside the server's decode time per token."""
    print("\n== direct: sparkload vs llama-server's own /metrics (ms), per level ==")
    print(" C runs  ok fail  ttft_mean  ttft_p50  srv_prompt   itl_mean  srv_decode  failures")
    for level in LEVELS:
        ttfts: list[float] = []
        itls: list[float] = []
        totals = dict.fromkeys(COUNTERS, 0.0)
        requests = ok = fail = n_runs = 0
        kinds: list[str] = []
        for _ in range(runs):
            if time.monotonic() > deadline:
                break
            with tempfile.TemporaryDirectory() as tmp:
                records, deltas = one_level(url, level, Path(tmp))
            totals = {name: totals[name] + deltas[name] for name in COUNTERS}
            requests, n_runs = requests + len(records), n_runs + 1
            rows = measured(records, level)
            o, f, k = ok_failed(rows)
            ok, fail = ok + o, fail + f
            kinds += [k] if k else []
            ttfts += [r["ttft"] for r in rows if r["status"] == "ok"]
            itls += [r["itl"] for r in rows if r["status"] == "ok" and r["itl"] is not None]
        prompt, decode, tokens = (totals[name] for name in COUNTERS)
        server_prompt = prompt / requests if requests else None
        server_decode = decode / tokens if tokens else None
        p50 = statistics.median(ttfts) if ttfts else None
        print(
            f"{level:2d} {n_runs:4d} {ok:3d} {fail:4d}   {ms(mean(ttfts))}  {ms(p50)}"
            f"    {ms(server_prompt)}   {ms(mean(itls))}    {ms(server_decode)}  {' '.join(kinds)}"
        )


def path_contexts(url: str, skip_gateway: bool) -> list[tuple[str, Callable[[], Any]]]:
    """(name, factory of a context manager yielding (url, extra args)) per path, in order.

    Each intermediary runs only during its own run: an idle LiteLLM still costs CPU, and on
    2 cores that would slow every other path measured beside it.
    """

    @contextmanager
    def direct() -> Iterator[tuple[str, list[str]]]:
        yield url, []

    @contextmanager
    def proxy(config: str) -> Iterator[tuple[str, list[str]]]:
        with Nginx(url, config) as nginx:
            yield nginx.url, []

    @contextmanager
    def gateway() -> Iterator[tuple[str, list[str]]]:
        with Gateway(url) as litellm:
            yield litellm.url, ["--api-key", litellm.api_key]

    found: list[tuple[str, Callable[[], Any]]] = [("direct", direct)]
    if nginx_binary():
        configs = ("plain", "buffered", "unbuffered")
        found += [(f"nginx-{c}", partial(proxy, c)) for c in configs]
    else:
        print("nginx not installed: apt-get install -y nginx")
    if skip_gateway:
        pass
    elif executable("litellm"):
        found.append(("litellm", gateway))
    else:
        print("litellm not installed: see benchmarks/realservers/gateway.py")
    return found


def server_side(before: dict[str, float], after: dict[str, float], requests: int) -> str:
    """The server's mean prompt time per request and decode time per token, in ms."""
    prompt = after["llamacpp:prompt_seconds_total"] - before["llamacpp:prompt_seconds_total"]
    decode = (
        after["llamacpp:tokens_predicted_seconds_total"]
        - before["llamacpp:tokens_predicted_seconds_total"]
    )
    tokens = after["llamacpp:tokens_predicted_total"] - before["llamacpp:tokens_predicted_total"]
    per_token = decode / tokens if tokens else None
    return f"server: prompt {ms(prompt / requests)} ms/request, decode {ms(per_token)} ms/token"


def paths_part(url: str, skip_gateway: bool, deadline: float) -> None:
    """One whole-ladder run per path; TTFT / ITL / latency means per level side by side."""
    ladder = ",".join(map(str, LEVELS))
    results: dict[str, list[dict]] = {}
    manifests: dict[str, dict] = {}
    print("\n== paths: one run of the ladder each ==")
    for name, context in path_contexts(url, skip_gateway):
        if time.monotonic() > deadline:
            print(f"{name}: skipped, out of time budget")
            continue
        with context() as (target, extra), tempfile.TemporaryDirectory() as tmp:
            before = metrics(url)
            manifests[name], results[name] = run_main_job(
                target, Path(tmp), "--ladder", ladder, *JOB, *extra
            )
            print(f"{name:16s} {server_side(before, metrics(url), len(results[name]))}")
    print("\nmeans per level (ms); ok/failed of measured requests")
    print(f"{'path':16s}  C  ok fail     ttft      itl   latency  failures")
    for level in LEVELS:
        for name, records in results.items():
            rows = measured(records, level)
            good = [r for r in rows if r["status"] == "ok"]
            ok, fail, kinds = ok_failed(rows)
            ttft = mean([r["ttft"] for r in good])
            itl = mean([r["itl"] for r in good if r["itl"] is not None])
            latency = mean([r["latency"] for r in good])
            print(
                f"{name:16s} {level:2d} {ok:3d} {fail:4d} {ms(ttft)} {ms(itl)} {ms(latency)}"
                f"  {kinds}"
            )
    print("\nwhat each path looks like to sparkload (manifest: servers, stream check per level)")
    for name, manifest in manifests.items():
        servers = "; ".join(
            ", ".join(f"{k}: {v}" for k, v in entry.get("headers", {}).items()) or "-"
            for entry in (manifest.get("servers") or {}).values()
        )
        print(f"{name:16s} headers {servers}")
        for level in manifest.get("levels") or []:
            flags = [flag.split(":")[0] for flag in level.get("stream_flags") or []]
            print(f"{'':16s} C={level['concurrency']}: {'; '.join(flags) or 'ok'}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=2, help="direct runs per level")
    parser.add_argument("--budget", type=float, default=240, help="seconds before no new run")
    parser.add_argument("--threads", type=int, default=1, help="llama-server -t")
    parser.add_argument("--skip-gateway", action="store_true")
    parser.add_argument("--size", choices=("tiny", "small"), default="small", help="model")
    args = parser.parse_args(argv)
    deadline = time.monotonic() + args.budget
    started = time.monotonic()
    with LlamaServer(parallel=8, threads=args.threads, model_size=args.size) as server:
        print(f"llama-server {server.url} (-np 8, -t {args.threads}); {args.size} model; 32 tokens")
        direct_part(server.url, args.runs, deadline)
        paths_part(server.url, args.skip_gateway, deadline)
    print(f"\ntook {time.monotonic() - started:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
