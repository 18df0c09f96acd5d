"""What does the load generator cost? CPU per token, the most events one process reads, memory.

Every figure comes from a real run of the main job (``locust -f locustfiles/chat.py --headless``)
with its full feature set on (records, events, messages to the master) against the reference
server (benchmarks/reference_server.py) on 127.0.0.1, client and server sharing this machine:

1. CPU per 1,000 streamed tokens at concurrency 256 (TTFT 100 ms, 10 ms between tokens, 128
   tokens, one token per event): the worker's own CPU time per level, from its self-monitor;
2. the most SSE events one process reads per second, the server sending as fast as it can
   (32 events per write), and the same with ``--processes 2``;
3. resident memory at 1 and at 1,024 concurrent streams, sampled from outside the process;
4. resident memory over a long steady run (64 streams back to back), to see it does not grow.

    .venv/bin/python benchmarks/client_cost.py [--only cpu|rate|memory|soak] [--soak-seconds 180]
"""

from __future__ import annotations

import argparse
import contextlib
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import psutil
from harness import (
    reference_server,
    run_main_job,
)  # benchmarks/ is on sys.path when run as a script


def level_window(records: list[dict], index: int) -> tuple[float, float]:
    level = [r for r in records if r["level_index"] == index]
    return min(r["start_time"] for r in level), max(r["start_time"] + r["latency"] for r in level)


def cpu_per_token(workdir: Path) -> None:
    server = reference_server("--ttft-ms", "100", "--itl-ms", "10")
    try:
        manifest, records = run_main_job(
            server.start(),
            workdir,
            "--ladder",
            "256",
            "--requests-per-user",
            "3",
            "--max-tokens",
            "128",
        )
    finally:
        server.stop()
    level = manifest["levels"][0]
    tokens = sum(r["output_tokens"] or 0 for r in records)
    cpu_s = level["client"]["cpu_s"]
    print(
        f"CPU per 1,000 tokens at C=256: {1000 * cpu_s / tokens:.4f} CPU-s "
        f"({cpu_s:.2f} CPU-s for {tokens:,} tokens in {len(records)} requests, "
        f"{1e6 * cpu_s / tokens:.1f} us per token event); flags: {level['client_flags'] or 'none'}"
    )


def max_event_rate(workdir: Path, processes: int) -> float:
    server = reference_server("--ttft-ms", "0", "--itl-ms", "0", "--burst", "32")
    extra = ["--processes", str(processes)] if processes > 1 else []
    try:
        _, records = run_main_job(
            server.start(),
            workdir,
            "--ladder",
            "32",
            "--requests-per-user",
            "2",
            "--max-tokens",
            "20000",
            *extra,
        )
    finally:
        server.stop()
    start, end = level_window(records, 0)
    events = sum(r["chunks"] for r in records if r["level_index"] == 0)
    return events / (end - start)


def memory_per_stream(workdir: Path) -> None:
    samples: list[tuple[float, int]] = []

    def watch(process: subprocess.Popen) -> None:
        with contextlib.suppress(psutil.NoSuchProcess):
            samples.append((time.time(), psutil.Process(process.pid).memory_info().rss))

    server = reference_server("--ttft-ms", "100", "--itl-ms", "100")
    try:
        _, records = run_main_job(
            server.start(),
            workdir,
            "--ladder",
            "1,1024",
            "--requests-per-user",
            "1",
            "--max-tokens",
            "100",
            "--request-timeout",
            "120",
            watch=watch,
        )
    finally:
        server.stop()
    rss = []
    for index in (0, 1):
        start, end = level_window([r for r in records if r["phase"] == "measure"], index)
        inside = [value for at, value in samples if start + 1 <= at <= end - 1]
        rss.append(statistics.median(inside))
    per_stream = (rss[1] - rss[0]) / 1023
    print(
        f"resident memory: {rss[0] / 2**20:.1f} MiB at 1 stream, "
        f"{rss[1] / 2**20:.1f} MiB at 1,024 streams "
        f"-> {per_stream / 1024:.1f} KiB per concurrent stream"
    )


def memory_over_time(workdir: Path, seconds: int) -> None:
    """A long steady run (64 streams back to back, one worker process beside the master): does
    the worker's resident memory keep growing? (The master keeps four floats per request for the
    exact live table, so its growth is by design; the worker should keep nothing.)"""
    samples: list[tuple[float, int]] = []

    def watch(process: subprocess.Popen) -> None:
        try:
            workers = psutil.Process(process.pid).children()
            if workers:
                samples.append((time.monotonic(), workers[0].memory_info().rss))
        except psutil.NoSuchProcess:
            pass

    server = reference_server("--ttft-ms", "100", "--itl-ms", "10")
    try:
        _, records = run_main_job(
            server.start(),
            workdir,
            "--ladder",
            "64",
            "--step-duration",
            str(seconds),
            "--max-tokens",
            "128",
            "--processes",
            "1",
            watch=watch,
        )
    finally:
        server.stop()
    start = samples[0][0]
    at = {}
    for fraction in (0.25, 0.5, 0.75, 1.0):
        window = [rss for t, rss in samples if abs(t - start - fraction * seconds) <= 2.5]
        at[fraction] = statistics.median(window) / 2**20 if window else float("nan")
    growth = (at[1.0] - at[0.25]) / (0.75 * seconds / 60)
    print(
        f"steady run, 64 streams for {seconds} s ({len(records):,} requests): "
        "worker resident memory "
        + ", ".join(f"{at[f]:.1f} MiB at {int(f * 100)} %" for f in at)
        + f" -> {growth:+.2f} MiB per minute after the first quarter"
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", choices=["cpu", "rate", "memory", "soak"])
    parser.add_argument("--soak-seconds", type=int, default=180)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        workdir = Path(tmp)
        if args.only in (None, "cpu"):
            cpu_per_token(workdir / "cpu")
        if args.only in (None, "rate"):
            one = max_event_rate(workdir / "rate1", 1)
            two = max_event_rate(workdir / "rate2", 2)
            print(
                f"most SSE events read per second: {one:,.0f} by one process; "
                f"{two:,.0f} with --processes 2 "
                f"({two / one:.2f}x)"
            )
        if args.only in (None, "memory"):
            memory_per_stream(workdir / "memory")
        if args.only in (None, "soak"):
            memory_over_time(workdir / "soak", args.soak_seconds)
    return 0


if __name__ == "__main__":
    sys.exit(main())
