"""Does a long run keep its memory flat? One long time-based step against the simulator.

A level of many requests must cost the load generator the same memory as a short one: records go
to disk as they come, and the live table and the per-level state (the stream check's sample, the
live percentiles) are bounded. This runs the main job as a user would, one process (the local
runner: users and the run's master side together), one ``--step-duration`` step at
``--ladder C`` against the built-in simulator at a high time scale, and samples the process's
resident memory from outside every half second.

    .venv/bin/python benchmarks/long_run.py [--seconds 240] [--concurrency 64]
        [--time-scale 200] [--max-tokens 8]

It prints the request count and the resident memory (median over 5 s) after the first tenth of
the requests, at the middle and at the end, and the peak.
"""

from __future__ import annotations

import argparse
import bisect
import contextlib
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import psutil
from harness import run_main_job  # benchmarks/ is on sys.path when run as a script


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=240.0, help="real seconds of the step")
    parser.add_argument("--concurrency", type=int, default=64)
    parser.add_argument("--time-scale", type=float, default=200.0)
    parser.add_argument("--max-tokens", type=int, default=8)
    args = parser.parse_args()
    samples: list[tuple[float, int]] = []

    def watch(process: subprocess.Popen) -> None:
        with contextlib.suppress(psutil.NoSuchProcess):
            samples.append((time.time(), psutil.Process(process.pid).memory_info().rss))

    started = time.monotonic()
    with tempfile.TemporaryDirectory() as tmp:
        manifest, records = run_main_job(
            "",  # no host: the built-in simulator
            Path(tmp),
            "--ladder",
            str(args.concurrency),
            "--step-duration",
            str(args.seconds),
            "--max-tokens",
            str(args.max_tokens),
            "--sim-time-scale",
            f"{args.time_scale:g}",
            "--metrics-interval",
            "0",
            watch=watch,
        )
    measured = [r for r in records if r["phase"] == "measure"]
    ok = sum(r["status"] == "ok" for r in measured)
    ends = sorted(r["start_time"] + r["latency"] / args.time_scale for r in measured)
    print(
        f"one step of {args.seconds:g} s real ({args.seconds * args.time_scale / 3600:.1f} h "
        f"simulated), C={args.concurrency}, {args.max_tokens} tokens: {len(measured):,} "
        f"measured requests ({ok:,} ok), status {manifest['status']}, "
        f"{time.monotonic() - started:.0f} s in all"
    )
    points = []
    for fraction in (0.1, 0.5, 1.0):
        when = ends[0] + fraction * (ends[-1] - ends[0])
        window = [rss for t, rss in samples if abs(t - when) <= 2.5]
        rss = statistics.median(window) / 2**20 if window else float("nan")
        points.append(f"{rss:.1f} MiB after {bisect.bisect_right(ends, when):,} requests")
    peak = max(rss for _, rss in samples) / 2**20
    print(f"resident memory of the run's process: {', '.join(points)}; peak {peak:.1f} MiB")
    return 0


if __name__ == "__main__":
    sys.exit(main())
