"""The report's verdicts per label, each a stated rule over the summary's per-level figures:
which phase limits it under load, how predictable it is, its optimal concurrency for latency
and for throughput, and which label suits which scenario (the quantization report's 6.3, 7.2,
8.2 and 8.1). Nothing here measures anew: every figure is a summary column
(``analysis.figures.metrics``) or a p90/p50 ratio of two (``tables.with_tail_ratios``).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from analysis.figures import percentiles
from analysis.views import tables

# ----- prefill against decode -------------------------------------------------------------------
FLAT_GROWTH = 1.10  # below this growth in both TTFT and ITL, neither phase felt the load
DOMINANCE = 1.5  # one growth this many times the other's: that phase is the bottleneck
PREFILL, DECODE, BOTH, FLAT = "prefill-bound", "decode-bound", "both", "no contention"
ONE_LEVEL, UNKNOWN = "one level: no change", "unknown (no TTFT or ITL)"


def bottleneck_class(ttft_growth: float, itl_growth: float) -> str:
    """Growth = mean at the highest C / mean at the lowest C, of TTFT (prefill and queueing)
    and of ITL (decode)."""
    if not (np.isfinite(ttft_growth) and np.isfinite(itl_growth)):
        return UNKNOWN  # e.g. a prefill probe's single token has no ITL
    if ttft_growth < FLAT_GROWTH and itl_growth < FLAT_GROWTH:
        return FLAT
    if ttft_growth >= DOMINANCE * itl_growth:
        return PREFILL
    if itl_growth >= DOMINANCE * ttft_growth:
        return DECODE
    return BOTH


def _ends(rows: pd.DataFrame) -> tuple[pd.Series, pd.Series]:
    ordered = rows.sort_values("concurrency")
    return ordered.iloc[0], ordered.iloc[-1]


def bottlenecks(summary: pd.DataFrame) -> pd.DataFrame:
    """Per label: TTFT and ITL at its lowest and highest C, their growth and the class."""
    out = []
    for label in tables.labels_of(summary):
        low, high = _ends(summary[summary["label"] == label])
        several = high["concurrency"] != low["concurrency"]
        ttft = high["ttft_ms_mean"] / low["ttft_ms_mean"] if several else np.nan
        itl = high["itl_ms_mean"] / low["itl_ms_mean"] if several else np.nan
        out.append(
            {
                "Label": label,
                "C": f"{low['concurrency']}→{high['concurrency']}",
                "TTFT low (ms)": low["ttft_ms_mean"],
                "TTFT high (ms)": high["ttft_ms_mean"],
                "TTFT growth": ttft,
                "ITL low (ms)": low["itl_ms_mean"],
                "ITL high (ms)": high["itl_ms_mean"],
                "ITL growth": itl,
                "Bottleneck": bottleneck_class(ttft, itl) if several else ONE_LEVEL,
            }
        )
    return pd.DataFrame(out)


# ----- predictability --------------------------------------------------------------------------
RATIOS = (("ttft_ms", "TTFT"), ("itl_ms", "ITL"), ("tps", "TPS"))


def predictability(summary: pd.DataFrame) -> pd.DataFrame:
    """Per label the mean over its levels of each p90/p50 ratio, their mean (the score), and
    the rank by score, most predictable (lowest) first; ties keep input order."""
    ratios = tables.with_tail_ratios(summary)
    out = []
    for label in tables.labels_of(summary):
        rows = ratios[ratios["label"] == label]
        means = {title: rows[f"{stem}_p90_over_p50"].mean() for stem, title in RATIOS}
        row = {"Label": label, **{f"{title} p90/p50": v for title, v in means.items()}}
        row["Score"] = (
            float(np.nanmean(list(means.values())))
            if any(np.isfinite(v) for v in means.values())
            else np.nan
        )
        known = {title: v for title, v in means.items() if np.isfinite(v)}
        row["Widest tail"] = max(known, key=lambda t: known[t]) if known else None
        row[f"Levels with n < {percentiles.FEW_SAMPLES_FOR_P90}"] = int(
            rows["p90_few_samples"].astype(bool).sum()
        )
        out.append(row)
    frame = pd.DataFrame(out)
    frame = frame.sort_values("Score", kind="stable", na_position="last").reset_index(drop=True)
    frame.insert(0, "Rank", range(1, len(frame) + 1))
    return frame


# ----- optimal concurrency ----------------------------------------------------------------------
LATENCY_SLACK = 0.05  # a latency optimum costs each request at most 5 % over the label's best
MARGINAL_FLOOR = 0.5  # a step up pays while each added stream adds half a lone stream's tokens


@dataclass(frozen=True)
class Optimum:
    """One label's optimal concurrency for latency and for throughput, with the figures."""

    label: str
    lowest: int
    latency_c: int  # the highest C whose mean latency is within LATENCY_SLACK of the best
    latency_s: float
    best_latency_s: float
    throughput_c: int  # the last C before a step up adds under MARGINAL_FLOOR per stream
    total_tps: float  # mean TPS × C there
    efficiency_pct: float  # scaling efficiency there (= saturation index)
    marginal: float  # the gain per added stream of the step to throughput_c, / lone stream
    system_rps: float

    @property
    def latency_range(self) -> str:
        """The concurrencies from the lowest to the latency optimum ("1–2", or "1")."""
        same = self.latency_c == self.lowest
        return f"{self.lowest}" if same else f"{self.lowest}–{self.latency_c}"


def optimum(rows: pd.DataFrame) -> Optimum:
    """The rules of ``LATENCY_SLACK`` and ``MARGINAL_FLOOR`` over one label's levels."""
    rows = rows.sort_values("concurrency").reset_index(drop=True)
    best = float(rows["latency_s_mean"].min())
    within = rows[rows["latency_s_mean"] <= best * (1 + LATENCY_SLACK)]
    at_latency = within.iloc[-1] if not within.empty else rows.iloc[0]
    lone = float(rows["tps_mean"].iloc[0])  # a stream's tok/s at the lowest C
    chosen, marginal = 0, np.nan
    for i in range(1, len(rows)):
        added = float(rows["concurrency"].iloc[i] - rows["concurrency"].iloc[i - 1])
        gain = (rows["total_tps"].iloc[i] - rows["total_tps"].iloc[i - 1]) / added / lone
        if not gain >= MARGINAL_FLOOR:
            break
        chosen, marginal = i, float(gain)
    at_throughput = rows.iloc[chosen]
    return Optimum(
        str(rows["label"].iloc[0]),
        int(rows["concurrency"].iloc[0]),
        int(at_latency["concurrency"]),
        float(at_latency["latency_s_mean"]),
        best,
        int(at_throughput["concurrency"]),
        float(at_throughput["total_tps"]),
        float(at_throughput["saturation_pct"]),
        marginal,
        float(at_throughput["system_rps"]),
    )


def optima(summary: pd.DataFrame) -> list[Optimum]:
    return [optimum(summary[summary["label"] == label]) for label in tables.labels_of(summary)]


# ----- selection by scenario --------------------------------------------------------------------
SUGGESTION_TOKENS = 32  # a code completion's length: time to it = TTFT + 32 × ITL
LOW_LOAD_MAX_C = 4  # "API, low load": the highest level every label ran, up to C=4


@dataclass(frozen=True)
class Choice:
    """One scenario's pick: the rule, the label, the figure that decided, every label's."""

    scenario: str
    rule: str
    label: str
    figure: str
    concurrency: str
    figures: str  # every label's figure under the rule


def common_levels(summary: pd.DataFrame) -> list[int]:
    """Levels every label ran, ascending."""
    sets = [
        set(summary.loc[summary["label"] == label, "concurrency"])
        for label in tables.labels_of(summary)
    ]
    return sorted(set.intersection(*sets)) if sets else []


def _at(summary: pd.DataFrame, level: int | None, pick: str) -> pd.DataFrame:
    """One row per label: at ``level`` when every label ran it, else each label's lowest or
    highest (``pick``) level."""
    if level is not None:
        return summary[summary["concurrency"] == level]
    ordered = summary.sort_values("concurrency")
    grouped = ordered.groupby("label", sort=False)
    return grouped.head(1) if pick == "lowest" else grouped.tail(1)


NO_CHOICE = "—"


@dataclass(frozen=True)
class Pick:
    """The best label under one figure: its value and level, and every label's value."""

    label: str
    figure: str
    level: int | None  # None: no label had the figure
    everyone: str


def _choose(rows: pd.DataFrame, values: pd.Series, lowest_wins: bool, fmt: str) -> Pick:
    """The label with the best value (ties: input order) among ``rows``, one per label; a
    label without the figure (a prefill probe's ITL) shows "—" and is not chosen."""
    values = pd.Series(values.to_numpy(float), index=rows["label"].to_numpy())
    everyone = ", ".join(
        f"{label} {fmt.format(value) if np.isfinite(value) else '—'}"
        for label, value in values.items()
    )
    known = values.dropna()
    if known.empty:
        return Pick(NO_CHOICE, "no label has the figure", None, everyone)
    best = str(known.idxmin() if lowest_wins else known.idxmax())
    level = int(rows.set_index("label").at[best, "concurrency"])
    return Pick(best, f"{fmt.format(known[best])} at C={level}", level, everyone)


def selection(
    summary: pd.DataFrame,
    ranking: pd.DataFrame,
    found: list[Optimum],
    capacities: dict[str, float | None] | None,
) -> list[Choice]:
    """One choice per scenario, each with its rule; ``capacities``: label → the highest C
    meeting the --slo (None where not even the lowest level does; no dict: no --slo given)."""
    common = common_levels(summary)
    low = common[0] if common else None
    modest = max((c for c in common if c <= LOW_LOAD_MAX_C), default=None)
    high = common[-1] if common else None
    at_low, at_modest = _at(summary, low, "lowest"), _at(summary, modest, "lowest")
    at_high = _at(summary, high, "highest")
    optimal = {o.label: o for o in found}
    level = "the lowest level every label ran" if low is not None else "each label's lowest level"

    def for_latency(pick: Pick) -> str:
        return optimal[pick.label].latency_range if pick.label in optimal else NO_CHOICE

    def for_throughput(pick: Pick) -> str:
        return str(optimal[pick.label].throughput_c) if pick.label in optimal else NO_CHOICE

    def at_level(pick: Pick) -> str:
        return str(pick.level) if pick.level is not None else NO_CHOICE

    suggestion = at_low["ttft_ms_mean"] + SUGGESTION_TOKENS * at_low["itl_ms_mean"]
    picks = (
        (
            "Interactive chat",
            f"lowest mean latency at {level}",
            _choose(at_low, at_low["latency_s_mean"], True, "{:.2f} s"),
            for_latency,
        ),
        (
            "Code completion",
            f"lowest mean TTFT + {SUGGESTION_TOKENS} × mean ITL (a {SUGGESTION_TOKENS}-token "
            f"suggestion) at {level}",
            _choose(at_low, suggestion, True, "{:.0f} ms"),
            for_latency,
        ),
        (
            "API service, low load",
            "highest mean per-stream TPS at the highest level every label ran up to "
            f"C={LOW_LOAD_MAX_C}",
            _choose(at_modest, at_modest["tps_mean"], False, "{:.2f} tok/s"),
            at_level,
        ),
        (
            "API service, high load",
            "highest system-wide RPS (C / mean latency) at the highest level every label ran",
            _choose(at_high, at_high["system_rps"], False, "{:.2f} req/s"),
            for_throughput,
        ),
        (
            "Batch processing",
            "highest total tok/s (mean TPS × C) at any level",
            _choose(_peaks(summary), _peaks(summary)["total_tps"], False, "{:.1f} tok/s"),
            at_level,
        ),
    )
    out = [
        Choice(scenario, rule, pick.label, pick.figure, where(pick), pick.everyone)
        for scenario, rule, pick, where in picks
    ]
    out.append(_service_level(ranking, capacities, optimal))
    first = _choose(at_low, at_low["ttft_ms_mean"], True, "{:.0f} ms")
    out.append(
        Choice(
            "First token critical",
            f"lowest mean TTFT at {level}",
            first.label,
            first.figure,
            for_latency(first),
            first.everyone,
        )
    )
    return out


def _peaks(summary: pd.DataFrame) -> pd.DataFrame:
    """Each label's level of highest total tok/s (its first level when it has none)."""
    totals = summary["total_tps"].astype(float).fillna(-np.inf)
    return summary.loc[totals.groupby(summary["label"], sort=False).idxmax()]


def _service_level(
    ranking: pd.DataFrame,
    capacities: dict[str, float | None] | None,
    optimal: dict[str, Optimum],
) -> Choice:
    """With --slo: the highest concurrency meeting it; without: the most predictable label,
    at its latency optimum."""
    if capacities is not None:
        everyone = ", ".join(
            f"{label} " + (f"C={c:.1f}" if c is not None else "fails at its lowest level")
            for label, c in capacities.items()
        )
        met = {label: c for label, c in capacities.items() if c is not None}
        rule = "highest concurrency meeting the SLO (interpolated between levels)"
        if not met:
            return Choice("Service level (--slo)", rule, "none", "no label meets it", "—", everyone)
        label = max(met, key=lambda k: met[k])
        return Choice(
            "Service level (--slo)",
            rule,
            label,
            f"C={met[label]:.1f}",
            f"≤ {met[label]:.1f}",
            everyone,
        )

    def score(value: float) -> str:
        return f"{value:.3f}" if np.isfinite(value) else NO_CHOICE

    top = ranking.iloc[0]
    everyone = ", ".join(f"{r['Label']} {score(r['Score'])}" for _, r in ranking.iterrows())
    rule = "most predictable: lowest mean p90/p50 of TTFT, ITL and TPS over its levels"
    if not np.isfinite(top["Score"]):
        return Choice(
            "Service level (no --slo)", rule, NO_CHOICE, "no p90/p50", NO_CHOICE, everyone
        )
    return Choice(
        "Service level (no --slo)",
        rule,
        str(top["Label"]),
        f"score {score(top['Score'])}",
        optimal[str(top["Label"])].latency_range,
        everyone,
    )
