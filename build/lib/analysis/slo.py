"""Service levels: goodput per level, the highest concurrency that meets an SLO, and how many
interactive users that concurrency serves (Little's law).

An SLO is a comma-separated list of bounds on per-level statistics, e.g.
``ttft_p90_ms<=1000,tps_p10>=15,itl_p90_ms<=60``: metric (ttft, itl, tps, latency), statistic
(``mean`` or ``pNN``), optional unit (``ms`` or ``s`` for durations; ttft/itl default to ms,
latency to s), operator (<=, <, >=, >) and a number. A level meets the SLO when every bound holds
for its statistic. Goodput counts single requests: a request is good when each of its own values
meets every threshold (an undefined ITL, i.e. one output token, does not break an ITL bound) and
it did not fail; failed requests count in the denominator.
"""

from __future__ import annotations

import operator
import re
from dataclasses import dataclass

import numpy as np
import pandas as pd

from analysis import percentiles
from analysis.errors import InputError
from analysis.metrics import METRIC_BY_FIELD, Settings, measured_ok

_OPS = {"<=": operator.le, "<": operator.lt, ">=": operator.ge, ">": operator.gt}
_BOUND = re.compile(
    r"^(ttft|itl|tps|latency)_(mean|p\d{1,2}(?:\.\d+)?)(?:_(ms|s))?\s*(<=|>=|<|>)\s*([0-9]*\.?[0-9]+)$"
)
_DEFAULT_UNIT = {"ttft": "ms", "itl": "ms", "latency": "s", "tps": ""}
_TO_SECONDS = {"ms": 1e-3, "s": 1.0}


@dataclass(frozen=True)
class Bound:
    """One bound; ``threshold`` is in the summary column's unit (ms, tok/s or s)."""

    text: str
    field: str
    stat: str
    op: str
    threshold: float

    @property
    def quantile(self) -> float | None:
        return None if self.stat == "mean" else float(self.stat[1:]) / 100.0

    @property
    def column(self) -> str:
        return f"{METRIC_BY_FIELD[self.field].column}_{self.stat}"

    def holds(self, value):
        return _OPS[self.op](value, self.threshold)


def parse(text: str) -> list[Bound]:
    """Parse an --slo value; InputError with the offending part on any syntax error."""
    bounds = []
    for part in filter(None, (p.strip() for p in text.split(","))):
        match = _BOUND.match(part.replace(" ", ""))
        if not match:
            raise InputError(
                f"--slo: cannot read {part!r}; expected e.g. "
                "ttft_p90_ms<=1000,tps_p10>=15,itl_p90_ms<=60"
            )
        field, stat, unit, op, number = match.groups()
        if field == "tps" and unit:
            raise InputError(f"--slo: {part!r}: tps takes no unit (tokens/s)")
        value = float(number)
        default = _DEFAULT_UNIT[field]
        if unit and unit != default:
            value *= _TO_SECONDS[unit] / _TO_SECONDS[default]
        bounds.append(Bound(part, field, stat, op, value))
    if not bounds:
        raise InputError("--slo: no bounds given")
    return bounds


def _statistic(sorted_values: np.ndarray, bound: Bound, method: str) -> float:
    if bound.quantile is None:
        return float(sorted_values.mean()) if len(sorted_values) else np.nan
    return percentiles.quantile(sorted_values, bound.quantile, method)


def evaluate(
    records: pd.DataFrame, summary: pd.DataFrame, bounds: list[Bound], settings: Settings
) -> pd.DataFrame:
    """Per (label, concurrency): each bound's statistic, whether the level meets the SLO, and
    goodput (share of measured requests that are good, and good requests per second)."""
    ok = measured_ok(records, settings)
    groups = ok.groupby(["label", "level"], observed=True).indices
    rows = []
    for _, level in summary[summary["source"] == "records"].iterrows():
        index = groups.get((level["label"], level["concurrency"]), np.empty(0, int))
        row = {"label": level["label"], "concurrency": level["concurrency"], "n": level["n"]}
        good = np.ones(len(index), bool)
        meets = len(index) > 0
        for bound in bounds:
            factor = METRIC_BY_FIELD[bound.field].factor
            values = ok[bound.field].to_numpy()[index] * factor
            finite = np.isfinite(values)
            stat = _statistic(np.sort(values[finite]), bound, settings.percentile_method)
            row[bound.text] = stat
            meets &= bool(bound.holds(stat))
            good &= np.where(finite, bound.holds(values), bound.field == "itl")
        measured = level["n"] + level["failures"]
        row["good"] = int(good.sum())
        row["goodput_pct"] = row["good"] / measured * 100 if measured else np.nan
        row["goodput_rps"] = row["good"] / level["wall_s"] if level["wall_s"] else np.nan
        row["meets_slo"] = meets
        row["latency_s_mean"] = level["latency_s_mean"]
        rows.append(row)
    return pd.DataFrame(rows)


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
