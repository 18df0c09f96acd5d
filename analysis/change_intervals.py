"""How sure a change between two runs is: draws of each compared figure of a level, and the
confidence interval of the change they give (``sparkload compare``).

Why draws of each figure and not the report's intervals of each run: two runs' own intervals
that overlap do not say the change is noise (the interval of a difference is narrower than the
sum of the two), and a relative change has no interval of its own to read off. So each figure
is drawn ``resamples`` times from each run's measured requests, independently per run, and the
interval is the percentile interval of (run draw / baseline draw − 1), at the report's 90 %.
Each draw is the bootstrap's, made in O(resamples) whatever the level's size:

- a percentile: the exact bootstrap distribution of the order statistics it reads
  (``percentiles.bootstrap_estimates``, the report's own intervals' draws);
- a mean: the bootstrap distribution of a mean is normal with sd s/√n (the central limit
  theorem; resampling n values costs O(resamples × n), 10⁹ at a million records);
- the aggregate throughput: the level's output tokens / its wall time, which a closed or open
  loop holds at (requests in flight) × Σ output tokens / Σ latency (Little's law); the draws are
  the value scaled by that ratio's draws (normal, by the delta method), the in-flight count
  taken as measured, so the interval has the requests' own noise;
- the failure ratio: binomial draws of the level's measured requests at its observed ratio; its
  change is absolute (percentage points): from no failures a relative change is infinite.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import pandas as pd

from analysis import percentiles
from analysis.tolerances import FAILURES, MEAN, QUANTILE, THROUGHPUT, Compared

CONFIDENCE = 0.90  # the report's intervals' (percentiles.bootstrap_ci)


@dataclass(frozen=True)
class LevelSample:
    """One run's level as the draws need it: its ok measured requests, its counts and method."""

    ok: pd.DataFrame  # metrics.measured_ok's rows of the level
    n: int
    failures: int
    percentile_method: str = percentiles.LINEAR


def _finite(values: np.ndarray) -> np.ndarray:
    return values[np.isfinite(values)]


def draws(
    compared: Compared,
    sample: LevelSample,
    value: float,
    rng: np.random.Generator,
    resamples: int,
) -> np.ndarray:
    """``resamples`` draws of the figure at this level (empty where it cannot be drawn: fewer
    than two values, or none resamples); ``value`` is the figure as the report states it."""
    if resamples < 1 or not math.isfinite(value):
        return np.empty(0)
    if compared.kind == FAILURES:
        total = sample.n + sample.failures
        if total == 0:
            return np.empty(0)
        return rng.binomial(total, sample.failures / total, resamples) / total * 100.0
    if compared.kind == THROUGHPUT:
        return _throughput_draws(sample, value, rng, resamples)
    values = _finite(sample.ok[compared.field].to_numpy(np.float64)) * compared.factor
    if len(values) < 2:
        return np.empty(0)
    if compared.kind == MEAN:
        spread = float(values.std(ddof=1)) / math.sqrt(len(values))
        return rng.normal(float(values.mean()), spread, resamples)
    if compared.kind == QUANTILE:
        return percentiles.bootstrap_estimates(
            np.sort(values), compared.q, sample.percentile_method, rng, resamples
        )
    raise ValueError(f"unknown kind of figure {compared.kind!r}")


def _throughput_draws(
    sample: LevelSample, value: float, rng: np.random.Generator, resamples: int
) -> np.ndarray:
    tokens = sample.ok["output_tokens"].to_numpy(np.float64)
    latency = sample.ok["latency"].to_numpy(np.float64)
    both = np.isfinite(tokens) & np.isfinite(latency)
    tokens, latency = tokens[both], latency[both]
    if len(tokens) < 2 or latency.sum() <= 0 or tokens.sum() <= 0:
        return np.empty(0)
    ratio = tokens.sum() / latency.sum()
    # delta method: var(Σt/Σl) ≈ var(t − ratio·l) / (n · mean(l)²)
    spread = float((tokens - ratio * latency).std(ddof=1)) / math.sqrt(len(tokens))
    spread /= float(latency.mean())
    return value * rng.normal(ratio, spread, resamples) / ratio


@dataclass(frozen=True)
class Change:
    """A figure's change from the baseline to the run (percent, or percentage points for an
    absolute figure) and its confidence interval (NaN where either run could not be drawn)."""

    change: float
    low: float
    high: float

    @property
    def excludes_none(self) -> bool:
        """The interval lies wholly on one side of no change (a change beyond the noise)."""
        return self.low > 0 or self.high < 0


def measure_change(
    compared: Compared,
    baseline: float,
    run: float,
    baseline_draws: np.ndarray,
    run_draws: np.ndarray,
    confidence: float = CONFIDENCE,
) -> Change:
    """The change and its percentile interval over paired independent draws of both runs."""
    if compared.relative:
        point = (run / baseline - 1.0) * 100.0 if baseline else math.nan
    else:
        point = run - baseline
    count = min(len(baseline_draws), len(run_draws))
    if not math.isfinite(point) or count == 0:
        return Change(point, math.nan, math.nan)
    base, other = baseline_draws[:count], run_draws[:count]
    with np.errstate(divide="ignore", invalid="ignore"):
        changes = (other / base - 1.0) * 100.0 if compared.relative else other - base
    changes = _finite(changes)
    if not len(changes):
        return Change(point, math.nan, math.nan)
    tail = (1.0 - confidence) / 2.0
    low, high = np.quantile(changes, [tail, 1.0 - tail])
    return Change(point, float(low), float(high))
