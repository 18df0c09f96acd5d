"""How exact are sparkload's TTFT and ITL? Compare each record with the server's own timing.

Starts the reference server (benchmarks/reference_server.py) on 127.0.0.1 — TTFT 100 ms, 10 ms
between tokens, one token per event, 128 tokens — with its per-request timing log, runs the real
main job
(``locust -f locustfiles/chat.py --headless``) against it at several concurrencies, joins each
record to the server's line by completion id, and prints the error (client − server) per level.

    .venv/bin/python benchmarks/client_accuracy.py [--levels 1,4,16,64] [--requests-per-user 3]
        [--before DIR]

``--before DIR`` runs another checkout's main job too (e.g. a worktree of the last release),
each on its own fresh server, so before and after are measured in the same run.

Client and server share this machine: the error includes loopback transfer, HTTP parsing on both
sides and scheduling noise, which is what a user of the numbers gets.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
from pathlib import Path

from harness import (
    ROOT,
    reference_server,
    run_main_job,
)  # benchmarks/ is on sys.path when run as a script


def run(
    levels: str, requests_per_user: int, workdir: Path, checkout: Path
) -> tuple[list[dict], dict[str, dict]]:
    """The records of one ladder run of ``checkout``'s main job, and the server's own timing of
    each request by its completion id."""
    timing_log = workdir / "server_timing.jsonl"
    server = reference_server("--ttft-ms", "100", "--itl-ms", "10", "--log", str(timing_log))
    try:
        _, records = run_main_job(
            server.start(),
            workdir,
            "--ladder",
            levels,
            "--requests-per-user",
            str(requests_per_user),
            "--max-tokens",
            "128",
            checkout=checkout,
        )
    finally:
        server.stop()  # flushes the timing log
    entries = (json.loads(line) for line in timing_log.read_text().splitlines())
    return records, {entry["request_id"]: entry for entry in entries}


def quantile(values: list[float], q: float) -> float:
    return statistics.quantiles(values, n=1000, method="inclusive")[round(q * 1000) - 1]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--levels", default="1,4,16,64")
    parser.add_argument("--requests-per-user", type=int, default=3)
    parser.add_argument("--before", type=Path, help="another checkout, measured in the same run")
    args = parser.parse_args()
    checkouts = {"sparkload": ROOT} | ({"before": args.before} if args.before else {})
    worst_ok = True
    for client, checkout in checkouts.items():
        with tempfile.TemporaryDirectory() as tmp:
            records, server = run(args.levels, args.requests_per_user, Path(tmp), checkout)
        print(f"== {client} ({checkout})")
        worst_ok &= report(records, server)
    print("p99 within 1 ms at every level:", "yes" if worst_ok else "NO")
    return 0


def report(records: list[dict], server: dict[str, dict]) -> bool:
    """Print each level's errors; True when every level's p99 is within 1 ms."""
    print(
        f"{'C':>3} {'n':>4}  {'TTFT err ms p50':>15} {'p99':>6} {'max':>6}   "
        f"{'ITL err ms p50':>14} {'p99':>6} {'max':>6}  p99 within 1 ms"
    )
    worst_ok = True
    for level in sorted({r["level"] for r in records}):
        pairs = [
            (r, server[r["response_id"]])
            for r in records
            if r["level"] == level and r["phase"] == "measure" and r["status"] == "ok"
        ]
        ttft = [1000 * (r["ttft"] - s["server_ttft_s"]) for r, s in pairs]
        itl = [1000 * (r["itl"] - s["mean_itl_s"]) for r, s in pairs]
        ok = abs(quantile(ttft, 0.99)) <= 1 and abs(quantile(itl, 0.99)) <= 1
        worst_ok &= ok
        print(
            f"{level:>3} {len(pairs):>4}  {statistics.median(ttft):>15.3f} "
            f"{quantile(ttft, 0.99):>6.3f} {max(ttft, key=abs):>6.3f}   "
            f"{statistics.median(itl):>14.4f} {quantile(itl, 0.99):>6.4f} "
            f"{max(itl, key=abs):>6.4f}  {'yes' if ok else 'NO'}"
        )
    return worst_ok


if __name__ == "__main__":
    sys.exit(main())
