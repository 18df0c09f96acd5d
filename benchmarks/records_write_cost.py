"""What does storing a record cost the master? CPU µs per record of its records writer.

Realistic records (a streamed, answered chat request as ``RequestRecord.to_dict`` writes it,
its derived metrics filled, times varying per record) arrive in batches of ``--batch`` (a
worker's report), as the master's ``ResultsWriter.append_records`` takes them. Three figures,
each process CPU time (all threads) over the records written:

1. JSON lines only: ``record_line`` appended and flushed, what earlier versions wrote (and what
   the writer's pending file still is);
2. the writer's ``append``, its parts' building aside: what the master pays a record it takes;
3. building and writing its parts (``write_part``, ``close`` included), and the longest a part
   held the master (wall seconds: the master does nothing else meanwhile);
4. the writer whole; and with its parts built in a thread (as the master does), its CPU
   (the thread's included) and the longest one ``append`` took (wall seconds).

    .venv/bin/python benchmarks/records_write_cost.py [--records 200000] [--batch 100]
"""

from __future__ import annotations

import argparse
import random
import tempfile
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from sparkload.records import RequestRecord
from sparkload.records.requests_files import RequestsWriter, read_records, record_line


def realistic(count: int, seed: int = 7) -> list[dict]:
    """``count`` answered chat records with varying times and counts."""
    rng = random.Random(seed)
    records = []
    for n in range(count):
        ttft = rng.uniform(0.02, 0.4)
        tokens = rng.randint(16, 512)
        latency = ttft + tokens * rng.uniform(0.008, 0.02)
        records.append(
            RequestRecord(
                request_id=f"{n % 16}-{n}",
                level=64,
                level_index=2,
                phase="measure",
                worker=str(n % 16),
                user=n % 64,
                endpoint="http://127.0.0.1:8000/v1",
                model="qwen",
                prompt_index=rng.randrange(1000),
                max_tokens=512,
                start_time=1_767_225_600 + n * 0.001,
                http_status=200,
                ttfb=ttft * 0.9,
                ttft=ttft,
                ttfc=ttft,
                t_last_token=latency - 0.001,
                latency=latency,
                output_tokens=tokens,
                tokens_counted_by="usage",
                chunks=tokens,
                prompt_tokens=rng.randint(100, 2000),
                cached_tokens=0,
                finish_reason="stop",
                response_id=f"chatcmpl-{rng.getrandbits(64):016x}",
                chunk_gap_mean=rng.uniform(0.008, 0.02),
                chunk_gap_p50=rng.uniform(0.008, 0.02),
                chunk_gap_p90=rng.uniform(0.01, 0.03),
                chunk_gap_p99=rng.uniform(0.02, 0.05),
                chunk_gap_max=rng.uniform(0.03, 0.1),
                burst_chunks=1,
                clock_offset=rng.uniform(-0.001, 0.001),
                extra={"workload": "chat", "identical": False, "prompt_chars": 514},
            )
            .derive()
            .to_dict()
        )
    return records


def _cpu_per_record(records: list[dict], batch: int, write: Callable[[list[dict]], None]) -> float:
    start = time.process_time()
    for at in range(0, len(records), batch):
        write(records[at : at + batch])
    return (time.process_time() - start) / len(records) * 1e6


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--records", type=int, default=200_000)
    parser.add_argument("--batch", type=int, default=100)
    args = parser.parse_args()
    records = realistic(args.records)
    with tempfile.TemporaryDirectory() as tmp:
        with Path(tmp, "requests.jsonl").open("ab") as lines:

            def json_lines(chunk: list[dict]) -> None:
                lines.write(b"".join(map(record_line, chunk)))
                lines.flush()

            jsonl = _cpu_per_record(records, args.batch, json_lines)
        writer = RequestsWriter(Path(tmp))
        parts_cpu, longest = 0.0, 0.0
        write_part = writer.write_part

        def timed_part() -> None:
            nonlocal parts_cpu, longest
            cpu, wall = time.process_time(), time.perf_counter()
            write_part()
            parts_cpu += time.process_time() - cpu
            longest = max(longest, time.perf_counter() - wall)

        writer.write_part = timed_part  # type: ignore[method-assign]
        start = time.process_time()
        _cpu_per_record(records, args.batch, writer.append)
        writer.close()
        whole = (time.process_time() - start) / len(records) * 1e6
        parts = parts_cpu / len(records) * 1e6
        assert read_records(Path(tmp)) == records, "the records read back differ"
    with tempfile.TemporaryDirectory() as tmp, ThreadPoolExecutor(1) as pool:
        threaded = RequestsWriter(Path(tmp), build=pool.submit)
        stall = 0.0

        def append(chunk: list[dict]) -> None:
            nonlocal stall
            wall = time.perf_counter()
            threaded.append(chunk)
            stall = max(stall, time.perf_counter() - wall)

        start = time.process_time()
        _cpu_per_record(records, args.batch, append)
        threaded.close()
        in_thread = (time.process_time() - start) / len(records) * 1e6
        assert read_records(Path(tmp)) == records, "the records read back differ"
    print(f"{args.records:,} records in batches of {args.batch}, CPU µs per record:")
    print(f"  JSON lines only (earlier versions):     {jsonl:6.1f}")
    print(f"  writer's append, parts aside:           {whole - parts:6.1f}")
    print(f"  its parts built and written:            {parts:6.1f}  (longest {longest:.2f} s)")
    print(f"  writer whole:                           {whole:6.1f}")
    thread = f"{in_thread:6.1f}  (longest append {stall:.2f} s)"
    print(f"  writer whole, parts in a thread:        {thread}")


if __name__ == "__main__":
    main()
