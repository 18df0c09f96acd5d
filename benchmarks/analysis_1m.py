"""Benchmark: 1,000,000 records through the whole post-processor (all tables and charts).

Writes synthetic results directories (5 labels × ladder 1, 2, 4, 8, 16, 40,000 measured
requests per level, realistic distributions, ~1 % failures, one warm-up per level, a torn last
line, full-size records as the load side writes them), then runs ``python -m analysis`` on them
in a subprocess and prints its progress lines, wall time and peak memory (max RSS of the child).
Targets (the issue): under 60 s and under 2 GB on 2 cores.

    .venv/bin/python benchmarks/analysis_1m.py [--records 1000000] [--keep DIR] [--slice-duration S]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import orjson

from sparkload.records import MANIFEST_FILE, REQUESTS_FILE, RequestRecord

# (label, variant, C=1 ttft s, C=1 tps, per-level slowdown of tps); shapes like the report's.
LABELS = [
    ("fp8", "FP8", 0.27, 8.1, 0.95),
    ("fp8-mtp", "FP8-MTP", 0.32, 19.5, 0.91),
    ("awq-mtp", "AWQ-MTP", 0.27, 25.4, 0.88),
    ("nvfp4", "NVFP4", 0.23, 9.9, 0.95),
    ("nvfp4-mtp", "NVFP4-MTP", 0.52, 21.0, 0.91),
]
LADDER = [1, 2, 4, 8, 16]
OUTPUT_TOKENS = 128


def _template() -> dict:
    return RequestRecord(
        request_id="",
        level=1,
        level_index=0,
        phase="measure",
        worker="0",
        user=0,
        endpoint="http://127.0.0.1:8000/v1",
        model="Qwen/Qwen3.6-27B",
        prompt_index=0,
        max_tokens=OUTPUT_TOKENS,
        start_time=0.0,
        http_status=200,
        tokens_counted_by="usage",
        output_tokens=OUTPUT_TOKENS,
        prompt_tokens=140,
        cached_tokens=128,
        finish_reason="length",
    ).to_dict()


def write_run(
    root: Path,
    label: str,
    variant: str,
    ttft1: float,
    tps1: float,
    slowdown: float,
    per_level: int,
    rng: np.random.Generator,
) -> None:
    run = root / f"20260101T000000Z-{label}"
    run.mkdir(parents=True)
    base = _template()
    t0 = 1_767_225_600.0
    with (run / REQUESTS_FILE).open("wb") as out:
        for index, c in enumerate(LADDER):
            n = per_level
            ttft = ttft1 * (1 + 0.15 * index) * rng.lognormal(0, 0.25, n)
            tps = tps1 * slowdown**index * rng.lognormal(0, 0.06, n)
            latency = OUTPUT_TOKENS / tps
            itl = (latency - ttft) / (OUTPUT_TOKENS - 1)
            failed = rng.random(n) < 0.01
            # closed loop: each of C users sends back to back
            starts = t0 + np.cumsum(latency) / c
            chunks = []
            for i in range(-1, n):
                rec = dict(base)
                j = max(i, 0)
                rec.update(
                    request_id=f"{label}-{c}-{i}",
                    level=c,
                    level_index=index,
                    user=j % c,
                    prompt_index=j % 100,
                    start_time=float(starts[j]),
                )
                if i < 0:
                    rec["phase"] = "warmup"
                if i >= 0 and failed[i]:
                    rec.update(
                        status="error",
                        error_kind="timeout",
                        error="read timeout",
                        http_status=None,
                        output_tokens=None,
                        latency=None,
                        tokens_counted_by=None,
                        finish_reason=None,
                    )
                else:
                    lat, tt = float(latency[j]), float(ttft[j])
                    rec.update(
                        ttfb=tt - 0.005,
                        ttft=tt,
                        ttfc=tt,
                        t_last_token=lat - 0.002,
                        latency=lat,
                        chunks=OUTPUT_TOKENS,
                        chunk_gap_mean=float(itl[j]),
                        chunk_gap_p50=float(itl[j]),
                        chunk_gap_p90=float(itl[j]) * 1.1,
                        chunk_gap_p99=float(itl[j]) * 1.3,
                        chunk_gap_max=float(itl[j]) * 2,
                        itl=float(itl[j]),
                        tps=float(tps[j]),
                        decode_tps=1 / float(itl[j]),
                    )
                chunks.append(orjson.dumps(rec))
            out.write(b"\n".join(chunks) + b"\n")
            t0 = float(starts[-1] + latency[-1]) + 5
        out.write(b'{"request_id": "torn-by-a-kill", "level": 16, "lat')  # a killed run's last line
    manifest = {
        "schema": 1,
        "label": label,
        "variant": variant,
        "tp": 1,
        "nodes": 1,
        "model": "Qwen/Qwen3.6-27B",
        "mode": "ladder",
        "ladder": LADDER,
        "requests_per_user": per_level,
        "time_scale": 1.0,
        "status": "complete",
        "levels": [],
    }
    (run / MANIFEST_FILE).write_text(json.dumps(manifest))


def generate(root: Path, records: int) -> None:
    per_level = records // (len(LABELS) * len(LADDER))
    rng = np.random.default_rng(7)
    for label, variant, ttft1, tps1, slowdown in LABELS:
        write_run(root / "results", label, variant, ttft1, tps1, slowdown, per_level, rng)


def measure(command: list[str]) -> tuple[int, float, float, str]:
    """Exit code, wall seconds, peak RSS (MB) of one child process, and its stderr.

    os.wait4 gives the rusage of that child alone. Its max RSS also counts the parent's
    high-water mark at exec, which is why the data is generated in another process first: this
    process stays small (~100 MB) and the figure is the analysis' own.
    """
    started = time.perf_counter()
    child = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    stderr = child.stderr.read()
    _, status, usage = os.wait4(child.pid, 0)
    wall = time.perf_counter() - started
    return os.waitstatus_to_exitcode(status), wall, usage.ru_maxrss / 1024, stderr  # Linux: KiB


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--records", type=int, default=1_000_000)
    parser.add_argument("--keep", type=Path, help="write the data and the report here; keep them")
    parser.add_argument(
        "--slice-duration", type=float, help="also cut every level into windows of S seconds"
    )
    parser.add_argument("--generate-only", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.generate_only:
        generate(args.generate_only, args.records)
        return 0
    root = args.keep or Path(tempfile.mkdtemp(prefix="analysis-1m-"))
    started = time.perf_counter()
    subprocess.run(
        [sys.executable, __file__, "--generate-only", str(root), "--records", str(args.records)],
        check=True,
    )
    size = sum(p.stat().st_size for p in (root / "results").rglob(REQUESTS_FILE))
    total = args.records // (len(LABELS) * len(LADDER)) * len(LABELS) * len(LADDER)
    print(
        f"generated {total:,} measured records (+ warm-ups, 1 % failures), "
        f"{size / 1e6:.0f} MB of JSON lines in {time.perf_counter() - started:.1f} s"
    )
    slo = "ttft_p90_ms<=1000,tps_p10>=12,itl_p90_ms<=100"
    command = [
        sys.executable,
        "-m",
        "analysis",
        str(root / "results"),
        "--out",
        str(root / "report"),
    ]
    if args.slice_duration is not None:
        command += ["--slice-duration", f"{args.slice_duration:g}"]
    code, wall, peak_mb, stderr = measure([*command, "--slo", slo])
    if code != 0:
        print(stderr, file=sys.stderr)
        return 1
    print(stderr.rstrip())
    charts = len(list((root / "report").rglob("*.png")))
    print(
        f"analysis of {total:,} records (all tables, {charts} PNG + {charts} HTML charts): "
        f"wall time {wall:.1f} s (target < 60 s), peak RSS {peak_mb:.0f} MB (target < 2048 MB)"
    )
    if not args.keep:
        shutil.rmtree(root)
    return 0 if wall < 60 and peak_mb < 2048 else 1


if __name__ == "__main__":
    sys.exit(main())
