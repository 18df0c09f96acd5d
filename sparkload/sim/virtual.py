"""The report's closed-loop ladder, run against the engine in virtual time (no network).

C users each send their next request as soon as the previous one ends; every user sends
``rounds`` requests, after one warm-up request for the whole ladder. Prompts are either all
distinct (the default, as ``benchmarks/sim_calibration.py`` sends them) or drawn the way the
report's tool draws them (level C sends the first 10 x C prompts of one pool), so the prefix
cache sees the same repeats. Used by the calibration benchmark (the model's own prediction
beside the measured figures) and by tests (TTFT rising with load).
"""

from __future__ import annotations

import heapq
import random
import statistics
from dataclasses import dataclass

from sparkload.sim.engine import Engine, frontend_seconds
from sparkload.sim.profiles import Profile


@dataclass(frozen=True)
class RequestTiming:
    """One request as the report's client sees it (seconds of simulated time)."""

    ttft: float
    latency: float
    t_last: float
    tokens: int
    sent: float = 0.0  # when the client sent it, on the level's clock (starts at 0)

    @property
    def itl(self) -> float:
        return (self.t_last - self.ttft) / (self.tokens - 1)

    @property
    def tps(self) -> float:
        return self.tokens / self.latency


@dataclass(frozen=True)
class LevelMeans:
    concurrency: int
    ttft: float
    itl: float
    tps: float
    latency: float


def level_means(concurrency: int, timings: list[RequestTiming]) -> LevelMeans:
    return LevelMeans(
        concurrency,
        statistics.fmean(t.ttft for t in timings),
        statistics.fmean(t.itl for t in timings),
        statistics.fmean(t.tps for t in timings),
        statistics.fmean(t.latency for t in timings),
    )


def aggregate_tokens_per_s(timings: list[RequestTiming]) -> float:
    """Output tokens of a level over its wall time (first send to last token)."""
    start = min(t.sent for t in timings)
    end = max(t.sent + t.latency for t in timings)
    return sum(t.tokens for t in timings) / (end - start)


def prompt_blocks(prompt_index: int, prompt_tokens: int, block_size: int) -> tuple[int, ...]:
    """Stand-in block hashes: distinct per prompt, identical for repeats of one prompt."""
    return tuple(hash((prompt_index, b)) for b in range(prompt_tokens // block_size))


def run_level(
    engine: Engine,
    concurrency: int,
    prompts: list[int],
    prompt_tokens: int,
    max_tokens: int,
    seed: int,
) -> list[RequestTiming]:
    """One ladder level on ``engine`` (which keeps its prefix cache between levels), sending
    the prompts with the given indices in order; equal indices are identical prompts."""
    profile: Profile = engine.profile
    rng = random.Random(seed)
    total = len(prompts)
    order = prompts
    now = 0.0
    arrivals: list[tuple[float, int, str]] = []
    sent: dict[str, float] = {}
    first: dict[str, float] = {}
    produced: dict[str, int] = {}
    timings: list[RequestTiming] = []
    next_prompt = 0

    def send(at: float) -> None:
        nonlocal next_prompt
        if next_prompt >= total:
            return
        request_id = f"r{next_prompt}"
        sent[request_id] = at
        delay = frontend_seconds(profile, rng)
        heapq.heappush(arrivals, (at + delay, next_prompt, request_id))
        next_prompt += 1

    for _ in range(concurrency):
        send(now)
    while len(timings) < total:
        while arrivals and arrivals[0][0] <= now:
            _, index, request_id = heapq.heappop(arrivals)
            blocks = prompt_blocks(order[index], prompt_tokens, profile.block_size)
            engine.add(request_id, prompt_tokens, max_tokens, blocks)
        if not engine.has_work():
            now = arrivals[0][0]
            continue
        step = engine.step()
        now += step.duration_s
        for emission in step.emissions:
            rid = emission.request_id
            produced[rid] = produced.get(rid, 0) + emission.tokens
            if rid not in first and produced[rid] > profile.hidden_first_tokens:
                first[rid] = now
            if emission.finished:
                start = sent[rid]
                timings.append(
                    RequestTiming(
                        first[rid] - start, now - start, now - start, produced[rid], start
                    )
                )
                send(now)
    return timings


def ladder_prompts(
    levels: tuple[int, ...], rounds: int, prompt_pool: int | None
) -> list[list[int]]:
    """Prompt indices per level: the report's tool sends the first 10 x C prompts of one pool
    at every level (cycling); ``prompt_pool=None`` makes every request's prompt distinct."""
    if prompt_pool is not None:
        return [[i % prompt_pool for i in range(c * rounds)] for c in levels]
    starts = [sum(c * rounds for c in levels[:n]) for n in range(len(levels))]
    return [
        list(range(start, start + c * rounds)) for start, c in zip(starts, levels, strict=False)
    ]


def run_ladder(
    profile: Profile,
    levels: tuple[int, ...] = (1, 2, 4, 8, 16),
    rounds: int = 10,
    prompt_tokens: int = 128,
    max_tokens: int = 128,
    prompt_pool: int | None = None,
    seed: int = 0,
) -> list[LevelMeans]:
    """The whole ladder on one engine, one warm-up request first, as the report ran it."""
    engine = Engine(profile, seed)
    run_level(engine, 1, [-1], 8, 32, seed)  # the tool's warm-up: "What is warmup?", 32 tokens
    return [
        level_means(c, run_level(engine, c, prompts, prompt_tokens, max_tokens, seed + c))
        for c, prompts in zip(levels, ladder_prompts(levels, rounds, prompt_pool), strict=False)
    ]
