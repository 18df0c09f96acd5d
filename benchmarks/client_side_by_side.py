"""The client's cost per token beside its floor and a plain Locust client, in one run.

Each client streams the same load from its own fresh reference server (benchmarks/
reference_server.py: TTFT 100 ms, 10 ms between tokens, one token per event, 128 tokens) at
concurrency 256, 3 requests a user, on this machine:

- ``floor``: sparkload's transport reading the streams and parsing nothing (floor_client.py);
- ``fasthttp``: a plain Locust FastHttpUser reading lines and decoding each (fasthttp_baseline.py);
- ``sparkload``: the main job, ``locust -f locustfiles/chat.py --headless``, all its features on;
- ``before``: the main job of another checkout (``--before DIR``, e.g. a worktree of the last
  release), so before and after are measured in the same run.

The cost is the client's CPU time (user + system of its process and any processes under it,
sampled from outside every 50 ms)
between the server's first request arrival and its last token, per 1,000 tokens the server
wrote in that window (and the tokens/s it wrote there: the load the client kept up with);
every client is measured the same way. The rounds alternate the clients
(``--rounds``, median reported) so a neighbour's load falls on all of them alike. For the two
sparkload runs, the TTFT and ITL errors against the server's own stamps (matched by completion
id) are printed beside.

    .venv/bin/python benchmarks/client_side_by_side.py [--before DIR] [--rounds 3]
        [--concurrency 256] [--clients floor,fasthttp,sparkload]
"""

from __future__ import annotations

import argparse
import bisect
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

import psutil
from harness import LOCUST, ROOT, reference_server  # benchmarks/ is on sys.path as a script

from sparkload.records.requests_files import read_records

RUN_DEADLINE = 600
SAMPLE_EVERY_S = 0.05


@dataclass
class Measured:
    """One client's run: CPU per 1,000 tokens and, for sparkload, its timing errors (ms)."""

    cpu_per_1k: float
    tokens: int
    tokens_per_s: float  # what the server wrote in its window: the load the client kept up with
    ttft_err_p50: float | None = None
    ttft_err_p99: float | None = None
    itl_err_p50: float | None = None


def command_of(client: str, url: str, workdir: Path, args: argparse.Namespace) -> list[str]:
    python = sys.executable
    if client == "floor":
        return [
            python,
            str(ROOT / "benchmarks" / "floor_client.py"),
            url,
            "--concurrency",
            str(args.concurrency),
            "--requests-per-user",
            str(args.requests_per_user),
        ]
    if client == "fasthttp":
        return [
            LOCUST,
            "-f",
            str(ROOT / "benchmarks" / "fasthttp_baseline.py"),
            "--headless",
            "-H",
            url,
            "-u",
            str(args.concurrency),
            "-r",
            str(args.concurrency),
            "-t",
            f"{RUN_DEADLINE}s",
            "--only-summary",
        ]
    checkout = ROOT if client == "sparkload" else Path(args.before)
    return [
        LOCUST,
        "-f",
        str(checkout / "locustfiles" / "chat.py"),
        "--headless",
        "-H",
        url,
        "--results-dir",
        str(workdir / "results"),
        "--ladder",
        str(args.concurrency),
        "--requests-per-user",
        str(args.requests_per_user),
        "--max-tokens",
        "128",
    ]


def environment_of(client: str, args: argparse.Namespace) -> dict[str, str]:
    env = dict(os.environ, BASELINE_REQUESTS=str(args.requests_per_user))
    if client == "before":  # its own sparkload package (run from there, so it comes first)
        env["PYTHONPATH"] = str(Path(args.before).resolve())
    return env


def run_client(client: str, args: argparse.Namespace, workdir: Path) -> Measured:
    log = workdir / "server.jsonl"
    server = reference_server("--ttft-ms", "100", "--itl-ms", "10", "--log", str(log))
    samples: list[tuple[int, float]] = []  # (time_ns, CPU seconds so far)
    try:
        url = server.start()
        process = subprocess.Popen(
            command_of(client, url, workdir, args),
            env=environment_of(client, args),
            cwd=Path(args.before) if client == "before" else ROOT,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            stdin=subprocess.DEVNULL,
        )
        watched = psutil.Process(process.pid)
        deadline = time.monotonic() + RUN_DEADLINE
        while process.poll() is None and time.monotonic() < deadline:
            try:
                samples.append((time.time_ns(), tree_cpu(watched)))
            except psutil.NoSuchProcess:
                break
            time.sleep(SAMPLE_EVERY_S)
        if process.poll() is None:
            process.kill()
            raise SystemExit(f"{client}: did not finish within {RUN_DEADLINE} s")
        if process.returncode not in (0, 1) or client == "floor" and process.returncode:
            raise SystemExit(f"{client}: exited {process.returncode}")
    finally:
        server.stop()
    entries = [json.loads(line) for line in log.read_text().splitlines()]
    start = min(entry["arrival_ns"] for entry in entries)
    end = max(entry["end_ns"] for entry in entries)
    tokens = sum(entry["tokens"] for entry in entries)
    cpu = cpu_at(samples, end) - cpu_at(samples, start)
    measured = Measured(1000 * cpu / tokens, tokens, tokens / max((end - start) / 1e9, 1e-9))
    if client in ("sparkload", "before"):
        add_errors(measured, workdir, {entry["request_id"]: entry for entry in entries})
    return measured


def tree_cpu(process: psutil.Process) -> float:
    """CPU seconds (user + system) of a process and every process under it (a run's workers)."""
    total = 0.0
    for each in (process, *process.children(recursive=True)):
        try:
            cpu = each.cpu_times()
        except psutil.NoSuchProcess:
            continue
        total += cpu.user + cpu.system
    return total


def cpu_at(samples: list[tuple[int, float]], at_ns: int) -> float:
    """The CPU time at ``at_ns``, linear between the two samples around it."""
    times = [t for t, _ in samples]
    i = min(max(bisect.bisect_left(times, at_ns), 1), len(samples) - 1)
    (t0, c0), (t1, c1) = samples[i - 1], samples[i]
    return c0 + (c1 - c0) * min(max((at_ns - t0) / max(t1 - t0, 1), 0.0), 1.0)


def add_errors(measured: Measured, workdir: Path, server: dict[str, dict]) -> None:
    run_dir = next((workdir / "results").iterdir())
    records = read_records(run_dir)
    pairs = [
        (r, server[r["response_id"]])
        for r in records
        if r["phase"] == "measure" and r["status"] == "ok" and r["response_id"] in server
    ]
    ttft = [1000 * (r["ttft"] - s["server_ttft_s"]) for r, s in pairs]
    itl = [1000 * (r["itl"] - s["mean_itl_s"]) for r, s in pairs]
    measured.ttft_err_p50 = statistics.median(ttft)
    measured.ttft_err_p99 = statistics.quantiles(ttft, n=100, method="inclusive")[98]
    measured.itl_err_p50 = statistics.median(itl)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--before", help="another checkout whose main job runs as 'before'")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--concurrency", type=int, default=256)
    parser.add_argument("--requests-per-user", type=int, default=3)
    parser.add_argument("--clients", default="floor,fasthttp,sparkload")
    args = parser.parse_args()
    clients = args.clients.split(",") + (["before"] if args.before else [])
    runs: dict[str, list[Measured]] = {client: [] for client in clients}
    with tempfile.TemporaryDirectory() as tmp:
        for round_ in range(args.rounds):
            for client in clients:
                workdir = Path(tmp) / f"{client}-{round_}"
                workdir.mkdir()
                runs[client].append(run_client(client, args, workdir))
                print(f"round {round_ + 1} {client}: {runs[client][-1]}", file=sys.stderr)
    median = {c: statistics.median(m.cpu_per_1k for m in ms) for c, ms in runs.items()}
    print(
        f"C={args.concurrency}, 128 tokens a stream at 10 ms ITL, {args.rounds} rounds "
        "(median); CPU-s per 1,000 output tokens, the client process, server's window"
    )
    print(f"{'client':<10} {'CPU-s/1k':>9} {'/fasthttp':>9} {'/floor':>7}  rounds  TTFT err ms")
    for client, measured in runs.items():
        ratio_f = median[client] / median["fasthttp"] if "fasthttp" in median else float("nan")
        ratio_floor = median[client] / median["floor"] if "floor" in median else float("nan")
        each = " ".join(f"{m.cpu_per_1k:.4f}" for m in measured)
        each += "  tok/s " + "/".join(f"{m.tokens_per_s:,.0f}" for m in measured)
        errors = ""
        if measured[0].ttft_err_p50 is not None:
            errors = "  p50 " + "/".join(f"{m.ttft_err_p50:.2f}" for m in measured)
            errors += " p99 " + "/".join(f"{m.ttft_err_p99:.2f}" for m in measured)
            errors += " ITL p50 " + "/".join(f"{m.itl_err_p50:.3f}" for m in measured)
        print(
            f"{client:<10} {median[client]:>9.4f} {ratio_f:>9.2f} {ratio_floor:>7.2f}"
            f"  {each}{errors}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
