"""The lengths of the chat workload's synthetic prompts: one input length, a clamped normal around
it (``--input-tokens-stddev``, ``--output-tokens-stddev``) or aiperf's mix (``--seq-dist``).

A run's lengths are a fixed **pool** of (input, output) pairs, planned here and fitted once on
the master (``workloads.fitting``): every distinct input length is a text that must be counted,
and on a server's ``/tokenize`` each count is an HTTP request, so the cost is bounded by the pool,
not by the run's length. Requests take pool entries in the process's seeded shuffle, which deals
every entry once per round: over whole rounds the lengths sent are the pool's exactly.

The pool is stratified, not drawn: a component with n entries takes the normal's quantiles at
(i + 0.5) / n, rescaled so their mean and standard deviation are exactly the asked ones, then
rounded and clamped to at least 1 token (clamping raises the mean of a distribution that reaches
below 1). Inputs and outputs of a component are paired by a seeded permutation, so they are
independent rather than sorted together. A mix gives each component a share of the pool by its
weight (largest remainder, at least one entry each): with ``DISTRIBUTION_POOL`` entries a weight
is met to within 1/128.

``--seq-dist`` follows aiperf's semicolon format, ``ISL[|SD],OSL[|SD]:WEIGHT;...``; weights are
relative (``70;30`` or ``0.7;0.3``).
"""

from __future__ import annotations

import math
import random
import statistics
from dataclasses import dataclass

from sparkload.config.parsers import Component

SINGLE_POOL = 16  # one input length: distinct texts of that length
DISTRIBUTION_POOL = 64  # a distribution or a mix: distinct lengths (and texts)


@dataclass(frozen=True)
class Entry:
    """One pool entry: the input tokens its prompt is fitted to and its output length."""

    input_tokens: int
    output_tokens: int | None


def shares(weights: list[float], pool: int) -> list[int]:
    """How many of ``pool`` entries each weight gets: largest remainder, at least one each."""
    total = sum(weights)
    exact = [w / total * pool for w in weights]
    counts = [max(1, math.floor(x)) for x in exact]
    by_remainder = sorted(range(len(weights)), key=lambda i: exact[i] - math.floor(exact[i]))
    while sum(counts) < pool:
        counts[by_remainder.pop()] += 1
    return counts


def normal_lengths(mean: int, stddev: float, count: int) -> list[int]:
    """``count`` stratified lengths of a normal: its quantiles at (i + 0.5) / count, rescaled to
    exactly ``mean`` and ``stddev``, rounded, at least 1 (ascending)."""
    if stddev == 0 or count == 1:
        return [mean] * count
    unit = statistics.NormalDist()
    quantiles = [unit.inv_cdf((i + 0.5) / count) for i in range(count)]
    spread = statistics.pstdev(quantiles)
    return [max(1, round(mean + stddev * q / spread)) for q in quantiles]


def plan(components: tuple[Component, ...], pool: int, seed: int) -> tuple[Entry, ...]:
    """The pool: each component's share of ``pool`` entries, its inputs and outputs stratified
    and paired by a seeded permutation."""
    rng = random.Random(f"lengths:{seed}")
    entries: list[Entry] = []
    for component, count in zip(
        components, shares([c.weight for c in components], pool), strict=True
    ):
        inputs = normal_lengths(component.input_tokens, component.input_stddev, count)
        outputs: list[int | None] = [None] * count
        if component.output_tokens is not None:
            outputs = list(normal_lengths(component.output_tokens, component.output_stddev, count))
            rng.shuffle(outputs)
        entries += [Entry(i, o) for i, o in zip(inputs, outputs, strict=True)]
    return tuple(entries)


def pool_size(components: tuple[Component, ...], prefix_count: int) -> int:
    """Entries of the pool: 16 for one length, 64 for a distribution or a mix, rounded up to a
    whole number of rounds over the prefixes (each prefix owns every ``prefix_count``-th entry)."""
    varied = len(components) > 1 or any(c.input_stddev or c.output_stddev for c in components)
    size = DISTRIBUTION_POOL if varied else SINGLE_POOL
    rounds = -(-size // max(prefix_count, 1))
    return rounds * max(prefix_count, 1)
