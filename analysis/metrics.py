"""The one place that defines every per-level metric (DESIGN section 2).

Per (label, concurrency C), over measured requests only (warm-up excluded):
  n                    ok measured requests; ``failures`` counts the rest, which are not used
  mean/p50/p90/p99     of ttft (ms), itl (ms), tps (tok/s), latency (s), with bootstrap CIs
  throughput_rps       n / Σ latency = 1 / mean latency   (the reference tool's per-stream RPS)
  system_rps           C / mean latency                   (report section 5.5)
  measured_rps         n / level wall time, wall time = max(start + latency) − min(start)
  total_tps            mean tps × C                       (report section 6.1)
  measured_total_tps   Σ output tokens / level wall time
  saturation_pct       mean tps(C) / mean tps(lowest C of the label) × 100   (section 6.2)

Per-request itl/tps come from the records (``RequestRecord.derive``) and are never recomputed.
Extra columns beside them: p99s, bootstrap CIs, decode tok/s, chunk ITL (vLLM's per-chunk gap,
per step rather than per token with MTP), and the share of prompt tokens served from cache.
Several runs of one label pool their requests; their wall times add up.
"""

from __future__ import annotations

import zlib
from dataclasses import dataclass

import numpy as np
import pandas as pd

from analysis import percentiles
from analysis.load import Dataset


@dataclass(frozen=True)
class Metric:
    """A per-request metric: its record field, summary column stem, and unit factor."""

    field: str
    column: str
    factor: float
    title: str
    unit: str


METRICS = (
    Metric("ttft", "ttft_ms", 1000.0, "TTFT", "ms"),
    Metric("itl", "itl_ms", 1000.0, "ITL", "ms"),
    Metric("tps", "tps", 1.0, "TPS", "tok/s"),
    Metric("latency", "latency_s", 1.0, "Latency", "s"),
)
METRIC_BY_FIELD = {m.field: m for m in METRICS}
QUANTILES = {"p50": 0.5, "p90": 0.9, "p99": 0.99}

SUMMARY_COLUMNS = [
    "label",
    "variant",
    "tp",
    "nodes",
    "concurrency",
    "n",
    "failures",
    *(f"{m.column}_{s}" for m in METRICS for s in ("mean", "p50", "p90")),
    "throughput_rps",
    "system_rps",
    "measured_rps",
    "total_tps",
    "measured_total_tps",
    "saturation_pct",
]
EXTRA_COLUMNS = [
    "client_flags",
    "stream_flags",
    "percentile_method",
    "source",
    "p90_few_samples",
    *(f"{m.column}_p99" for m in METRICS),
    *(f"{m.column}_{s}_ci_{b}" for m in METRICS for s in ("p50", "p90") for b in ("low", "high")),
    "itl_n",
    "warmup_excluded",
    "error_kinds",
    "wall_s",
    "output_tokens_sum",
    "output_tokens_mean",
    "decode_tps_mean",
    "chunk_itl_ms_mean",
    "cached_prompt_pct",
    "time_scale",
    "runs",
    "incomplete",
]


@dataclass(frozen=True)
class Settings:
    """How the per-level numbers are computed."""

    percentile_method: str = percentiles.LINEAR
    itl_null_as_zero: bool = False
    bootstrap_resamples: int = 1000
    seed: int = 0


def measured_ok(records: pd.DataFrame, settings: Settings) -> pd.DataFrame:
    """The requests every metric is computed from, with the compatibility switch applied."""
    frame = records[records["measure"].to_numpy() & records["ok"].to_numpy()]
    if settings.itl_null_as_zero:
        frame = frame.assign(itl=frame["itl"].fillna(0.0))
    return frame


def _group_rng(settings: Settings, label: str, level: int) -> np.random.Generator:
    """A generator seeded by the label and level, so results do not depend on input order."""
    return np.random.default_rng([settings.seed, zlib.crc32(label.encode()), level])


def _distribution_stats(values: np.ndarray, metric: Metric, settings: Settings, rng) -> dict:
    values = np.sort(values[np.isfinite(values)]) * metric.factor
    out = {f"{metric.column}_mean": float(values.mean()) if len(values) else np.nan}
    for name, q in QUANTILES.items():
        out[f"{metric.column}_{name}"] = percentiles.quantile(values, q, settings.percentile_method)
    for name in ("p50", "p90"):
        low, high = percentiles.bootstrap_ci(
            values, QUANTILES[name], settings.percentile_method, rng, settings.bootstrap_resamples
        )
        out[f"{metric.column}_{name}_ci_low"], out[f"{metric.column}_{name}_ci_high"] = low, high
    return out


def _counts(records: pd.DataFrame) -> pd.DataFrame:
    """n, failures, warm-up count, error kinds and wall time per (label, concurrency)."""
    keys = [records["label"], records["level"].rename("concurrency")]
    measure, ok = records["measure"], records["ok"]
    counts = pd.DataFrame(
        {
            "n": (measure & ok).groupby(keys, observed=True).sum(),
            "failures": (measure & ~ok).groupby(keys, observed=True).sum(),
            "warmup_excluded": (~measure).groupby(keys, observed=True).sum(),
        }
    )
    failed = records[measure & ~ok]
    kind = failed["error_kind"].astype(object).fillna("unknown").rename("kind")
    kinds: dict[tuple, list[str]] = {}
    for (label, level, name), count in (
        failed.groupby(["label", "level", kind], observed=True).size().items()
    ):
        kinds.setdefault((label, level), []).append(f"{name}: {count}")
    counts["error_kinds"] = ["; ".join(kinds.get(key, [])) for key in counts.index]
    measured = records[measure]
    ends = measured["start_time"] + measured["latency"].fillna(0.0)
    per_run = (
        pd.DataFrame(
            {
                "label": measured["label"],
                "run": measured["run"],
                "concurrency": measured["level"],
                "start": measured["start_time"],
                "end": ends,
            }
        )
        .groupby(["label", "run", "concurrency"], observed=True)
        .agg(start=("start", "min"), end=("end", "max"))
    )
    wall = (
        (per_run["end"] - per_run["start"]).groupby(["label", "concurrency"], observed=True).sum()
    )
    counts["wall_s"] = wall.reindex(counts.index)
    counts["runs"] = (
        per_run.groupby(["label", "concurrency"], observed=True).size().reindex(counts.index)
    )
    return counts


def _nanmean(values: np.ndarray) -> float:
    return float(np.nanmean(values)) if np.isfinite(values).any() else np.nan


def level_stats(records: pd.DataFrame, settings: Settings) -> pd.DataFrame:
    """Base statistics per (label, concurrency) from raw records."""
    if records.empty or "level" not in records:
        return pd.DataFrame()
    counts = _counts(records)
    ok = measured_ok(records, settings)
    column = {name: ok[name].to_numpy() for name in ok.columns if ok[name].dtype.kind == "f"}
    rows = []
    for (label, level), index in ok.groupby(["label", "level"], observed=True).indices.items():
        rng = _group_rng(settings, str(label), int(level))
        row = {
            "label": label,
            "concurrency": int(level),
            "itl_n": int(np.isfinite(column["itl"][index]).sum()),
        }
        for metric in METRICS:
            row.update(_distribution_stats(column[metric.field][index], metric, settings, rng))
        tokens = column["output_tokens"][index]
        row["output_tokens_sum"] = float(np.nansum(tokens))
        row["output_tokens_mean"] = _nanmean(tokens)
        row["decode_tps_mean"] = _nanmean(column["decode_tps"][index])
        row["chunk_itl_ms_mean"] = _nanmean(column["chunk_gap_mean"][index]) * 1000.0
        # Share of prompt tokens served by the server's prefix cache (the reference tool reuses
        # its prompts level after level, which flatters higher levels this way).
        prompt, cached = column["prompt_tokens"][index], column["cached_tokens"][index]
        both = np.isfinite(prompt) & np.isfinite(cached)
        row["cached_prompt_pct"] = (
            cached[both].sum() / prompt[both].sum() * 100 if prompt[both].sum() else np.nan
        )
        rows.append(row)
    stats = pd.DataFrame(rows).set_index(["label", "concurrency"]) if rows else pd.DataFrame()
    frame = counts.join(stats, how="left").reset_index()
    frame["label"] = frame["label"].astype(str)
    frame["percentile_method"] = settings.percentile_method
    frame["source"] = "records"
    return frame


def add_rates(levels: pd.DataFrame) -> pd.DataFrame:
    """The derived per-level rates: every formula of the module docstring lives here."""
    out = levels.copy()
    c = out["concurrency"].astype(float)
    mean_latency = out["latency_s_mean"]
    out["throughput_rps"] = 1.0 / mean_latency
    out["system_rps"] = c / mean_latency
    out["measured_rps"] = out["n"] / out["wall_s"]
    out["total_tps"] = out["tps_mean"] * c
    out["measured_total_tps"] = out["output_tokens_sum"] / out["wall_s"]
    first = (
        out.sort_values("concurrency").groupby("label", sort=False)["tps_mean"].transform("first")
    )
    out["saturation_pct"] = out["tps_mean"] / first.reindex(out.index) * 100.0
    out["p90_few_samples"] = out["n"] < percentiles.FEW_SAMPLES_FOR_P90
    return out


FLAG_KINDS = ("client_flags", "stream_flags")  # LevelEntry lists, one summary column each
WARM_CACHE_PCT = 50.0  # from this share of cached prompt tokens on, TTFT measures a warm cache


def level_flags(dataset: Dataset, kind: str) -> dict[tuple[str, int], list[str]]:
    """(label, concurrency) -> a level's flags of one kind (``FLAG_KINDS``) from the manifests:
    what the load generator's self-monitor or the stream shape said about that level."""
    flags: dict[tuple[str, int], list[str]] = {}
    for run in dataset.runs:
        for level in run.manifest.levels:
            if found := getattr(level, kind):
                flags.setdefault((run.label, level.concurrency), []).extend(found)
    return flags


def summarize(dataset: Dataset, settings: Settings) -> pd.DataFrame:
    """summary.csv: one row per (label, concurrency), the contract columns first."""
    parts = [
        frame
        for frame in (level_stats(dataset.records, settings), dataset.csv_levels)
        if not frame.empty
    ]
    levels = pd.concat(parts, ignore_index=True)
    for column in SUMMARY_COLUMNS + EXTRA_COLUMNS:
        if column not in levels:
            levels[column] = np.nan
    meta: dict[str, dict] = {}
    for run in dataset.runs:
        info = meta.setdefault(
            run.label,
            {
                "variant": run.variant,
                "tp": run.tp,
                "nodes": run.nodes,
                "time_scale": set(),
                "incomplete": False,
            },
        )
        info["time_scale"].add(run.time_scale)
        info["incomplete"] |= run.incomplete
    for key in ("variant", "tp", "nodes", "incomplete"):
        levels[key] = levels["label"].map({label: info[key] for label, info in meta.items()})
    levels["time_scale"] = levels["label"].map(
        {
            label: "/".join(f"{s:g}" for s in sorted(info["time_scale"]))
            for label, info in meta.items()
        }
    )
    for kind in FLAG_KINDS:
        flagged = level_flags(dataset, kind)
        levels[kind] = [
            "; ".join(flagged.get((label, int(c)), []))
            for label, c in zip(levels["label"], levels["concurrency"], strict=False)
        ]
    levels["tp"] = levels["tp"].astype("Int64")
    levels["nodes"] = levels["nodes"].astype("Int64")
    levels = add_rates(levels)
    order = {label: i for i, label in enumerate(dataset.labels)}
    levels = levels.sort_values(
        ["label", "concurrency"], key=lambda s: s.map(order) if s.name == "label" else s
    )
    for column in ("n", "failures", "warmup_excluded", "runs", "itl_n"):
        levels[column] = levels[column].fillna(0).astype(int)
    return levels[SUMMARY_COLUMNS + EXTRA_COLUMNS].reset_index(drop=True)
