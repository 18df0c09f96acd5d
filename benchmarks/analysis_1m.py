"""Benchmark: 1,000,000 records (or --records) through the whole post-processor (all tables
and charts).

Writes synthetic results directories (5 labels × ladder 1, 2, 4, 8, 16, 40,000 measured
requests per level, realistic distributions, ~1 % failures, one warm-up per level, a torn last
line, full-size records written by the master's own writer: ``requests.parquet/``, or with
--jsonl earlier versions' ``requests.jsonl``), then runs ``python -m analysis`` on them in a
subprocess and prints its progress lines, the records' bytes on disk per record, wall time and
peak memory (max RSS of the child). With --keep DIR the records stay, and a second run with the
same DIR measures the analysis again on them. Targets (issue 47, on 2 cores): 1,000,000 records
in under 10 s, 10,000,000 in under 90 s, both under 1,500 MB; at most 200 bytes per record.

    .venv/bin/python benchmarks/analysis_1m.py [--records 1000000] [--keep DIR] [--jsonl]
        [--slice-duration S]
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
import pyarrow as pa
import pyarrow.parquet as pq

from sparkload.records import MANIFEST_FILE, REQUESTS_FILE, REQUESTS_PARQUET, RequestRecord
from sparkload.records.columnar import to_batch, to_records
from sparkload.records.requests_files import (  # the parts' settings: as the master's
    _FLOATS,
    _NOT_FLOATS,
    PART_ROWS,
    RequestsWriter,
    record_line,
)

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
TARGET_MB = 1500  # peak RSS of the analysis, at 1,000,000 and at 10,000,000 records (issue 47)


def _template() -> pa.Table:
    """One record as the load side writes it, as a one-row table of the records' schema."""
    record = RequestRecord(
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
        ttfb=0.0,
        ttft=0.0,
        ttfc=0.0,
        t_last_token=0.0,
        latency=0.0,
        chunks=OUTPUT_TOKENS,
        chunk_gap_mean=0.0,
        chunk_gap_p50=0.0,
        chunk_gap_p90=0.0,
        chunk_gap_p99=0.0,
        chunk_gap_max=0.0,
        itl=0.0,
        tps=0.0,
        decode_tps=0.0,
    ).to_dict()
    return pa.Table.from_batches([to_batch([record])])


class _JsonLines:
    """Records as earlier versions wrote them: ``requests.jsonl`` (``--jsonl``)."""

    def __init__(self, run: Path) -> None:
        self.out = (run / REQUESTS_FILE).open("wb")

    def append(self, batch: pa.RecordBatch) -> None:
        self.out.write(b"".join(record_line(r) for r in to_records(batch)))

    def tear(self) -> None:
        self.out.write(TORN)

    def close(self) -> None:
        self.out.close()


class _Columnar(RequestsWriter):
    """Records in the master's layout (``requests.parquet/``), taken as whole record batches
    rather than record dicts (10,000,000 dicts would take an hour to make here), each written
    as a part with the writer's own Parquet settings (the writer builds its parts from JSON
    lines, which a batch never was); the torn line in the pending lines of a part it never
    wrote."""

    def append(self, batch: pa.RecordBatch) -> None:  # type: ignore[override]
        pq.write_table(
            pa.Table.from_batches([batch]),
            self.path / f"part-{self._part:06d}.parquet",
            row_group_size=self.part_rows,
            compression="zstd",
            use_dictionary=_NOT_FLOATS,
            use_byte_stream_split=_FLOATS,
        )
        self._part += 1

    def tear(self) -> None:
        (self.path / f"_pending-{self._part:06d}.jsonl").write_bytes(TORN)


TORN = b'{"request_id": "torn-by-a-kill", "level": 16, "lat'  # a killed run's last line


def _level(
    template: pa.Table, label: str, c: int, index: int, starts, ttft, latency, itl, tps, failed
) -> pa.Table:
    """One level's records, its warm-up first: the template's row, with each record's own
    figures; a failure without the figures of a reply."""
    n = len(starts)
    rows = template.take(np.zeros(n + 1, dtype=np.int64))
    j = np.concatenate([[0], np.arange(n)])  # the warm-up repeats the first request's figures
    bad = np.concatenate([[False], failed])
    ok = ~bad
    itl_j = itl[j]

    def floats(values) -> pa.Array:
        return pa.array(np.where(ok, values, np.nan), pa.float64(), from_pandas=True)

    def texts(values: list) -> pa.Array:
        return pa.array(values, type=rows.schema.field("phase").type)

    def text_unless_failed(value: str) -> pa.Array:
        return texts(np.where(ok, value, None).tolist())

    columns = {
        "request_id": pa.array([f"{label}-{c}-{i}" for i in range(-1, n)]),
        "level": pa.array(np.full(n + 1, c)),
        "level_index": pa.array(np.full(n + 1, index)),
        "user": pa.array(j % c),
        "prompt_index": pa.array(j % 100),
        "start_time": pa.array(starts[j]),
        "phase": texts(["warmup", *["measure"] * n]),
        "status": texts(np.where(ok, "ok", "error").tolist()),
        "error_kind": texts(np.where(ok, None, "timeout").tolist()),
        "error": pa.array(np.where(ok, None, "read timeout").tolist(), pa.string()),
        "http_status": pa.array(np.where(ok, 200, 0), mask=bad),
        "output_tokens": pa.array(np.full(n + 1, OUTPUT_TOKENS), mask=bad),
        "chunks": pa.array(np.full(n + 1, OUTPUT_TOKENS), mask=bad),
        "tokens_counted_by": text_unless_failed("usage"),
        "finish_reason": text_unless_failed("length"),
        "ttfb": floats(ttft[j] - 0.005),
        "ttft": floats(ttft[j]),
        "ttfc": floats(ttft[j]),
        "t_last_token": floats(latency[j] - 0.002),
        "latency": floats(latency[j]),
        "chunk_gap_mean": floats(itl_j),
        "chunk_gap_p50": floats(itl_j),
        "chunk_gap_p90": floats(itl_j * 1.1),
        "chunk_gap_p99": floats(itl_j * 1.3),
        "chunk_gap_max": floats(itl_j * 2),
        "itl": floats(itl_j),
        "tps": floats(tps[j]),
        "decode_tps": floats(1 / itl_j),
    }
    for name, values in columns.items():
        at = rows.schema.get_field_index(name)
        rows = rows.set_column(at, rows.schema.field(name), values)
    return rows


def write_run(
    root: Path,
    label: str,
    variant: str,
    ttft1: float,
    tps1: float,
    slowdown: float,
    per_level: int,
    rng: np.random.Generator,
    jsonl: bool,
) -> None:
    run = root / f"20260101T000000Z-{label}"
    run.mkdir(parents=True)
    template = _template()
    t0 = 1_767_225_600.0
    sink = _JsonLines(run) if jsonl else _Columnar(run)
    for index, c in enumerate(LADDER):
        n = per_level
        ttft = ttft1 * (1 + 0.15 * index) * rng.lognormal(0, 0.25, n)
        tps = tps1 * slowdown**index * rng.lognormal(0, 0.06, n)
        latency = OUTPUT_TOKENS / tps
        itl = (latency - ttft) / (OUTPUT_TOKENS - 1)
        failed = rng.random(n) < 0.01
        # closed loop: each of C users sends back to back
        starts = t0 + np.cumsum(latency) / c
        rows = _level(template, label, c, index, starts, ttft, latency, itl, tps, failed)
        for batch in rows.to_batches(max_chunksize=PART_ROWS):
            sink.append(batch)
        t0 = float(starts[-1] + latency[-1]) + 5
    sink.tear()
    sink.close()
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


def generate(root: Path, records: int, jsonl: bool) -> None:
    per_level = records // (len(LABELS) * len(LADDER))
    rng = np.random.default_rng(7)
    for label, variant, ttft1, tps1, slowdown in LABELS:
        write_run(root / "results", label, variant, ttft1, tps1, slowdown, per_level, rng, jsonl)


def on_disk(results: Path) -> int:
    """Bytes of the records' files (either layout) under ``results``."""
    files = [*results.rglob(REQUESTS_FILE), *results.rglob(f"{REQUESTS_PARQUET}/*")]
    return sum(p.stat().st_size for p in files if p.is_file())


def measure(command: list[str]) -> tuple[int, float, float, float, str]:
    """Exit code, wall seconds, CPU seconds (user + system), peak RSS (MB) of one child process,
    and its stderr. On a machine shared with other work the CPU seconds are the steadier figure.

    os.wait4 gives the rusage of that child alone. Its max RSS also counts the parent's
    high-water mark at exec, which is why the data is generated in another process first: this
    process stays small (~100 MB) and the figure is the analysis' own.
    """
    started = time.perf_counter()
    child = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    stderr = child.stderr.read()
    _, status, usage = os.wait4(child.pid, 0)
    wall = time.perf_counter() - started
    cpu = usage.ru_utime + usage.ru_stime
    return os.waitstatus_to_exitcode(status), wall, cpu, usage.ru_maxrss / 1024, stderr  # KiB


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--records", type=int, default=1_000_000)
    parser.add_argument("--keep", type=Path, help="write the data and the report here; keep them")
    parser.add_argument(
        "--slice-duration", type=float, help="also cut every level into windows of S seconds"
    )
    parser.add_argument(
        "--jsonl", action="store_true", help="write requests.jsonl, as earlier versions did"
    )
    parser.add_argument("--generate-only", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.generate_only:
        generate(args.generate_only, args.records, args.jsonl)
        return 0
    root = args.keep or Path(tempfile.mkdtemp(prefix="analysis-1m-"))
    total = args.records // (len(LABELS) * len(LADDER)) * len(LABELS) * len(LADDER)
    started = time.perf_counter()
    if (root / "results").is_dir():  # kept by an earlier run: measure the analysis again
        print(f"reusing the records kept in {root / 'results'}")
    else:
        generate_command = [sys.executable, __file__, "--generate-only", str(root)]
        generate_command += ["--records", str(args.records)] + (["--jsonl"] * args.jsonl)
        subprocess.run(generate_command, check=True)
        print(
            f"generated {total:,} measured records (+ warm-ups, 1 % failures) in "
            f"{time.perf_counter() - started:.1f} s"
        )
    size = on_disk(root / "results")
    kind = "JSON lines" if any((root / "results").rglob(REQUESTS_FILE)) else "Parquet"
    print(f"records on disk: {size / 1e6:.0f} MB of {kind}, {size / total:.0f} bytes per record")
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
    code, wall, cpu, peak_mb, stderr = measure([*command, "--slo", slo])
    if code != 0:
        print(stderr, file=sys.stderr)
        return 1
    print(stderr.rstrip())
    charts = len(list((root / "report").rglob("*.png")))
    target_s = 90 if total > 1_000_000 else 10
    print(
        f"analysis of {total:,} records (all tables, {charts} PNG + {charts} HTML charts): "
        f"wall time {wall:.1f} s (target < {target_s} s; CPU {cpu:.1f} s), "
        f"peak RSS {peak_mb:.0f} MB "
        f"(target < {TARGET_MB} MB)"
    )
    if not args.keep:
        shutil.rmtree(root)
    return 0 if wall < target_s and peak_mb < TARGET_MB else 1


if __name__ == "__main__":
    sys.exit(main())
