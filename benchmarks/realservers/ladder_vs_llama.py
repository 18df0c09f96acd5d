"""sparkload's ladder against llama-server, beside the server's own prompt-processing time.

Part 1 (direct): each level C of 1,2,4,8 is its own run of the main job (chat, 2 requests per
user, 32 tokens), repeated ``--runs`` times; llama-server's ``/metrics`` counters are read
before and after each run, so the server's mean prompt time per request at that level is
Δ``llamacpp:prompt_seconds_total`` / requests sent (warm-up included: the server saw it too).

Part 2 (paths): ``--path-runs`` runs of the whole ladder per path: direct, nginx ``buffered``
(buffering on, the upstream's X-Accel-Buffering ignored) and ``unbuffered``, mitmproxy (its
defaults, and ``stream_large_bodies=10k``), LiteLLM; TTFT / ITL / latency means per level side by
side, and the stream flags each run raised (the same every run, or not).

    python -m benchmarks.realservers.ladder_vs_llama [--runs 2] [--path-runs 3] [--tokens 64]
        [--paths direct,nginx-buffered,...] [--skip-direct]

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


PATHS = (
    "direct",
    "nginx-plain",
    "nginx-buffered",
    "nginx-unbuffered",
    "mitmproxy",
    "mitmproxy-10k",
    "litellm",
)


def path_contexts(url: str, wanted: tuple[str, ...]) -> list[tuple[str, Callable[[], Any]]]:
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
    def gateway(kind: str, option: str | None = None) -> Iterator[tuple[str, list[str]]]:
        with Gateway(url, kind, option) as found:
            yield found.url, ["--api-key", found.api_key] if found.api_key else []

    makers: dict[str, Callable[[], Any]] = {
        "direct": direct,
        **{f"nginx-{c}": partial(proxy, c) for c in ("plain", "buffered", "unbuffered")},
        "mitmproxy": partial(gateway, "mitmproxy"),
        "mitmproxy-10k": partial(gateway, "mitmproxy", "10k"),
        "litellm": partial(gateway, "litellm"),
    }
    found: list[tuple[str, Callable[[], Any]]] = []
    for name in wanted:
        if name.startswith("nginx") and not nginx_binary():
            print(f"{name}: skipped, nginx not installed: apt-get install -y nginx")
        elif name.startswith(("mitmproxy", "litellm")) and not executable(name.split("-")[0]):
            print(f"{name}: skipped, not installed: see benchmarks/realservers/gateway.py")
        else:
            found.append((name, makers[name]))
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


def level_means(records: list[dict], level: int) -> tuple[int, int, list[float | None]]:
    """ok, failed, and the TTFT / ITL / latency means of one level's measured requests."""
    rows = measured(records, level)
    good = [r for r in rows if r["status"] == "ok"]
    ok, fail, _ = ok_failed(rows)
    itls = [r["itl"] for r in good if r["itl"] is not None]
    return (
        ok,
        fail,
        [mean([r["ttft"] for r in good]), mean(itls), mean([r["latency"] for r in good])],
    )


def paths_part(url: str, wanted: tuple[str, ...], runs: int, tokens: int, deadline: float) -> None:
    """``runs`` whole-ladder runs per path; per level the TTFT / ITL / latency means (the mean
    and range over runs, beside the direct path's) and the stream flags of every run."""
    ladder = ",".join(map(str, LEVELS))
    job = [*JOB, "--max-tokens", str(tokens)]
    results: dict[str, list[tuple[dict, list[dict]]]] = {}
    print(f"\n== paths: {runs} run(s) of the ladder each, {tokens} tokens ==")
    for name, context in path_contexts(url, wanted):
        for run in range(runs):
            if time.monotonic() > deadline:
                print(f"{name} run {run + 1}: skipped, out of time budget")
                continue
            with context() as (target, extra), tempfile.TemporaryDirectory() as tmp:
                before = metrics(url)
                manifest, records = run_main_job(
                    target, Path(tmp), "--ladder", ladder, *job, *extra
                )
                results.setdefault(name, []).append((manifest, records))
                print(
                    f"{name:16s} run {run + 1}: {server_side(before, metrics(url), len(records))}"
                )
    print("\nmeans per level in ms: mean over runs [min-max]; ok/failed over all runs")
    print(f"{'path':16s}  C    ok fail            ttft                   itl              latency")
    for level in LEVELS:
        for name, outcomes in results.items():
            per_run = [level_means(records, level) for _, records in outcomes]
            ok = sum(o for o, _, _ in per_run)
            fail = sum(f for _, f, _ in per_run)
            cells = []
            for i in range(3):
                values = [m[i] for _, _, m in per_run if m[i] is not None]
                cells.append(
                    f"{ms(mean(values))} [{ms(min(values)).strip()}-{ms(max(values)).strip()}]"
                    if values
                    else "-"
                )
            print(f"{name:16s} {level:2d} {ok:5d} {fail:4d}  " + "  ".join(cells))
    print("\nwhat each path looks like to sparkload (manifest: servers; stream flags per run)")
    for name, outcomes in results.items():
        headers = {}
        for manifest, _ in outcomes:
            for entry in (manifest.get("servers") or {}).values():
                headers.update(entry.get("headers") or {})
        print(f"{name:16s} headers {', '.join(f'{k}: {v}' for k, v in headers.items()) or '-'}")
        for index, level in enumerate(LEVELS):
            kinds = [
                ",".join(manifest["levels"][index].get("stream_flag_kinds") or []) or "ok"
                for manifest, _ in outcomes
                if index < len(manifest.get("levels") or [])
            ]
            same = "same every run" if len(set(kinds)) == 1 else "DIFFER between runs"
            print(f"{'':16s} C={level}: {' / '.join(kinds)}  ({same})")
        for manifest, _ in outcomes[:1]:
            for level in manifest.get("levels") or []:
                for flag in level.get("stream_flags") or []:
                    print(f"{'':16s}   C={level['concurrency']} e.g. {flag}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=2, help="direct runs per level")
    parser.add_argument("--budget", type=float, default=240, help="seconds before no new run")
    parser.add_argument("--threads", type=int, default=1, help="llama-server -t")
    parser.add_argument(
        "--paths",
        default=",".join(p for p in PATHS if p != "nginx-plain"),
        help=f"comma-separated, of {', '.join(PATHS)}",
    )
    parser.add_argument("--path-runs", type=int, default=1, help="ladder runs per path")
    parser.add_argument("--tokens", type=int, default=MAX_TOKENS, help="max_tokens of the paths")
    parser.add_argument("--skip-direct", action="store_true", help="only the paths part")
    parser.add_argument("--size", choices=("tiny", "small"), default="small", help="model")
    args = parser.parse_args(argv)
    wanted = tuple(p.strip() for p in args.paths.split(",") if p.strip())
    if unknown := [p for p in wanted if p not in PATHS]:
        parser.error(f"--paths: unknown {', '.join(unknown)}; of {', '.join(PATHS)}")
    deadline = time.monotonic() + args.budget
    started = time.monotonic()
    with LlamaServer(parallel=8, threads=args.threads, model_size=args.size) as server:
        print(f"llama-server {server.url} (-np 8, -t {args.threads}); {args.size} model")
        if not args.skip_direct:
            direct_part(server.url, args.runs, deadline)
        paths_part(server.url, wanted, args.path_runs, args.tokens, deadline)
    print(f"\ntook {time.monotonic() - started:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
