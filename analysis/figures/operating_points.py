"""Operating points: every level as a point of aggregate against per-stream throughput and TTFT,
with its SLO verdict and the capacity a capacity search recorded.

Aggregate tokens/s = Σ output tokens / level wall time (``measured_total_tps``: what the server
delivered to all streams together); per-stream tokens/s = the mean of the requests' output
tokens / latency (``tps_mean``: what one user sees). Going up the levels, aggregate throughput
climbs while per-stream throughput and TTFT get worse; where the climb flattens, more streams buy
little and cost every user (the single-Spark notes: C=8 is the better operating point than C=16).

A level meets the SLO as ``analysis.figures.slo`` judges it (``--slo``); the capacity point is
the level a capacity search settled on (``Manifest.capacity``: the probe of its ``capacity``
value), with its goodput under the search's own bounds. A run's tiers (``Manifest.tiers``,
``--tier``) are findings too, one per tier, each with the figures of the probe that met its
bounds and of the one above that broke them; they mark no point (several would), the report
lists them in a table of their own.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field, replace
from typing import Any

import numpy as np
import pandas as pd

from analysis.errors import InputError
from analysis.figures import slo
from analysis.figures.metrics import Settings, level_keys, level_name
from analysis.reading.load import Dataset, Run
from sparkload.records import OVER_CONCURRENCY, OVER_RATE, CapacityEntry, sample_text
from sparkload.records import level_name as level_name_of

POINT_LEVEL = "level"  # the level's name ("C=4", "offered 2 req/s")
MEETS_SLO = "meets_slo"  # True / False, None without --slo
CAPACITY = "capacity"  # True at the capacity search's level
POINT_COLUMNS = [
    "label",
    "loop",
    POINT_LEVEL,
    "key",  # C, or the offered rate
    "per_stream_tps",
    "aggregate_tps",
    "ttft_ms_p90",
    MEETS_SLO,
    CAPACITY,
]


@dataclass(frozen=True)
class CapacityFinding:
    """What one run's capacity search found, and which of its levels it names."""

    label: str
    bounds: str
    over: str  # OVER_CONCURRENCY | OVER_RATE
    value: float | None  # None: no probe met the bounds
    key: float | None  # the level key (C or offered rate) of the capacity's probe, when found
    limit: str  # the first level that failed, as its probe named it ("" when none)
    limit_breaches: tuple[str, ...] = ()  # what broke there ("ttft_p90_ms = 913.4 > 800")
    goodput_pct: float | None = None  # at the capacity's level, under the search's bounds
    goodput_rps: float | None = None
    # what the verdicts of the capacity's probe and the first failing one rest on (their
    # requests and intervals, ``capacity.sample_text``), and where their sample cannot settle
    # a bound, why ("" and () for a search written before verdicts counted their requests)
    requests: int | None = None
    limit_requests: int | None = None
    sample: str = ""
    limit_sample: str = ""
    caveats: tuple[str, ...] = ()
    # --tier's name ("": --find-capacity's search); the value of the first failing probe; each
    # bound's figure at the capacity's probe and at that one (what confirms the answer: the
    # capacity meets the bounds, one more session breaks them)
    tier: str = ""
    limit_value: float | None = None
    figures: dict[str, float | None] = field(default_factory=dict)
    limit_figures: dict[str, float | None] = field(default_factory=dict)
    # --find-capacity tenants: the classes that broke their own slo at the first failing probe
    first_to_fail: tuple[str, ...] = ()

    def describe(self) -> str:
        unit = "C=" if self.over == OVER_CONCURRENCY else "rate "
        where = f"**{self.label}**: capacity search (`{self.bounds}`, over {self.over})"
        if self.tier:
            where = f"**{self.label}**, tier **{self.tier}** (`{self.bounds}`, agent sessions)"
        if self.value is None:
            found = "no probed level met the bounds"
            if self.tier:
                found = "capacity **0**, not met: " + found
        else:
            found = f"capacity **{unit}{self.value:g}**"
            if self.tier and self.over == OVER_CONCURRENCY:
                found = f"capacity **{self.value:g} sessions**"
            if self.sample:
                found += f" ({self.sample})"
            if self.key is None:
                found += " (no measured level at that value to mark)"
        if self.goodput_pct is not None and self.goodput_rps is not None:
            found += f", goodput {self.goodput_pct:.1f} % ({self.goodput_rps:.3g} good req/s)"
        if self.limit:
            said = "; ".join(filter(None, [*self.limit_breaches, self.limit_sample]))
            found += f"; first failing probe: {self.limit}" + (f" ({said})" if said else "")
        if self.first_to_fail:
            found += f"; first to fail: {', '.join(self.first_to_fail)}"
        if self.caveats:
            found += f". **Warning**: {'; '.join(self.caveats)}"
        return f"{where}: {found}"


def _number(value: object) -> float | None:
    try:
        number = float(value)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return None
    return number if np.isfinite(number) else None


def capacity_findings(run: Run) -> list[CapacityFinding]:
    """The run's capacity search (``Manifest.capacity``) or its tiers' (``Manifest.tiers``),
    each with the level its capacity names."""
    entries = [run.manifest.capacity] if run.manifest.capacity is not None else []
    return [_finding(run, entry) for entry in [*entries, *run.manifest.tiers]]


def _finding(run: Run, entry: CapacityEntry) -> CapacityFinding:
    over = OVER_RATE if entry.over == OVER_RATE else OVER_CONCURRENCY
    value = _number(entry.capacity)
    index = next((p.verdict.level_index for p in entry.probes if p.value == value), None)
    levels = {level.index: level for level in run.manifest.levels}
    key: float | None = None
    if index in levels:
        key = run.offered_rates().get(index) if run.open_loop else float(levels[index].concurrency)
    elif over == OVER_CONCURRENCY and not run.open_loop:
        key = value  # no probe list: the level run at that concurrency
    limit_text = ""
    breaches: tuple[str, ...] = ()
    limit = entry.limit if entry.limit and _number(entry.limit.value) is not None else None
    if limit is not None:
        limit_text = ("C=" if over == OVER_CONCURRENCY else "rate ") + f"{limit.value:g}"
        breaches = tuple(limit.verdict.breaches)
    found = next((p for p in entry.probes if p.value == value), None)
    caveats = tuple(
        f"{level_name_of(over, probe.value)}: {caveat}"
        for probe in (found, limit)
        if probe is not None
        for caveat in probe.verdict.caveats or []
    )
    return CapacityFinding(
        run.label,
        entry.bounds or "?",
        over,
        value,
        key,
        limit_text,
        breaches,
        requests=found.verdict.requests if found else None,
        limit_requests=limit.verdict.requests if limit else None,
        sample=sample_text(found.verdict) if found else "",
        limit_sample=sample_text(limit.verdict) if limit else "",
        caveats=caveats,
        tier=entry.tier or "",
        limit_value=limit.value if limit else None,
        figures=dict(found.verdict.figures) if found else {},
        limit_figures=dict(limit.verdict.figures) if limit else {},
        first_to_fail=tuple(limit.verdict.failing_classes or []) if limit else (),
    )


def with_goodput(
    finding: CapacityFinding, dataset: Dataset, summary: pd.DataFrame, settings: Settings
) -> CapacityFinding:
    """The finding with its level's goodput under the search's own bounds (as found when the
    bounds cannot be read or the level was not measured)."""
    if finding.key is None:
        return finding
    try:
        bounds = slo.parse(finding.bounds)
    except InputError:
        return finding
    mine = summary[summary["label"] == finding.label]
    rows = slo.evaluate(dataset.records, mine, bounds, settings)
    for _, row in rows.iterrows():
        key = row["concurrency"] if row["loop"] == "closed" else row["offered_rps"]
        if np.isclose(float(key), finding.key):
            pct, rps = _number(row["goodput_pct"]), _number(row["goodput_rps"])
            return replace(finding, goodput_pct=pct, goodput_rps=rps)
    return finding


def points(
    summary: pd.DataFrame, verdicts: pd.DataFrame, findings: list[CapacityFinding]
) -> pd.DataFrame:
    """One row per level of ``summary`` (both loops, level order within a label).

    ``verdicts``: ``slo.evaluate``'s rows (empty without --slo); ``findings``: the runs'
    capacity searches.
    """
    if summary.empty:
        return pd.DataFrame(columns=POINT_COLUMNS)
    keys = level_keys(summary)
    frame = pd.DataFrame(
        {
            "label": summary["label"].to_numpy(),
            "loop": summary["loop"].to_numpy(),
            POINT_LEVEL: [level_name(row) for _, row in summary.iterrows()],
            "key": keys,
            "per_stream_tps": summary["tps_mean"].to_numpy(float),
            "aggregate_tps": summary["measured_total_tps"].to_numpy(float),
            "ttft_ms_p90": summary["ttft_ms_p90"].to_numpy(float),
        }
    )
    if "ttfo_ms_p90" in summary:  # a thinking model's or an agent's run: time to answer too
        frame.insert(
            frame.columns.get_loc("ttft_ms_p90") + 1,
            "ttfo_ms_p90",
            summary["ttfo_ms_p90"].to_numpy(float),
        )
    meets: dict[tuple[str, float], bool] = {}
    if not verdicts.empty:
        for _, row in verdicts.iterrows():
            key = row["concurrency"] if row["loop"] == "closed" else row["offered_rps"]
            meets[(str(row["label"]), float(key))] = bool(row["meets_slo"])
    frame[MEETS_SLO] = [
        meets.get((label, float(key))) for label, key in zip(frame["label"], keys, strict=True)
    ]
    marked = {(f.label, f.key) for f in findings if f.key is not None and not f.tier}
    frame[CAPACITY] = [
        any(label == m_label and np.isclose(key, m_key) for m_label, m_key in marked)
        for label, key in zip(frame["label"], keys, strict=True)
    ]
    frame = frame.sort_values(["label", "key"], key=_label_order(frame), kind="stable")
    thinking = ["ttfo_ms_p90"] if "ttfo_ms_p90" in frame else []
    return frame[POINT_COLUMNS + thinking].reset_index(drop=True)


def of_dataset(
    dataset: Dataset, summary: pd.DataFrame, settings: Settings, bounds: list[slo.Bound] | None
) -> tuple[pd.DataFrame, list[CapacityFinding]]:
    """Every level's operating point (with its SLO verdict when an SLO is given) and the runs'
    capacity searches."""
    findings = [
        with_goodput(found, dataset, summary, settings)
        for run in dataset.runs
        for found in capacity_findings(run)
    ]
    verdicts = (
        slo.evaluate(dataset.records, summary, bounds, settings)
        if bounds and not dataset.records.empty
        else pd.DataFrame()
    )
    return points(summary, verdicts, findings), findings


def summary_entries(frame: pd.DataFrame, findings: list[CapacityFinding]) -> dict[str, Any]:
    """summary.json's ``operating_points`` (one object per level) and ``capacity_searches``."""
    return {
        "operating_points": json.loads(frame.to_json(orient="records", double_precision=15)),
        "capacity_searches": [asdict(finding) for finding in findings],
    }


def _label_order(frame: pd.DataFrame):
    order = {label: i for i, label in enumerate(dict.fromkeys(frame["label"]))}
    return lambda s: s.map(order) if s.name == "label" else s


def is_capacity(frame: pd.DataFrame) -> pd.Series:
    return frame[CAPACITY].astype(bool)
