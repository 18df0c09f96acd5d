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
from typing import Any

from sparkload.errors import ConfigError

SINGLE_POOL = 16  # one input length: distinct texts of that length
DISTRIBUTION_POOL = 64  # a distribution or a mix: distinct lengths (and texts)


@dataclass(frozen=True)
class Component:
    """One part of a length distribution: normal input and output lengths, and its weight."""

    input_tokens: int
    output_tokens: int | None  # None: the run's output length (--max-tokens, else the workload's)
    weight: float = 1.0
    input_stddev: float = 0.0
    output_stddev: float = 0.0

    def to_dict(self) -> dict[str, Any]:
        return {
            "input_tokens": self.input_tokens,
            "input_stddev": self.input_stddev,
            "output_tokens": self.output_tokens,
            "output_stddev": self.output_stddev,
            "weight": self.weight,
        }


@dataclass(frozen=True)
class Entry:
    """One pool entry: the input tokens its prompt is fitted to and its output length."""

    input_tokens: int
    output_tokens: int | None


def parse_seq_dist(flag: str, value: Any) -> tuple[Component, ...]:
    """``ISL[|SD],OSL[|SD]:WEIGHT;...`` (aiperf's semicolon format) → components whose weights
    sum to 1; empty when not given. A ConfigError of one line names the part that is wrong."""
    text = str(value or "").strip()
    if not text:
        return ()
    parts = [part.strip() for part in text.split(";") if part.strip()]
    components = [_component(flag, part) for part in parts]
    total = sum(c.weight for c in components)
    if not total > 0:
        raise ConfigError(f"{flag}: the weights sum to 0; give each pair a weight above 0")
    return tuple(
        Component(
            c.input_tokens, c.output_tokens, c.weight / total, c.input_stddev, c.output_stddev
        )
        for c in components
        if c.weight > 0  # a pair of weight 0 is never sent
    )


def _component(flag: str, part: str) -> Component:
    lengths, colon, weight_text = part.rpartition(":")
    if not colon:
        raise ConfigError(f"{flag}: {part!r} has no weight: give ISL,OSL:WEIGHT, e.g. 256,128:0.7")
    try:
        weight = float(weight_text)
    except ValueError:
        raise ConfigError(f"{flag}: {part!r}: the weight {weight_text!r} is not a number") from None
    if not (math.isfinite(weight) and weight >= 0):
        raise ConfigError(f"{flag}: {part!r}: the weight must be a finite number >= 0")
    pair = lengths.split(",")
    if len(pair) != 2:
        raise ConfigError(f"{flag}: {part!r}: give ISL,OSL:WEIGHT, e.g. 256,128:0.7")
    (isl, isl_sd), (osl, osl_sd) = (_length(flag, part, side) for side in pair)
    return Component(isl, osl, weight, isl_sd, osl_sd)


def _length(flag: str, part: str, side: str) -> tuple[int, float]:
    """``MEAN`` or ``MEAN|STDDEV``: a whole number >= 1 and a number >= 0."""
    mean_text, bar, sd_text = side.strip().partition("|")
    try:
        mean = int(mean_text)
        stddev = float(sd_text) if bar else 0.0
    except ValueError:
        raise ConfigError(
            f"{flag}: {part!r}: {side.strip()!r} is not LENGTH or LENGTH|STDDEV"
        ) from None
    if mean < 1 or not (math.isfinite(stddev) and stddev >= 0):
        raise ConfigError(f"{flag}: {part!r}: lengths are whole numbers >= 1, deviations >= 0")
    return mean, stddev


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
