"""Server-side figures per level from vLLM /metrics snapshots (server_metrics.jsonl).

Each level has a "start" and an "end" snapshot per endpoint (and optional "during" samples of
the gauges). Counters become deltas end − start, summed over label sets (engines, models) except
``position`` for per-position acceptance, and over endpoints; gauges are the mean (and max) of
the mid-level samples, or the value at the end when there are none (a closed-loop level ends
idle, so end values are ~0). A ladder level also has a "measure" snapshot, taken when its
warm-up request came back (nothing in flight); deltas then run from it, so they cover exactly
the measured requests, not the spawn and the warm-up. Derived:
  acceptance rate        accepted tokens / draft tokens
  tokens per pass        1 + accepted tokens / drafts (mean tokens a forward pass emits)
  acceptance at pos i    accepted at position i / drafts
  prefix-cache hit rate  hits / queries
  generation tok/s       Δ generation tokens / (end.time − start.time), in simulated time
  server TTFT / ITL      Δ histogram sum / Δ histogram count (ms)
Several runs of one label add their deltas before the ratios are taken. Only the target's own
endpoints count here; ``--scrape`` nodes (snapshots with a ``node`` but no ``endpoint``) are
read by ``analysis/telemetry.py``.
"""

from __future__ import annotations

from collections import defaultdict

import numpy as np
import orjson
import pandas as pd

from analysis.load import Run

_COUNTERS = {
    "gen_tokens": "vllm:generation_tokens_total",
    "drafts": "vllm:spec_decode_num_drafts_total",
    "draft_tokens": "vllm:spec_decode_num_draft_tokens_total",
    "accepted": "vllm:spec_decode_num_accepted_tokens_total",
    "prefix_queries": "vllm:prefix_cache_queries_total",
    "prefix_hits": "vllm:prefix_cache_hits_total",
    "ttft_sum": "vllm:time_to_first_token_seconds_sum",
    "ttft_count": "vllm:time_to_first_token_seconds_count",
    "itl_sum": "vllm:inter_token_latency_seconds_sum",
    "itl_count": "vllm:inter_token_latency_seconds_count",
    "prompt_tokens": "vllm:prompt_tokens_total",
}
_OLD_NAMES = {  # older vLLM servers: read under the current name (notes s.1)
    "vllm:time_per_output_token_seconds_sum": "vllm:inter_token_latency_seconds_sum",
    "vllm:time_per_output_token_seconds_count": "vllm:inter_token_latency_seconds_count",
    "vllm:gpu_prefix_cache_queries_total": "vllm:prefix_cache_queries_total",
    "vllm:gpu_prefix_cache_hits_total": "vllm:prefix_cache_hits_total",
}
_GAUGES = {
    "running": "vllm:num_requests_running",
    "waiting": "vllm:num_requests_waiting",
    "kv_cache_usage_pct": "vllm:kv_cache_usage_perc",
}
_GAUGE_NAMES = {  # older vLLM names accepted too (notes s.1)
    "running": ("vllm:num_requests_running",),
    "waiting": ("vllm:num_requests_waiting",),
    "kv_cache_usage_pct": ("vllm:kv_cache_usage_perc", "vllm:gpu_cache_usage_perc"),
}
_GAUGE_COLUMNS = (*_GAUGES, *(f"{key}_max" for key in _GAUGES), "gauge_samples")
_PER_POSITION = "vllm:spec_decode_num_accepted_tokens_per_pos_total"


def _totals(samples: list[dict]) -> dict[str, float]:
    """Sum per metric name over label sets; per-position acceptance keyed by position."""
    totals: dict[str, float] = defaultdict(float)
    for sample in samples:
        name, value = sample.get("name"), sample.get("value")
        if not isinstance(value, (int, float)):
            continue
        if name == _PER_POSITION:
            name = f"pos{(sample.get('labels') or {}).get('position', '?')}"
        totals[str(name)] += float(value)
    for old_name, name in _OLD_NAMES.items():
        if old_name in totals and name not in totals:
            totals[name] = totals[old_name]
    return totals


def read_snapshots(run: Run) -> list[dict]:
    """Every whole snapshot of the run's server_metrics.jsonl, in file order."""
    out: list[dict] = []
    path = run.server_metrics_path
    for line in path.read_bytes().splitlines() if path is not None else ():
        try:
            snap = orjson.loads(line)
            int(snap["level_index"]), str(snap["when"]), float(snap["time"])
        except (orjson.JSONDecodeError, KeyError, TypeError, ValueError):
            continue  # a torn last line of a killed run
        out.append(snap)
    return out


def _level_deltas(run: Run) -> list[dict]:
    """One row per level of one run: counter deltas summed over endpoints, gauges per level.

    Gauges: the mean (and max) of the mid-level samples (``when="during"``) when there are
    any, else the value at the level's end; running/waiting add up over endpoints, KV usage is
    their mean. Level seconds come from the first endpoint's start and end snapshots.
    """
    bounds: dict[tuple[int, str], dict[str, dict]] = defaultdict(
        dict
    )  # (level, when) → endpoint → snap
    during: dict[int, dict[str, list[dict]]] = defaultdict(lambda: defaultdict(list))
    for snap in read_snapshots(run):
        if "node" in snap and "endpoint" not in snap:
            continue  # a --scrape node: its vLLM series, if any, are an endpoint's seen again
        index, when, endpoint = (
            int(snap["level_index"]),
            str(snap["when"]),
            str(snap.get("endpoint", "")),
        )
        if when == "during":
            during[index][endpoint].append(_totals(snap.get("samples") or []))
        else:
            bounds[(index, when)][endpoint] = snap
    rows = []
    for (index, when), ends in sorted(bounds.items()):
        # "measure" (taken when the warm-up came back) keeps spawn and warm-up out of the deltas
        starts = {**bounds.get((index, "start"), {}), **bounds.get((index, "measure"), {})}
        pairs = [(starts[e], ends[e]) for e in ends if e in starts]
        if when != "end" or not pairs:
            continue
        first_start, first_end = pairs[0]
        row = {
            "label": run.label,
            "concurrency": int(first_end.get("concurrency", 0)),
            "level_index": index,
            "seconds": (float(first_end["time"]) - float(first_start["time"])) * run.time_scale,
            "endpoints": len(pairs),
        }
        totals = [
            (_totals(a.get("samples") or []), _totals(b.get("samples") or [])) for a, b in pairs
        ]
        for key, name in _COUNTERS.items():
            values = [b[name] - a.get(name, 0.0) for a, b in totals if name in b]
            row[key] = sum(values) if values else np.nan
        positions = sorted({n for _, b in totals for n in b if n.startswith("pos")})
        for name in positions:
            row[name] = sum(b.get(name, 0.0) - a.get(name, 0.0) for a, b in totals)
        row.update(_gauges(during.get(index, {}), [b for _, b in totals]))
        rows.append(row)
    return rows


def _gauge(totals: dict, key: str) -> float:
    for name in _GAUGE_NAMES[key]:
        if name in totals:
            return totals[name]
    return np.nan


def _gauges(during: dict[str, list[dict]], at_end: list[dict]) -> dict:
    """running/waiting summed over endpoints, KV usage averaged; mean and max over samples."""
    out = {}
    for key in _GAUGES:
        combine = np.nanmean if key == "kv_cache_usage_pct" else np.nansum
        sampled = [[_gauge(t, key) for t in samples] for samples in during.values() if samples]
        if sampled:
            means = [
                np.nanmean(v) if np.isfinite(v).any() else np.nan for v in map(np.array, sampled)
            ]
            maxes = [
                np.nanmax(v) if np.isfinite(v).any() else np.nan for v in map(np.array, sampled)
            ]
        else:
            means = maxes = [_gauge(t, key) for t in at_end]
            maxes = [np.nan] * len(means)
        finite = [m for m in means if np.isfinite(m)]
        out[key] = float(combine(finite)) if finite else np.nan
        finite_max = [m for m in maxes if np.isfinite(m)]
        out[f"{key}_max"] = float(combine(finite_max)) if finite_max else np.nan
    out["gauge_samples"] = sum(len(v) for v in during.values())
    return out


def per_level(runs: list[Run]) -> pd.DataFrame:
    """Server figures per (label, concurrency); empty when no run has server_metrics.jsonl."""
    rows = [row for run in runs if run.server_metrics_path for row in _level_deltas(run)]
    if not rows:
        return pd.DataFrame()
    raw = pd.DataFrame(rows)
    keys = ["label", "concurrency"]
    sums = (
        raw.drop(columns=[*_GAUGE_COLUMNS, "level_index", "endpoints"])
        .groupby(keys, sort=False)
        .sum(min_count=1)
    )
    gauges = raw.groupby(keys, sort=False)[list(_GAUGE_COLUMNS)].mean()
    out = pd.DataFrame(index=sums.index)
    out["gen_tok_s"] = sums["gen_tokens"] / sums["seconds"]
    out["acceptance_rate"] = sums["accepted"] / sums["draft_tokens"]
    out["tokens_per_pass"] = 1 + sums["accepted"] / sums["drafts"]
    for name in sorted((c for c in sums if c.startswith("pos")), key=lambda c: c[3:].zfill(4)):
        out[f"accept_{name}"] = sums[name] / sums["drafts"]
    out["prefix_hit_rate"] = sums["prefix_hits"] / sums["prefix_queries"]
    out["ttft_ms_mean"] = sums["ttft_sum"] / sums["ttft_count"] * 1000
    out["itl_ms_mean"] = sums["itl_sum"] / sums["itl_count"] * 1000
    out = out.join(gauges)
    out["drafts"] = sums["drafts"]
    out["draft_tokens"] = sums["draft_tokens"]  # / drafts: the draft depth k
    return out.replace([np.inf, -np.inf], np.nan).reset_index()


def prefix_cache_per_level(runs: list[Run]) -> pd.DataFrame:
    """The server's prefix-cache hit rate (Δ hits / Δ queries, in tokens) per (label, level),
    a level named by its C or, open loop, by its offered rate (``level`` column); empty when no
    run has the counters."""
    rows = []
    for run in runs:
        if not run.server_metrics_path:
            continue
        rates = run.offered_rates() if run.open_loop else {}
        for row in _level_deltas(run):
            key = rates.get(row["level_index"], np.nan) if run.open_loop else row["concurrency"]
            rows.append(
                {
                    "label": run.label,
                    "level": float(key),
                    "prefix_hits": row["prefix_hits"],
                    "prefix_queries": row["prefix_queries"],
                }
            )
    if not rows:
        return pd.DataFrame(columns=["label", "level", "prefix_hit_rate"])
    sums = pd.DataFrame(rows).groupby(["label", "level"], sort=False).sum(min_count=1)
    rate = (sums["prefix_hits"] / sums["prefix_queries"]).replace([np.inf, -np.inf], np.nan)
    return rate.rename("prefix_hit_rate").reset_index()


_CACHE_CONFIG = "vllm:cache_config_info"


def kv_capacity_tokens(run: Run) -> int | None:
    """The KV cache's capacity in tokens, num_gpu_blocks × block_size of vLLM's info gauge.

    vLLM reports its cache configuration as the labels of ``vllm:cache_config_info`` (value 1);
    the first snapshot that carries it answers. None when the server does not report it.
    """
    for snap in read_snapshots(run):
        for sample in snap.get("samples") or []:
            if sample.get("name") != _CACHE_CONFIG:
                continue
            labels = sample.get("labels") or {}
            try:
                return int(labels["num_gpu_blocks"]) * int(labels["block_size"])
            except (KeyError, TypeError, ValueError):
                continue
    return None
