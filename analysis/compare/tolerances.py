"""What ``sparkload compare`` judges: each compared figure, which way is worse, and how much change
it tolerates before a significant change counts (the ``--tolerance`` syntax).

A tolerance is ``NAME:[+|-]PERCENT%``, comma-separated: ``ttft_p90_ms:+10%,output_tok_s:-5%``.
``+`` says higher is worse (a latency), ``-`` lower is worse (a throughput); without a sign the
figure's own direction holds. NAME is a figure (``COMPARED``) or a family (``ttft``, ``itl``,
``latency``, ``tps``, ``ttfo``), which sets every figure of it; a figure named on its own wins
over its family whatever the order. A share's change and tolerance (the failure ratio, the
answered share) are in percentage points (a relative change from no failures is infinite):
``failure_ratio:+1%`` is one point.

A thinking model's figures, TTFO and the answered share, are compared only where either run has
reasoning or tool calls (``Compared.thinking``; the report's rule for its TTFO columns): in a
plain run TTFO is TTFT and the answered share 100 % less the failure ratio.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from analysis.errors import InputError
from analysis.figures.metrics import METRIC_BY_FIELD, QUANTILES

MEAN, QUANTILE, THROUGHPUT, SHARE = "mean", "quantile", "throughput", "share"
HIGHER_IS_WORSE, LOWER_IS_WORSE = "+", "-"


@dataclass(frozen=True)
class Compared:
    """One compared figure of a level: its name (the tolerance's), the summary column holding its
    value, how its draws are made (``kind``), and its default tolerance."""

    name: str
    family: str
    title: str
    unit: str
    column: str  # figures.metrics' summary column ("" for a share: from the level's counts)
    kind: str  # MEAN | QUANTILE | THROUGHPUT | SHARE
    field: str = ""  # the records' field (MEAN, QUANTILE); a share's count (LevelSample.share)
    factor: float = 1.0  # record unit → summary unit
    q: float = 0.0  # QUANTILE
    worse: str = HIGHER_IS_WORSE
    limit_pct: float = 10.0  # default tolerance (percentage points for a SHARE)
    thinking: bool = False  # compared only where either run has reasoning or tool calls

    @property
    def relative(self) -> bool:
        """Whether its change is relative (%), else absolute (percentage points)."""
        return self.kind != SHARE


def _stats(field: str, stats: tuple[str, ...], thinking: bool = False) -> tuple[Compared, ...]:
    """A per-request metric's mean and percentiles, named as --check's bounds name them."""
    metric = METRIC_BY_FIELD[field]
    return tuple(
        Compared(
            f"{field}_{stat}_{metric.unit}",
            field,
            f"{metric.title} {stat}",
            metric.unit,
            f"{metric.column}_{stat}",
            MEAN if stat == "mean" else QUANTILE,
            field,
            metric.factor,
            QUANTILES.get(stat, 0.0),
            thinking=thinking,
        )
        for stat in stats
    )


COMPARED: tuple[Compared, ...] = (
    *_stats("ttft", ("mean", "p50", "p90")),
    *_stats("itl", ("mean", "p50", "p90")),
    *_stats("latency", ("p50", "p90")),
    Compared(
        "tps_mean",
        "tps",
        "Output tok/s per user",
        "tok/s",
        "tps_mean",
        MEAN,
        "tps",
        worse=LOWER_IS_WORSE,
    ),
    # the level's output tokens / its wall time (the report's measured_total_tps)
    Compared(
        "output_tok_s",
        "output_tok_s",
        "Output tok/s, aggregate",
        "tok/s",
        "measured_total_tps",
        THROUGHPUT,
        worse=LOWER_IS_WORSE,
    ),
    # failures / (n + failures) of measured requests, as --check's failure_ratio, in percent
    Compared(
        "failure_ratio", "failure_ratio", "Failure ratio", "%", "", SHARE, "failures", limit_pct=1.0
    ),
    # a thinking model's: the first output token (reasoning excluded) of the requests that gave
    # one, and the share of measured requests that did (not failed, not reasoning to max_tokens)
    *_stats("ttfo", ("mean", "p50", "p90"), thinking=True),
    Compared(
        "answered_share",
        "answered_share",
        "Answered share",
        "%",
        "",
        SHARE,
        "answered",
        worse=LOWER_IS_WORSE,
        limit_pct=1.0,
        thinking=True,
    ),
)
BY_NAME = {c.name: c for c in COMPARED}
FAMILIES = tuple(dict.fromkeys(c.family for c in COMPARED))
_ENTRY = re.compile(r"^([a-z0-9_]+)\s*:\s*([+-]?)([0-9]*\.?[0-9]+)\s*%$")
EXAMPLE = "ttft_p90_ms:+10%,output_tok_s:-5%"


@dataclass(frozen=True)
class Tolerance:
    """How far a figure may move the worse way (``worse``) before a significant change counts:
    ``limit_pct`` percent of the baseline's value (percentage points for the failure ratio)."""

    limit_pct: float
    worse: str = HIGHER_IS_WORSE

    @property
    def text(self) -> str:
        return f"{self.worse}{self.limit_pct:g}%"


def defaults() -> dict[str, Tolerance]:
    """Every compared figure's own tolerance: latencies +10 %, throughputs -10 %, failures +1 pt."""
    return {c.name: Tolerance(c.limit_pct, c.worse) for c in COMPARED}


def parse(spec: str | None) -> dict[str, Tolerance]:
    """The defaults with ``spec``'s entries applied; InputError (one line) for a bad entry."""
    tolerances = defaults()
    if spec is None:
        return tolerances
    families: dict[str, Tolerance] = {}
    figures: dict[str, Tolerance] = {}
    entries = [entry.strip() for entry in spec.split(",")]
    if not any(entries):
        raise InputError(f"--tolerance: empty (e.g. {EXAMPLE!r})")
    for entry in entries:
        match = _ENTRY.match(entry)
        if match is None:
            raise InputError(f"--tolerance: {entry!r} is not NAME:[+|-]PERCENT% (e.g. {EXAMPLE!r})")
        name, sign, number = match.groups()
        if name not in BY_NAME and name not in FAMILIES:
            raise InputError(
                f"--tolerance: unknown figure {name!r} in {entry!r} (choose from "
                f"{', '.join(BY_NAME)}; or a family: {', '.join(FAMILIES)})"
            )
        target = figures if name in BY_NAME else families
        if name in target:
            raise InputError(f"--tolerance: {name!r} is given twice")
        target[name] = Tolerance(float(number), sign)  # sign "" = the figure's own: set below
    for compared in COMPARED:
        given = figures.get(compared.name) or families.get(compared.family)
        if given is not None:
            tolerances[compared.name] = Tolerance(given.limit_pct, given.worse or compared.worse)
    return tolerances
