"""Service levels: goodput per level, the highest concurrency that meets an SLO, and how many
interactive users that concurrency serves (Little's law).

An SLO is a comma-separated list of bounds on per-level statistics, e.g.
``ttft_p90_ms<=1000,tps_p10>=15,itl_p90_ms<=60,failure_ratio<=0.01``: metric (``BOUND_METRICS``:
ttft, itl, tps, latency, ttfo; the server's own server_queue, server_ttft, server_itl,
acceptance_length and acceptance_rate where it sends them), statistic (``mean`` or ``pNN``),
optional unit (``ms`` or ``s`` for durations; ttft/itl/ttfo and the server's times default to
ms, latency to s), operator (<=, <, >=, >) and a number; or ``failure_ratio``, the
level's failures / (n + failures) of measured requests; or ``stream_flags``, how many kinds of
flag the level's stream check raised (``stream_flags<=0``: no flag at all); or
``schema_valid_ratio`` (``--response-format``: valid replies / the replies that finished,
``figures/structured.py``; a level without verdicts never meets it); or ``empty_ratio``, the
level's empty replies / (n + failures): ok requests with no token at all (the model ended at
once; no TTFT), which count as answered otherwise. A level meets the SLO
when every bound holds for its statistic. Goodput counts single requests: a request is good when
each of its own values meets every threshold (an undefined ITL, i.e. one output token, does not
break an ITL bound) and it did not fail; failed requests count in the denominator.

A TTFO bound (``ttfo_p90_ms<=2000``: a thinking model's time to answer) counts a request that
reasoned until max_tokens without a first output token (``metrics.no_answer``) as never having
answered: an infinite TTFO, so it is not good, and a level where more than a tenth of the ok
requests never answered has an infinite TTFO p90. The report's TTFO columns are over the
requests that answered, beside the count of those that did not (``no_answer``).

Levels are those of the summary: closed loop by C, open loop by offered rate. ``--check`` holds
a run to the same bounds and names every breach (``breaches``); whatever the bounds, it also fails
a level whose streams arrived collapsed, wholly or partly (``stream_failures``): its TTFT and ITL
time bursts (an intermediary's buffering, a starved client's late reads or the server's own
batched delivery, as the flag says), not decode steps, so no bound on them means anything.
"""

from __future__ import annotations

import operator
import re
from dataclasses import dataclass

import numpy as np
import pandas as pd

from analysis.errors import InputError
from analysis.figures import percentiles
from analysis.figures.measured import FloatColumns, measured_ok_positions
from analysis.figures.metrics import (
    LOOPS,
    METRIC_BY_FIELD,
    OPEN,
    TTFO,
    Loop,
    Settings,
    level_name,
    loop_levels,
)
from analysis.figures.replies import NO_ANSWER_FIELDS, no_answer
from analysis.figures.structured import SCHEMA_VALID_RATIO
from analysis.reading.load import Dataset
from sparkload.records import STREAM_MEANINGLESS, RequestMetric

_OPS = {"<=": operator.le, "<": operator.lt, ">=": operator.ge, ">": operator.gt}
_BREACHED = {"<=": ">", "<": ">=", ">=": "<", ">": "<="}  # what a breach of each operator shows
FAILURE_RATIO = "failure_ratio"
STREAM_FLAGS = "stream_flags"
EMPTY_RATIO = "empty_ratio"
# bounds on a level as a whole, not on requests
LEVEL_FIGURES = (FAILURE_RATIO, STREAM_FLAGS, SCHEMA_VALID_RATIO, EMPTY_RATIO)
# THE bound names: the per-request metrics a bound may name (--slo, --check, --find-capacity;
# ``RequestMetric.bound``), each with its unit (a duration's default unit, "" for a rate)
BOUND_METRICS: dict[str, RequestMetric] = {f: m for f, m in METRIC_BY_FIELD.items() if m.bound}
_DEFAULT_UNIT = {name: m.unit if m.unit in ("ms", "s") else "" for name, m in BOUND_METRICS.items()}
_BOUND = re.compile(
    rf"^(?:({'|'.join(BOUND_METRICS)})_(mean|p\d{{1,2}}(?:\.\d+)?)(?:_(ms|s))?"
    rf"|({'|'.join(LEVEL_FIGURES)}))"
    r"\s*(<=|>=|<|>)\s*([0-9]*\.?[0-9]+)$"
)
_TO_SECONDS = {"ms": 1e-3, "s": 1.0}
_EXAMPLE = "ttft_p90_ms<=1000,tps_p10>=15,itl_p90_ms<=60,ttfo_p90_ms<=3000,failure_ratio<=0.01"


@dataclass(frozen=True)
class Bound:
    """One bound; ``threshold`` is in the summary column's unit (ms, tok/s or s)."""

    text: str
    field: str  # a per-request metric (METRIC_BY_FIELD), or a level's figure (LEVEL_FIGURES)
    stat: str  # mean | pNN; "" for a level's figure
    op: str
    threshold: float

    @property
    def per_request(self) -> bool:
        """Whether single requests have a value of their own to hold to it (goodput)."""
        return self.field in BOUND_METRICS

    @property
    def quantile(self) -> float | None:
        return float(self.stat[1:]) / 100.0 if self.stat.startswith("p") else None

    @property
    def name(self) -> str:
        """The figure in its threshold's unit, e.g. ``ttft_p90_ms``, ``tps_p10``."""
        return "_".join(filter(None, (self.field, self.stat, _DEFAULT_UNIT.get(self.field))))

    def holds(self, value):
        return _OPS[self.op](value, self.threshold)

    def breach_text(self, value: float, never_answered: int = 0, measured: int = 0) -> str:
        """How a statistic that does not hold shows: ``ttft_p90_ms = 913.4 > 800``; one without
        a value says why (``ttfo_p90_ms = nan (no ok request records ttfo) > 800``), and an
        infinite TTFO says how many of the level's ``measured`` ok requests never answered
        (``ttfo_p90_ms: no request answered (0 of 12); the bound is <= 800``)."""
        if self.field == TTFO.field and np.isinf(value) and never_answered:
            said = (
                f"no request answered (0 of {measured})"
                if never_answered >= measured
                else f"{never_answered} of {measured} requests never answered (infinite)"
            )
            return f"{self.name}: {said}; the bound is {self.op} {self.threshold:g}"
        why = (
            f" (no ok request records {self.field})" if self.per_request and np.isnan(value) else ""
        )
        return f"{self.name} = {value:.6g}{why} {_BREACHED[self.op]} {self.threshold:g}"

    def breach_in(self, row: pd.Series) -> str:
        """``breach_text`` for a row of ``evaluate`` (a level's statistic and its counts)."""
        return self.breach_text(float(row[self.text]), int(row["no_answer"]), int(row["n"]))


def parse(text: str, option: str = "--slo") -> list[Bound]:
    """Parse an --slo (or --check) value; InputError with the offending part on any syntax
    error."""
    bounds = []
    for part in filter(None, (p.strip() for p in text.split(","))):
        match = _BOUND.match(part.replace(" ", ""))
        if not match:
            raise InputError(
                f"{option}: cannot read {part!r}; expected e.g. {_EXAMPLE},stream_flags<=0"
            )
        field, stat, unit, ratio, op, number = match.groups()
        if ratio:
            bounds.append(Bound(part, ratio, "", op, float(number)))
            continue
        if not _DEFAULT_UNIT[field] and unit:
            what = BOUND_METRICS[field].unit or "a count or a ratio"
            raise InputError(f"{option}: {part!r}: {field} takes no unit ({what})")
        value = float(number)
        default = _DEFAULT_UNIT[field]
        if unit and unit != default:
            value *= _TO_SECONDS[unit] / _TO_SECONDS[default]
        bounds.append(Bound(part, field, stat, op, value))
    if not bounds:
        raise InputError(f"{option}: no bounds given")
    return bounds


def _statistic(sorted_values: np.ndarray, bound: Bound, method: str) -> float:
    if bound.quantile is None:
        return float(sorted_values.mean()) if len(sorted_values) else np.nan
    value = percentiles.quantile(sorted_values, bound.quantile, method)
    if np.isnan(value) and len(sorted_values) and np.isinf(sorted_values[-1]):
        return np.inf  # between two requests that never answered (inf − inf)
    return value


def request_values(
    records: pd.DataFrame, column: FloatColumns, index: np.ndarray, field: str
) -> np.ndarray:
    """Each ok request's value of a bound's metric, in the summary column's unit (the requests
    at ``index`` of ``records``, ``column`` the records' ``FloatColumns``); a request that never
    answered has an infinite TTFO (it cannot meet a TTFO bound), NaN where a value is undefined
    or not recorded."""
    values = column[field][index] * BOUND_METRICS[field].factor
    if field == TTFO.field:
        judged = records[[name for name in NO_ANSWER_FIELDS if name in records]]  # no copy
        values = np.where(no_answer(judged.iloc[index]), np.inf, values)
    return values


def loop_positions(records: pd.DataFrame, loop: Loop) -> dict[tuple, np.ndarray]:
    """Per (label, level key) of one loop, the positions of its measured answered requests
    (``measured_ok_positions``): ``loop_records``' requests without its copy of the records of
    a dataset that mixes loops. The open loop's levels are offered rates, which closed-loop
    records lack (NaN: no group); closed-loop ones are levels of records without a rate."""
    rated = "offered_rps" in records  # else no raw records (Locust CSV input): closed loop
    if loop is OPEN and not rated:
        return {}
    groups = measured_ok_positions(records, ["label", loop.record_key])
    if loop is OPEN or not rated:
        return groups
    closed = records["offered_rps"].isna().to_numpy()
    if closed.all():  # a closed-loop dataset: its groups as they are
        return groups
    return {key: index[closed[index]] for key, index in groups.items() if closed[index].any()}


def _failure_ratio(level: pd.Series) -> float:
    measured = level["n"] + level["failures"]
    return level["failures"] / measured if measured else np.nan


def _empty_ratio(level: pd.Series) -> float:
    measured = level["n"] + level["failures"]
    return level["empty"] / measured if measured else np.nan


def _stream_flag_count(level: pd.Series) -> float:
    """Kinds of stream flag the level raised (its flags, for manifests that name no kinds)."""
    kinds = str(level.get("stream_flag_kinds") or "").split()
    if kinds:
        return float(len(kinds))
    flags = str(level.get("stream_flags") or "")
    return float(len(flags.split("; "))) if flags else 0.0


def _schema_valid_ratio(level: pd.Series) -> float:
    """The level's ``structured.SCHEMA_VALID_RATIO``; NaN (never met) without verdicts."""
    value = level.get(SCHEMA_VALID_RATIO)
    return np.nan if value is None or pd.isna(value) else float(value)


_LEVEL_FIGURE = {
    FAILURE_RATIO: _failure_ratio,
    STREAM_FLAGS: _stream_flag_count,
    SCHEMA_VALID_RATIO: _schema_valid_ratio,
    EMPTY_RATIO: _empty_ratio,
}


def evaluate(
    records: pd.DataFrame, summary: pd.DataFrame, bounds: list[Bound], settings: Settings
) -> pd.DataFrame:
    """Per level with raw records (not Locust-CSV ones): each bound's statistic, whether the
    level meets the SLO, and goodput (share of measured requests that are good, and good
    requests per second)."""
    rows = []
    column = FloatColumns(records, settings.itl_null_as_zero)
    fields = list(dict.fromkeys(b.field for b in bounds if b.per_request))
    for loop in LOOPS:
        levels = loop_levels(summary[summary["source"] == "records"], loop)
        if levels.empty:
            continue
        groups = loop_positions(records, loop)
        for _, level in levels.iterrows():
            key = level[loop.summary_key]
            index = groups.get((level["label"], key), np.empty(0, int))
            # an ok reply without a token (no TTFT): it ended at once
            level["empty"] = int(np.isnan(column["ttft"][index]).sum())
            values = {field: request_values(records, column, index, field) for field in fields}
            row = {"label": level["label"], "loop": loop.name, loop.summary_key: key}
            row.update(_verdict(level, values, bounds, settings))
            rows.append(row)
    return pd.DataFrame(rows)


def _verdict(
    level: pd.Series, values: dict[str, np.ndarray], bounds: list[Bound], settings: Settings
) -> dict:
    """One level's statistic per bound, SLO verdict and goodput, from its ok requests' values."""
    row = {"n": level["n"], "no_answer": int(level.get("no_answer", 0) or 0)}
    good = np.ones(level["n"], bool)
    meets = level["n"] > 0
    for bound in bounds:
        if bound.per_request:
            own = values[bound.field]
            known = ~np.isnan(own)  # an infinite TTFO (never answered) counts
            stat = _statistic(np.sort(own[known]), bound, settings.percentile_method)
            good &= np.where(known, bound.holds(own), bound.field == "itl")
        else:
            stat = _LEVEL_FIGURE[bound.field](level)
        row[bound.text] = stat
        meets &= bool(bound.holds(stat))
    measured = level["n"] + level["failures"]
    row["good"] = int(good.sum())
    row["goodput_pct"] = row["good"] / measured * 100 if measured else np.nan
    row["goodput_rps"] = row["good"] / level["wall_s"] if level["wall_s"] else np.nan
    row["meets_slo"] = meets
    row["latency_s_mean"] = level["latency_s_mean"]
    return row


@dataclass(frozen=True)
class Breach:
    """A bound a level's statistic does not hold."""

    label: str
    level: str  # as messages name it: "C=4", "offered 150 req/s"
    bound: Bound
    text: str  # the bound's breach, as ``Bound.breach_in`` says it

    def __str__(self) -> str:
        return f"{self.label} {self.level}: {self.text}"


def breaches(levels: pd.DataFrame, bounds: list[Bound]) -> list[Breach]:
    """Every (level, bound) of ``evaluate``'s rows that does not hold (an undefined statistic,
    e.g. a percentile of a level without a successful request, does not hold)."""
    return [
        Breach(str(row["label"]), level_name(row), bound, bound.breach_in(row))
        for _, row in levels.iterrows()
        for bound in bounds
        if not bound.holds(row[bound.text])
    ]


@dataclass(frozen=True)
class StreamFailure:
    """A level whose streams arrived collapsed (wholly or partly), as its stream check said,
    naming the cause: it fails ``--check`` whatever the bounds."""

    label: str
    level: str
    flag: str

    def __str__(self) -> str:
        return f"{self.label} {self.level}: stream check: {self.flag}"


def stream_failures(dataset: Dataset) -> list[StreamFailure]:
    """Every level of every run whose stream check raised a flag of ``STREAM_MEANINGLESS``."""
    return [
        StreamFailure(run.label, run.level_name(level), flag)
        for run in dataset.runs
        for level in run.manifest.levels
        for flag, kind in zip(level.stream_flags, level.stream_flag_kinds, strict=False)
        if kind in STREAM_MEANINGLESS
    ]


@dataclass(frozen=True)
class Capacity:
    """The highest concurrency meeting the SLO and the users it serves."""

    label: str
    concurrency: float | None  # None: not even the lowest level meets the SLO
    how: str  # "measured", "interpolated between C=a and C=b", "at least (highest level tested)"
    latency_s: float | None
    users: float | None
    think_time_s: float
    note: str = ""


def capacity(levels: pd.DataFrame, bounds: list[Bound], think_time_s: float) -> Capacity:
    """Walk up the levels of one label; between the last passing and the first failing level,
    interpolate each failing bound's statistic linearly in C and take the earliest crossing.

    Users by Little's law for a closed loop with think time Z: N = X · (R + Z), where the
    throughput at concurrency C* is X = C* / R and R is the mean latency there.
    """
    levels = levels.sort_values("concurrency").reset_index(drop=True)
    label = str(levels["label"].iloc[0])
    failing = levels.index[~levels["meets_slo"].astype(bool)]
    if len(failing) and failing[0] == 0:
        return Capacity(
            label, None, "the lowest tested level already fails the SLO", None, None, think_time_s
        )
    if not len(failing):
        last = levels.iloc[-1]
        c, r, how = (
            float(last["concurrency"]),
            float(last["latency_s_mean"]),
            "at least (every tested level meets it)",
        )
    else:
        lo, hi = levels.iloc[failing[0] - 1], levels.iloc[failing[0]]
        c_lo, c_hi = float(lo["concurrency"]), float(hi["concurrency"])
        crossings = []
        for bound in bounds:
            s_lo, s_hi = lo[bound.text], hi[bound.text]
            if bound.holds(s_hi) or not np.isfinite(s_hi) or s_hi == s_lo:
                continue
            crossings.append(c_lo + (bound.threshold - s_lo) / (s_hi - s_lo) * (c_hi - c_lo))
        c = float(np.clip(min(crossings), c_lo, c_hi)) if crossings else c_lo
        r = float(np.interp(c, [c_lo, c_hi], [lo["latency_s_mean"], hi["latency_s_mean"]]))
        how = f"interpolated linearly between C={c_lo:g} (meets) and C={c_hi:g} (fails)"
    again = (
        levels.loc[levels["meets_slo"].astype(bool) & (levels.index > failing[0]), "concurrency"]
        if len(failing)
        else []
    )
    note = (
        "; not monotonic: C=" + ", ".join(f"{level:g}" for level in again) + " meets it again"
        if len(again)
        else ""
    )
    users = c / r * (r + think_time_s)
    return Capacity(label, c, how, r, users, think_time_s, note)
