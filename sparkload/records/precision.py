"""``--target-precision``: how sure a level's statistic is, one definition for both sides.

A target names a per-request metric (``REQUEST_METRICS``), a statistic (the mean or a quantile of
``QUANTILES``) and a relative half-width: ``ttft_p90:5%`` asks for the TTFT p90's 90 %
interval (``INTERVAL_CONFIDENCE``, the report's) to be within ±5 % of the p90. The load side
keeps a level going until every target is met (``shapes/precision.py``) and the report says
what each level reached (``analysis/sections/precision.py``); both call ``reach`` on the same
sorted values, so they agree exactly.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass

from sparkload.records.codec import Entry
from sparkload.records.intervals import interval_needs, mean_interval, order_statistic_interval
from sparkload.records.metrics import QUANTILES, REQUEST_METRICS
from sparkload.records.requests import linear_percentile
from sparkload.records.verdicts import INTERVAL_CONFIDENCE

MEAN = "mean"
STATISTICS = (MEAN, *QUANTILES)
# the metrics a target may name: the summary's, by record field (ttft) or column stem (ttft_ms)
TARGET_METRICS = {m.field: m for m in REQUEST_METRICS if m.summary}
_BY_COLUMN = {m.column: m for m in TARGET_METRICS.values()}
EXAMPLE = "ttft_p90:5%"
_FORM = re.compile(r"(?P<name>.+)_(?P<stat>[a-z0-9]+)")


@dataclass(frozen=True)
class PrecisionTarget:
    """One ``--target-precision``: the record field, the statistic, the relative half-width."""

    field: str  # "ttft"
    stat: str  # "mean" or a key of QUANTILES
    half_width: float  # relative: 0.05 for 5 %

    @property
    def quantile(self) -> float | None:
        return QUANTILES.get(self.stat)

    @property
    def name(self) -> str:
        """``ttft_p90``: the statistic as the target names it."""
        return f"{self.field}_{self.stat}"

    @property
    def text(self) -> str:
        """As the option takes it: ``ttft_p90:5%``."""
        return f"{self.name}:{100 * self.half_width:g}%"


def parse_target(text: str) -> PrecisionTarget:
    """``METRIC_STAT:PCT%`` (``ttft_p90:5%``; the summary's column stem too, ``ttft_ms_p90``);
    ValueError of one line saying what is wrong and what is allowed."""
    spec, colon, pct = (part.strip() for part in text.partition(":"))
    form = _FORM.fullmatch(spec)
    if form is None or form["stat"] not in STATISTICS:
        raise ValueError(
            f"{spec!r} is not a statistic: give METRIC_STAT:PCT with STAT one of "
            f"{', '.join(STATISTICS)}, e.g. '{EXAMPLE}'"
        )
    metric = TARGET_METRICS.get(form["name"]) or _BY_COLUMN.get(form["name"])
    if metric is None:
        raise ValueError(
            f"unknown metric {form['name']!r}: give one of {', '.join(TARGET_METRICS)}"
        )
    if not colon or not pct.endswith("%"):
        raise ValueError(f"give the precision in percent after a colon, e.g. '{EXAMPLE}'")
    try:
        share = float(pct[:-1]) / 100.0
    except ValueError:
        raise ValueError(f"{pct!r} is not a percentage, e.g. '{EXAMPLE}'") from None
    if not 0.0 < share <= 1.0:
        raise ValueError(f"the precision {pct} must be more than 0 % and at most 100 %")
    return PrecisionTarget(metric.field, form["stat"], share)


@dataclass(frozen=True)
class Reached:
    """What a sample reaches of a target: its statistic, the statistic's interval and the
    interval's half-width relative to the statistic (None: too few values for an interval)."""

    target: PrecisionTarget
    requests: int  # the values it rests on
    value: float | None = None
    low: float | None = None
    high: float | None = None

    @property
    def half_width(self) -> float | None:
        """(high − low) / 2 relative to the statistic; infinite when the statistic is 0 and the
        interval is not."""
        if self.value is None or self.low is None or self.high is None:
            return None
        half = (self.high - self.low) / 2.0
        if self.value == 0:
            return 0.0 if half == 0 else math.inf
        return half / abs(self.value)

    @property
    def met(self) -> bool:
        return self.half_width is not None and self.half_width <= self.target.half_width

    @property
    def requests_left(self) -> int | None:
        """An estimate of the requests still needed: a half-width shrinks as 1/√n, so n values
        reaching h need about n·(h / target)² in all, n·(h / target)² − n more; before any
        interval, the fewest values that give one (a p90's 29). None: no estimate (the
        statistic is 0)."""
        reached = self.half_width
        if self.met:
            return 0
        if reached is None:
            q = self.target.quantile
            fewest = interval_needs(q, INTERVAL_CONFIDENCE) if q is not None else 2
            return max(fewest - self.requests, 1)
        if math.isinf(reached):
            return None
        n = self.requests
        return max(math.ceil(n * (reached / self.target.half_width) ** 2) - n, 1)

    def entry(self) -> PrecisionEntry:
        return PrecisionEntry(
            self.target.text, self.requests, self.value, self.low, self.high, self.half_width
        )


def reach(target: PrecisionTarget, sorted_values: Sequence[float]) -> Reached:
    """What the ascending, finite ``sorted_values`` (a level's answered requests' figures) reach
    of ``target``, at the report's confidence."""
    n = len(sorted_values)
    if n == 0:
        return Reached(target, 0)
    q = target.quantile
    if q is None:
        value = math.fsum(sorted_values) / n
        interval = mean_interval(sorted_values, INTERVAL_CONFIDENCE)
    else:
        value = linear_percentile(list(sorted_values), q)
        interval = order_statistic_interval(sorted_values, q, INTERVAL_CONFIDENCE)
    low, high = interval if interval is not None else (None, None)
    return Reached(target, n, float(value), low, high)


@dataclass
class PrecisionEntry(Entry):
    """A level's precision as the manifest keeps it (``LevelEntry.precision``), at its end: the
    target as given, the requests, the statistic and its interval (record units: seconds), the
    relative half-width (None: too few requests for an interval)."""

    target: str
    requests: int = 0
    value: float | None = None
    low: float | None = None
    high: float | None = None
    half_width: float | None = None
