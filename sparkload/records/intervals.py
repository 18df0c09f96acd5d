"""Confidence intervals of one level's statistics, shared by the load side and the analysis.

A percentile's is distribution-free (the order statistics between which the true quantile lies
with at least the confidence, as the count of values below it is Binomial(n, q)); a mean's is
the normal one, mean ± z·s/√n. Both are plain Python (no numpy on the load side) and
deterministic: given the same sorted values, the live stop rule of ``--target-precision`` and
the report compute the same bits (``records/precision.py``).
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Sequence
from statistics import NormalDist


def order_statistic_interval(
    sorted_values: Sequence[float], q: float, confidence: float = 0.90
) -> tuple[float, float] | None:
    """Distribution-free, equal-tailed confidence interval of quantile q (0 < q < 1): the order
    statistics x₍ₗ₎ and x₍ᵤ₎ between which the true quantile lies with at least ``confidence``,
    as the count of values below it is Binomial(n, q). None when n is too small for any pair to
    reach it (``interval_needs``): no interval, rather than a bootstrap's, which looks narrow
    even for three values."""
    n = len(sorted_values)
    if n == 0:
        return None
    tail = (1.0 - confidence) / 2.0
    low: int | None = None  # x₍ₖ₊₁₎ is a lower end when P(B <= k) <= tail: the last such k
    for k, below in enumerate(_binomial_cdf(n, q)):  # below = P(B <= k), k = 0..n-1
        if below <= tail:
            low = k
        if 1.0 - below <= tail:  # x₍ₖ₊₁₎ an upper end when P(B > k) <= tail: the first such k
            return None if low is None else (float(sorted_values[low]), float(sorted_values[k]))
    return None


def interval_needs(q: float, confidence: float = 0.90) -> int:
    """The fewest values from which ``order_statistic_interval`` gives quantile q an interval:
    the smallest and the largest value must each fall beyond it with at most the tail's
    probability ((1 − q)ⁿ and qⁿ at most (1 − confidence) / 2): 29 for a p90, 5 for a p50."""
    tail = (1.0 - confidence) / 2.0
    return max(math.ceil(math.log(tail) / math.log(p)) for p in (q, 1.0 - q))


def _binomial_cdf(n: int, p: float) -> Iterator[float]:
    """P(B <= k) for k = 0..n-1, B ~ Binomial(n, p), summed in log space (no overflow at a
    million); lazily, so a caller that has what it needs stops early."""
    log_pmf = n * math.log(1.0 - p)
    odds = math.log(p / (1.0 - p))
    total = 0.0
    for k in range(n):
        total += math.exp(log_pmf)
        yield min(total, 1.0)
        log_pmf += math.log((n - k) / (k + 1)) + odds


def mean_interval(values: Sequence[float], confidence: float = 0.90) -> tuple[float, float] | None:
    """The normal confidence interval of the mean, mean ± z·s/√n (s the sample standard
    deviation, z the normal quantile of the confidence: 1.645 at 90 %); None below two
    values. Sums are ``math.fsum``'s, correctly rounded, so the order of the values does not
    change a bit of it."""
    n = len(values)
    if n < 2:
        return None
    mean = math.fsum(values) / n
    spread = math.sqrt(math.fsum((v - mean) ** 2 for v in values) / (n - 1))
    half = NormalDist().inv_cdf(0.5 + confidence / 2.0) * spread / math.sqrt(n)
    return mean - half, mean + half
