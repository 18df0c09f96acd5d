"""How sure a change between two runs is: draws of each compared figure of a level, and the
confidence interval of the change they give (``sparkload compare``).

Why draws of each figure and not the report's intervals of each run: two runs' own intervals
that overlap do not say the change is noise (the interval of a difference is narrower than the
sum of the two), and a relative change has no interval of its own to read off. So each figure
is drawn ``resamples`` times from each run's measured requests, independently per run, and the
interval is the percentile interval, at the report's 90 %, of the log of (run draw / baseline
draw), stated as a change: exp(bound) − 1. A ratio of positive figures is positive, so no bound
lies at or below −100 %. Each draw is the bootstrap's, made in O(resamples) whatever the level's
size, and positive wherever the figure is:

- a percentile: the exact bootstrap distribution of the order statistics it reads
  (``percentiles.bootstrap_estimates``, the report's own intervals' draws);
- a mean: log-normal around the mean, the log's sd the mean's relative standard error
  s / (mean √n) (the delta method on log mean), widened to Student's t with n − 1 degrees of
  freedom since s is estimated from n values (resampling n values costs O(resamples × n), 10⁹
  at a million records). The normal draws this replaced went negative at a handful of skewed
  requests and gave intervals such as −288 … +533 %;
- the aggregate throughput: the level's output tokens / its wall time, which a closed or open
  loop holds at (requests in flight) × Σ output tokens / Σ latency (Little's law); the draws are
  the value scaled by that ratio's draws (log-normal and t as a mean's, the relative sd by the
  delta method), the in-flight count taken as measured, so the interval has the requests' own
  noise;
- a share (the failure ratio, the answered share): binomial draws of the level's measured
  requests at its observed share; its change is absolute (percentage points): from no failures
  a relative change is infinite.

A relative figure of fewer than ``MIN_FOR_INTERVAL`` values on either side gets no interval
(``sample_size`` says how many it rests on): at three requests the draws only reshuffle three
values, and any interval would claim more than they hold. A share is drawn at any size: its
draws are counts, and all of three requests failing against none is a change.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import pandas as pd

from analysis.compare.tolerances import MEAN, QUANTILE, SHARE, THROUGHPUT, Compared
from analysis.figures import percentiles
from analysis.figures.metrics import no_answer

CONFIDENCE = 0.90  # the report's intervals' (percentiles.bootstrap_ci)
MIN_FOR_INTERVAL = 5  # values on each side below which a relative change has no interval


@dataclass(frozen=True)
class LevelSample:
    """One run's level as the draws need it: its ok measured requests, its counts and method."""

    ok: pd.DataFrame  # metrics.measured_ok's rows of the level
    n: int
    failures: int
    percentile_method: str = percentiles.LINEAR

    @property
    def measured(self) -> int:
        """Measured requests, ok or failed: what a share is of."""
        return self.n + self.failures

    @property
    def answered(self) -> int:
        """Ok requests that gave a first output token (not ``metrics.no_answer``'s)."""
        return len(self.ok) - int(no_answer(self.ok).sum())

    def share(self, name: str) -> float:
        """``failures`` or ``answered`` in percent of the measured requests (NaN of none)."""
        count = self.answered if name == "answered" else self.failures
        return count / self.measured * 100.0 if self.measured else math.nan


def _finite(values: np.ndarray) -> np.ndarray:
    return values[np.isfinite(values)]


def _values(compared: Compared, sample: LevelSample) -> np.ndarray:
    """The finite per-request values a mean or percentile is of, in the figure's unit."""
    if compared.field not in sample.ok:  # records older than the field
        return np.empty(0)
    return _finite(sample.ok[compared.field].to_numpy(np.float64)) * compared.factor


def _throughput_pairs(sample: LevelSample) -> tuple[np.ndarray, np.ndarray]:
    """Each ok request's output tokens and latency, where both are known."""
    tokens = sample.ok["output_tokens"].to_numpy(np.float64)
    latency = sample.ok["latency"].to_numpy(np.float64)
    both = np.isfinite(tokens) & np.isfinite(latency)
    return tokens[both], latency[both]


def own_value(compared: Compared, sample: LevelSample) -> float:
    """A share, mean or percentile figured from the level's requests by the report's
    definitions: for a figure the summary has no column of (a share; TTFO in a plain run's)."""
    if compared.kind == SHARE:
        return sample.share(compared.field)
    values = np.sort(_values(compared, sample))
    if compared.kind == QUANTILE:
        return percentiles.quantile(values, compared.q, sample.percentile_method)
    if compared.kind == MEAN and len(values):
        return float(values.mean())
    return math.nan


def sample_size(compared: Compared, sample: LevelSample) -> int:
    """How many values the figure's draws rest on: the requests a share is of, those with
    tokens and latency for the throughput, those with a value for a mean or percentile."""
    if compared.kind == SHARE:
        return sample.measured
    if compared.kind == THROUGHPUT:
        return len(_throughput_pairs(sample)[0])
    return len(_values(compared, sample))


def draws(
    compared: Compared,
    sample: LevelSample,
    value: float,
    rng: np.random.Generator,
    resamples: int,
) -> np.ndarray:
    """``resamples`` draws of the figure at this level (empty where it cannot be drawn: a
    relative figure of fewer than ``MIN_FOR_INTERVAL`` values, or no resamples); ``value`` is
    the figure as the report states it."""
    if resamples < 1 or not math.isfinite(value):
        return np.empty(0)
    if compared.kind == SHARE:
        total = sample.measured
        share = sample.share(compared.field) / 100.0
        return rng.binomial(total, share, resamples) / total * 100.0
    if sample_size(compared, sample) < MIN_FOR_INTERVAL:
        return np.empty(0)
    if compared.kind == THROUGHPUT:
        return _throughput_draws(sample, value, rng, resamples)
    values = _values(compared, sample)
    if compared.kind == MEAN:
        mean = float(values.mean())
        if mean <= 0:
            return np.empty(0)
        spread = float(values.std(ddof=1)) / math.sqrt(len(values)) / mean
        return _log_normal_t(mean, spread, len(values), rng, resamples)
    if compared.kind == QUANTILE:
        return percentiles.bootstrap_estimates(
            np.sort(values), compared.q, sample.percentile_method, rng, resamples
        )
    raise ValueError(f"unknown kind of figure {compared.kind!r}")


def _log_normal_t(
    centre: float, relative_sd: float, n: int, rng: np.random.Generator, resamples: int
) -> np.ndarray:
    """Draws of a positive estimate of n values: centre × exp(relative sd × t(n − 1))."""
    return centre * np.exp(relative_sd * rng.standard_t(n - 1, resamples))


def _throughput_draws(
    sample: LevelSample, value: float, rng: np.random.Generator, resamples: int
) -> np.ndarray:
    tokens, latency = _throughput_pairs(sample)
    if latency.sum() <= 0 or tokens.sum() <= 0:
        return np.empty(0)
    ratio = tokens.sum() / latency.sum()
    # delta method: var(Σt/Σl) ≈ var(t − ratio·l) / (n · mean(l)²)
    spread = float((tokens - ratio * latency).std(ddof=1)) / math.sqrt(len(tokens))
    spread /= float(latency.mean())
    return _log_normal_t(value, spread / ratio, len(tokens), rng, resamples)


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
    """The change and its percentile interval over paired independent draws of both runs: of
    the log ratio for a relative figure (no bound at or below −100 %), of the difference for a
    share. A relative figure with a non-positive draw has no interval."""
    if compared.relative:
        point = (run / baseline - 1.0) * 100.0 if baseline else math.nan
    else:
        point = run - baseline
    count = min(len(baseline_draws), len(run_draws))
    if not math.isfinite(point) or count == 0:
        return Change(point, math.nan, math.nan)
    base, other = baseline_draws[:count], run_draws[:count]
    tail = (1.0 - confidence) / 2.0
    if not compared.relative:
        low, high = np.quantile(other - base, [tail, 1.0 - tail])
        return Change(point, float(low), float(high))
    if (base <= 0).any() or (other <= 0).any():
        return Change(point, math.nan, math.nan)
    low, high = np.expm1(np.quantile(np.log(other) - np.log(base), [tail, 1.0 - tail])) * 100.0
    return Change(point, float(low), float(high))
