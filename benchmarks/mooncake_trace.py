"""A small Mooncake-style trace with the prefix structure of chat traffic, for ``--trace``.

Every request starts with one of a few shared system prompts (whole 512-token blocks, the same
hash ids wherever that prompt is used). Sessions extend their blocks: each turn sends the
session so far (its system prompt and every earlier turn's whole blocks), one new whole block
and a partial block that only it has, as a conversation whose context grows. Single requests
send a system prompt and a short question (a partial block of their own). Sessions start over
the first part of the trace and their turns follow after a think time; single requests come at
random times over the whole span. The lines are in time order, with Mooncake's fields:
``timestamp`` (ms), ``input_length``, ``output_length`` and ``hash_ids`` (one per 512-token
block, the partial last one included).

    .venv/bin/python benchmarks/mooncake_trace.py trace.jsonl [--sessions 12 --singles 152]

prints how many lines, over how long, and what share of prompt tokens lie in blocks an earlier
line sent whole (the share a prefix cache that keeps everything could serve).
"""

from __future__ import annotations

import argparse
import json
import random
from pathlib import Path

from sparkload.inputs.traces import BLOCK_TOKENS as BLOCK
from sparkload.inputs.traces import load_trace
from sparkload.workloads.trace import reused_blocks


def generate(
    sessions: int = 12,
    turns: int = 4,
    singles: int = 152,
    span_s: float = 20.0,
    system_prompts: int = 2,
    system_blocks: int = 2,
    think_s: tuple[float, float] = (2.0, 4.0),
    tail_tokens: tuple[int, int] = (16, 128),
    output_tokens: tuple[int, int] = (8, 16),
    seed: int = 0,
) -> list[dict]:
    """The trace's lines, in time order: ``sessions`` x ``turns`` + ``singles`` lines over about
    ``span_s`` seconds."""
    rng = random.Random(seed)
    ids = iter(range(1 << 62))
    systems = [[next(ids) for _ in range(system_blocks)] for _ in range(system_prompts)]

    def line(t: float, whole: list[int]) -> dict:
        tail = rng.randint(*tail_tokens)  # a partial block only this line has
        return {
            "timestamp": round(t * 1000),
            "input_length": len(whole) * BLOCK + tail,
            "output_length": rng.randint(*output_tokens),
            "hash_ids": [*whole, next(ids)],
        }

    lines = [line(rng.uniform(0.0, span_s), rng.choice(systems)) for _ in range(singles)]
    for _ in range(sessions):
        context = list(rng.choice(systems))
        t = rng.uniform(0.0, max(span_s - (turns - 1) * think_s[1], 0.0))
        for _ in range(turns):
            context.append(next(ids))  # this turn's whole block, kept by the next turns
            lines.append(line(t, context))
            t += rng.uniform(*think_s)
    return sorted(lines, key=lambda item: item["timestamp"])


def write(path: Path, lines: list[dict]) -> None:
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("path", type=Path)
    parser.add_argument("--sessions", type=int, default=12)
    parser.add_argument("--turns", type=int, default=4)
    parser.add_argument("--singles", type=int, default=152)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    write(args.path, generate(args.sessions, args.turns, args.singles, seed=args.seed))
    trace = load_trace(args.path)
    reused = sum(reused_blocks(trace.lines)) * BLOCK
    total = sum(line.input_length for line in trace.lines)
    print(
        f"{len(trace.lines)} lines over {trace.span_s:.1f} s; {reused / total * 100:.1f}% of "
        f"prompt tokens in blocks an earlier line sent whole -> {args.path}"
    )


if __name__ == "__main__":
    main()
