"""How on time, and how faithful, is a trace replay? The must-show of issue 18, with its figures.

Writes the Mooncake-style trace of ``benchmarks/mooncake_trace.py`` (200 lines over about 20 s:
sessions that extend their blocks, requests that share system-prompt blocks), starts
``sparkload sim --time-scale 1`` (real time, the default profile), replays the trace with
``--trace`` and ``--arrival-users 256`` (more users than lines: no request waits for a client),
and prints: the records against the lines, the send lateness (due time to the send, as the
records' ``queue_wait``: the event loop's own delay) at p50 / p99 / max, how many requests got
``cached_tokens`` >= 512 x (the leading blocks an earlier line sent whole) - 16, and the prompt
tokens against the trace's input lengths. Lateness depends on the machine: the loop's timers
wake in whole milliseconds (gevent's epoll), and a busy machine adds its own waits.

    .venv/bin/python benchmarks/trace_replay.py [--seed 1] [--runs 3]
"""

from __future__ import annotations

import argparse
import tempfile
from pathlib import Path

from harness import run_main_job  # puts the checkout on sys.path, for benchmarks.*

from benchmarks.mooncake_trace import generate, write
from sparkload.inputs.traces import BLOCK_TOKENS, load_trace
from sparkload.run.simulator_process import SimulatorProcess
from sparkload.workloads.trace import reused_blocks


def percentile(ordered: list[float], q: float) -> float:
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def replay(seed: int, workdir: Path) -> str:
    path = workdir / "trace.jsonl"
    write(path, generate(seed=seed))
    trace = load_trace(path)
    expected = dict(
        zip(
            (line.number for line in trace.lines),
            (BLOCK_TOKENS * reused - 16 for reused in reused_blocks(trace.lines)),
            strict=True,
        )
    )
    lengths = {line.number: line.input_length for line in trace.lines}
    simulator = SimulatorProcess(["--time-scale", "1"])
    try:
        _, records = run_main_job(
            simulator.start(), workdir, "--trace", str(path), "--arrival-users", "256"
        )
    finally:
        simulator.stop()
    lines = [r["extra"]["trace_line"] for r in records]
    late = sorted(r["queue_wait"] * 1000 for r in records)
    served = sum((r["cached_tokens"] or 0) >= expected[r["extra"]["trace_line"]] for r in records)
    exact = sum(r["prompt_tokens"] == lengths[r["extra"]["trace_line"]] for r in records)
    return (
        f"seed {seed}: {len(records)} records of {len(trace.lines)} lines "
        f"({len(set(lines))} distinct); send lateness p50 {percentile(late, 0.5):.2f} ms, "
        f"p99 {percentile(late, 0.99):.2f} ms, max {late[-1]:.2f} ms; cached as the trace "
        f"says {served}/{len(records)}; prompt tokens = input_length {exact}/{len(records)}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--runs", type=int, default=1)
    args = parser.parse_args()
    for run in range(args.runs):
        with tempfile.TemporaryDirectory() as tmp:
            print(replay(args.seed + run, Path(tmp)), flush=True)


if __name__ == "__main__":
    main()
