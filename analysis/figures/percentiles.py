"""Percentiles and their bootstrap confidence intervals, for both supported definitions.

Every quantile here is "value at order statistic k, plus a fraction of the step to k+1" of the
sorted sample. The two methods differ only in how (k, fraction) follow from n and q:

- ``linear`` (default): h = (n − 1)·q, k = ⌊h⌋, fraction = h − k — numpy's ``method="linear"``.
- ``cordatus``: the reference tool (CordatusAI/llm-benchmark): p50 is ``statistics.median``
  (mean of the two middle values for even n), every other quantile is the nearest rank
  ``sorted[ceil(q·n) − 1]`` (no interpolation; at n = 10 its p90 is the 9th value).

Writing both as (k, fraction) lets the bootstrap work on order statistics directly (see
``bootstrap_ci``), which is what makes confidence intervals cheap at 1,000,000 records.
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np

LINEAR = "linear"
CORDATUS = "cordatus"
METHODS = (LINEAR, CORDATUS)
FEW_SAMPLES_FOR_P90 = 20  # below this the p90 rests on the top one or two values


def position(n: int, q: float, method: str) -> tuple[int, float]:
    """Zero-based order statistic k and interpolation fraction of quantile q (0..1) of n values."""
    if n < 1:
        raise ValueError("no values")
    if method == LINEAR:
        h = (n - 1) * q
        k = min(int(math.floor(h)), n - 1)
        return k, (h - k if k < n - 1 else 0.0)
    if method == CORDATUS:
        if q == 0.5:
            return ((n - 1) // 2, 0.0) if n % 2 else (n // 2 - 1, 0.5)
        # Exact rational arithmetic: 0.9 * 30 in floats is 27.000000000000004, whose ceil is 28.
        rank = math.ceil(Fraction(str(q)) * n)
        return min(max(rank, 1), n) - 1, 0.0
    raise ValueError(f"unknown percentile method {method!r} (choose from {', '.join(METHODS)})")


def quantile(sorted_values: np.ndarray, q: float, method: str) -> float:
    """Quantile q of an ascending, NaN-free array; NaN when empty."""
    n = len(sorted_values)
    if n == 0:
        return math.nan
    k, frac = position(n, q, method)
    low = float(sorted_values[k])
    return low + frac * (float(sorted_values[k + 1]) - low) if frac else low


def bootstrap_estimates(
    sorted_values: np.ndarray,
    q: float,
    method: str,
    rng: np.random.Generator,
    resamples: int = 1000,
) -> np.ndarray:
    """Quantile q of each of ``resamples`` bootstrap resamples (empty for fewer than 2 values).

    Resampling n values with replacement and taking the quantile only ever reads order
    statistics k and k+1 of the resample. A resample is x[⌊n·U⌋] for n iid uniforms U, so its
    k-th order statistic is x[⌊n·U₍ₖ₎⌋] with U₍ₖ₎ ~ Beta(k+1, n−k), and the next one is the
    minimum of the remaining n−k−1 uniforms above U₍ₖ₎. Drawing those two numbers per resample
    gives exactly the bootstrap distribution in O(resamples) instead of O(resamples × n).
    """
    n = len(sorted_values)
    if n < 2 or resamples < 1:
        return np.empty(0)
    k, frac = position(n, q, method)
    u_k = rng.beta(k + 1, n - k, size=resamples)
    low = sorted_values[np.minimum((u_k * n).astype(np.int64), n - 1)]
    if not frac:
        return np.asarray(low, dtype=np.float64)
    above = n - k - 1
    u_next = u_k + (1.0 - u_k) * (1.0 - rng.random(resamples) ** (1.0 / above))
    high = sorted_values[np.minimum((u_next * n).astype(np.int64), n - 1)]
    return np.asarray(low + frac * (high - low), dtype=np.float64)


def bootstrap_ci(
    sorted_values: np.ndarray,
    q: float,
    method: str,
    rng: np.random.Generator,
    resamples: int = 1000,
    confidence: float = 0.90,
) -> tuple[float, float]:
    """Percentile-bootstrap confidence interval of quantile q (``bootstrap_estimates``)."""
    estimates = bootstrap_estimates(sorted_values, q, method, rng, resamples)
    if not len(estimates):
        return math.nan, math.nan
    tail = (1.0 - confidence) / 2.0
    lo, hi = np.quantile(estimates, [tail, 1.0 - tail])
    return float(lo), float(hi)
