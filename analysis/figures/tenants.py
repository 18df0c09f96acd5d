"""Traffic classes (``--tenants``): every headline figure per level and class, and each class
held to its own service level.

A class's figures are the report's own, computed over its records alone (``summarize``), so
its TTFT p90 at C=20 is what the class saw in the mix. Against the class's SLO (its manifest
entry's ``slo``, ``--check``'s syntax): ``goodput_rps`` (its measured requests meeting every
bound, per second of the class's level), ``slo_attainment`` (the share of its measured
requests meeting every bound, failures counted as missing it) and ``meets_slo`` (whether every
bound holds at the level, percentile bounds included). ``token_share`` is the class's prompt and
output tokens over the level's, all classes' measured requests counted.

With ``--tenant-baselines`` each class also ran alone before the mix (``dataset.baselines``):
its figures there beside each mix level's, and their ratio mix / alone (``INTERFERENCE``: 2.0
on TTFT p90 is a class waiting twice as long for its first token because of the others).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

import numpy as np
import pandas as pd

from analysis.errors import InputError
from analysis.figures import probe, slo
from analysis.figures.metrics import CLOSED, LOOPS, Settings, loop_records, summarize
from analysis.reading.load import Dataset
from sparkload.records import PHASE_BASELINE, WORKLOAD_TENANTS, ProbeVerdict

TENANT = "tenant"
HEADLINE = [
    f"{column}_{stat}"
    for column in ("ttft_ms", "ttfo_ms", "itl_ms", "tps", "latency_s")
    for stat in ("mean", "p50", "p90")
]  # TTFO is a thinking run's column: NaN where the summary has none
LEVEL_COLUMNS = ["label", "loop", "concurrency", "offered_rps"]
COLUMNS = [
    *LEVEL_COLUMNS,
    TENANT,
    "share",
    "n",
    "failures",
    *HEADLINE,
    "token_share",
    "slo",
    "meets_slo",
    "slo_attainment",
    "goodput_rps",
]


INTERFERENCE = ["ttft_ms_p90", "itl_ms_p90", "latency_s_p90", "tps_mean"]
ALONE_COLUMNS = [
    "label",
    "concurrency",
    TENANT,
    "alone_users",
    *(f"{figure}_{kind}" for figure in INTERFERENCE for kind in ("alone", "mix", "ratio")),
]


@dataclass(frozen=True)
class TenantSpec:
    """One class as a run's manifest names it."""

    name: str
    share: float
    workload: str
    slo: str  # "" : none


@dataclass(frozen=True)
class ClassVerdict:
    """One class of one label held to its SLO: its per-level rows and the bounds it broke."""

    label: str
    spec: TenantSpec
    rows: pd.DataFrame  # COLUMNS, one row per level
    breaches: list[slo.Breach]
    alone: pd.DataFrame  # ALONE_COLUMNS, one row per mix level (empty: no baseline)


def specs(dataset: Dataset) -> dict[str, list[TenantSpec]]:
    """label -> its classes, from the first of its runs that ran with ``--tenants``."""
    out: dict[str, list[TenantSpec]] = {}
    for run in dataset.runs:
        workload = run.manifest.workload
        if workload is None or workload.name != WORKLOAD_TENANTS or run.label in out:
            continue
        classes = workload.unknown.get("classes") or []
        out[run.label] = [_spec(entry) for entry in classes if isinstance(entry, dict)]
    return out


def _spec(entry: dict[str, Any]) -> TenantSpec:
    return TenantSpec(
        str(entry.get("name", "")),
        float(entry.get("share") or 0.0),
        str(entry.get("workload", "")),
        str(entry.get("slo") or ""),
    )


def has_tenants(dataset: Dataset) -> bool:
    return bool(specs(dataset)) and TENANT in dataset.records


def judge(dataset: Dataset, settings: Settings) -> list[ClassVerdict]:
    """Every class of every label that ran with ``--tenants``, its levels in order."""
    if not has_tenants(dataset):
        return []
    settings = replace(settings, bootstrap_resamples=0)  # per-class figures, not their CIs
    records = dataset.records
    tokens = _tokens(records)
    verdicts = []
    for label, classes in specs(dataset).items():
        for spec in classes:
            own = records[(records["label"] == label) & (records[TENANT] == spec.name)]
            if own.empty:
                continue
            verdicts.append(_class(dataset, own, spec, label, tokens, settings))
    return verdicts


def level_verdict(dataset: Dataset, index: int, settings: Settings) -> ProbeVerdict:
    """Level ``index`` of one --tenants run judged as ``--check tenants`` judges the run (the
    capacity search's probe, ``--find-capacity tenants``): each class with an slo held to it on
    its own records of the level (``probe.level_verdict``), the level meeting when every class
    that sent there meets its own. Figures, intervals, breaches and caveats are the classes',
    each named by its class; ``failing_classes`` the classes that broke their slo."""
    settings = replace(settings, bootstrap_resamples=0)
    classes = [spec for run in dataset.runs for spec in specs(dataset).get(run.label, [])]
    judged_classes = [spec for spec in classes if spec.slo]
    if len(dataset.runs) != 1 or not judged_classes or TENANT not in dataset.records:
        raise InputError(
            "--check tenants --check-level: give one --tenants run whose classes name an slo"
        )
    if not any(level.index == index for level in dataset.runs[0].manifest.levels):
        raise InputError(f"--check-level: {dataset.runs[0].path} has no level {index}")
    judged: list[tuple[str, ProbeVerdict]] = []
    absent: list[str] = []
    for spec in judged_classes:
        own = dataset.records[dataset.records[TENANT] == spec.name]
        if own.empty:  # the class has sent nothing yet (fewer users than classes so far)
            absent.append(f"class {spec.name}: no measured request at this level")
            continue
        part = Dataset(own, pd.DataFrame(), dataset.runs)
        bounds = slo.parse(spec.slo, f"--tenants class {spec.name!r} slo")
        try:
            levels = slo.evaluate(own, summarize(part, settings), bounds, settings)
            judged.append((spec.name, probe.level_verdict(part, levels, bounds, index, settings)))
        except InputError:  # the class sent no measured request at this level
            absent.append(f"class {spec.name}: no measured request at this level")
    if not judged:
        raise InputError(f"--check-level: level {index} has no measured request of a class")
    return ProbeVerdict(
        index,
        all(verdict.meets for _, verdict in judged),
        {f"{name}: {bound}": x for name, v in judged for bound, x in v.figures.items()},
        [f"class {name}: {breach}" for name, v in judged for breach in v.breaches],
        level=judged[0][1].level,
        requests=sum(verdict.requests or 0 for _, verdict in judged),
        intervals={
            f"{name}: {bound}": interval
            for name, v in judged
            for bound, interval in (v.intervals or {}).items()
        },
        caveats=[*absent, *(f"class {name}: {c}" for name, v in judged for c in v.caveats or [])],
        failing_classes=[name for name, verdict in judged if not verdict.meets],
    )


def _class(
    dataset: Dataset,
    own: pd.DataFrame,
    spec: TenantSpec,
    label: str,
    tokens: pd.Series,
    settings: Settings,
) -> ClassVerdict:
    runs = [run for run in dataset.runs if run.label == label]
    summary = summarize(Dataset(own, pd.DataFrame(), runs), settings)
    summary = summary[(summary["n"] + summary["failures"]) > 0]  # levels the class sent in
    rows = summary.reindex(columns=[*LEVEL_COLUMNS, "n", "failures", *HEADLINE])
    rows.insert(4, TENANT, spec.name)
    rows.insert(5, "share", spec.share)
    mine = _tokens(own)
    rows["token_share"] = [
        mine.get(key, np.nan) / tokens.get(key, np.nan) if tokens.get(key) else np.nan
        for key in _keys(rows)
    ]
    rows["slo"] = spec.slo
    breaches: list[slo.Breach] = []
    if spec.slo:
        try:
            bounds = slo.parse(spec.slo, f"--tenants class {spec.name!r} slo")
        except InputError as exc:
            raise InputError(f"{label}: {exc}") from None
        levels = slo.evaluate(own, summary, bounds, settings)
        rows["meets_slo"] = levels["meets_slo"].to_numpy(bool)
        rows["slo_attainment"] = levels["goodput_pct"].to_numpy(float) / 100
        rows["goodput_rps"] = levels["goodput_rps"].to_numpy(float)
        breaches = slo.breaches(levels, bounds)
    else:
        rows["meets_slo"] = pd.NA
        rows["slo_attainment"] = np.nan
        rows["goodput_rps"] = np.nan
    rows = rows[COLUMNS].reset_index(drop=True)
    return ClassVerdict(label, spec, rows, breaches, _beside_alone(dataset, rows, settings))


def _beside_alone(dataset: Dataset, mix: pd.DataFrame, settings: Settings) -> pd.DataFrame:
    """The class's baseline (its level alone) beside each of its closed-loop mix levels."""
    apart = dataset.baselines
    if apart.empty or mix.empty:
        return pd.DataFrame(columns=ALONE_COLUMNS)
    label, name = mix["label"].iloc[0], mix[TENANT].iloc[0]
    mine = (apart["label"] == label) & (apart[TENANT] == name)
    own = apart[mine].assign(measure=(apart["phase"][mine] == PHASE_BASELINE).to_numpy())
    runs = [run for run in dataset.runs if run.label == label]
    alone = summarize(Dataset(own, pd.DataFrame(), runs), settings)
    alone = alone[(alone["loop"] == CLOSED.name) & (alone["n"] > 0)]
    if alone.empty:
        return pd.DataFrame(columns=ALONE_COLUMNS)
    base = alone.iloc[0]
    out = mix[mix["loop"] == CLOSED.name][["label", "concurrency", TENANT]].copy()
    out["alone_users"] = int(base["concurrency"])
    for figure in INTERFERENCE:
        mixed = mix.loc[out.index, figure].astype(float)
        out[f"{figure}_alone"] = float(base[figure])
        out[f"{figure}_mix"] = mixed
        out[f"{figure}_ratio"] = mixed / float(base[figure]) if base[figure] else np.nan
    return out[ALONE_COLUMNS].reset_index(drop=True)


def _keys(rows: pd.DataFrame) -> list[tuple[str, float]]:
    closed = rows["loop"] == CLOSED.name
    level = np.where(closed, rows["concurrency"].astype(float), rows["offered_rps"])
    return list(zip(rows["label"].astype(str), level.astype(float), strict=True))


def _tokens(records: pd.DataFrame) -> pd.Series:
    """Prompt plus output tokens of the measured requests, by (label, level key)."""
    parts = []
    for loop in LOOPS:
        measured = loop_records(records, loop)
        measured = measured[measured["measure"].to_numpy()]
        if measured.empty:
            continue
        counted = measured["prompt_tokens"].fillna(0) + measured["output_tokens"].fillna(0)
        keys = measured[loop.record_key].astype(float)
        parts.append(counted.groupby([measured["label"].astype(str), keys]).sum())
    return pd.concat(parts) if parts else pd.Series(dtype=float)


def interference(verdicts: list[ClassVerdict]) -> pd.DataFrame:
    """Every class's figures alone beside the mix (``--tenant-baselines``; empty without)."""
    frames = [verdict.alone for verdict in verdicts if not verdict.alone.empty]
    if not frames:
        return pd.DataFrame(columns=ALONE_COLUMNS)
    return pd.concat(frames, ignore_index=True)


def table(verdicts: list[ClassVerdict]) -> pd.DataFrame:
    """Every class's rows: per label, level and class, in the file's order of classes."""
    if not verdicts:
        return pd.DataFrame(columns=COLUMNS)
    frame = pd.concat([verdict.rows for verdict in verdicts], ignore_index=True)
    return frame.sort_values(["label", "concurrency", "offered_rps"], kind="stable").reset_index(
        drop=True
    )


def json_tables(dataset: Dataset, settings: Settings) -> dict[str, pd.DataFrame]:
    """summary.json's ``tenants`` (and ``tenant_baselines``); none for a run without classes,
    whose summary.json stays as it was."""
    verdicts = judge(dataset, settings)
    if not verdicts:
        return {}
    beside = interference(verdicts)
    return {"tenants": table(verdicts), **({"tenant_baselines": beside} if len(beside) else {})}
