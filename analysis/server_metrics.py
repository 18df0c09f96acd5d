"""Server-side figures per level from vLLM /metrics snapshots (server_metrics.jsonl).

Each level has a "start" and an "end" snapshot. Counters become deltas end − start, summed over
label sets (engines, models) except ``position`` for per-position acceptance; gauges are read
at the end. Derived per level:
  acceptance rate        accepted tokens / draft tokens
  tokens per pass        1 + accepted tokens / drafts (mean tokens a forward pass emits)
  acceptance at pos i    accepted at position i / drafts
  prefix-cache hit rate  hits / queries
  generation tok/s       Δ generation tokens / (end.time − start.time), in simulated time
  server TTFT / ITL      Δ histogram sum / Δ histogram count (ms)
Several runs of one label add their deltas before the ratios are taken.
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
}
_GAUGES = {
    "running": "vllm:num_requests_running",
    "waiting": "vllm:num_requests_waiting",
    "kv_cache_usage_pct": "vllm:kv_cache_usage_perc",
}
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
    return totals


def _level_deltas(run: Run) -> list[dict]:
    snapshots: dict[tuple[int, str], dict] = {}
    for line in run.server_metrics_path.read_bytes().splitlines():
        try:
            snap = orjson.loads(line)
            snapshots[(int(snap["level_index"]), str(snap["when"]))] = snap
        except (orjson.JSONDecodeError, KeyError, TypeError, ValueError):
            continue  # a torn last line of a killed run
    rows = []
    for (index, when), end in snapshots.items():
        start = snapshots.get((index, "start"))
        if when != "end" or start is None:
            continue
        a, b = _totals(start.get("samples") or []), _totals(end.get("samples") or [])
        row = {
            "label": run.label,
            "concurrency": int(end.get("concurrency", 0)),
            "seconds": (float(end["time"]) - float(start["time"])) * run.time_scale,
        }
        for key, name in _COUNTERS.items():
            row[key] = b.get(name, np.nan) - a.get(name, 0.0)
        for name in b:
            if name.startswith("pos"):
                row[name] = b[name] - a.get(name, 0.0)
        for key, name in _GAUGES.items():
            row[key] = b.get(name, np.nan)
        rows.append(row)
    return rows


def per_level(runs: list[Run]) -> pd.DataFrame:
    """Server figures per (label, concurrency); empty when no run has server_metrics.jsonl."""
    rows = [row for run in runs if run.server_metrics_path for row in _level_deltas(run)]
    if not rows:
        return pd.DataFrame()
    raw = pd.DataFrame(rows)
    sums = raw.groupby(["label", "concurrency"], sort=False).sum(min_count=1)
    gauges = raw.groupby(["label", "concurrency"], sort=False)[list(_GAUGES)].mean()
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
    return out.replace([np.inf, -np.inf], np.nan).reset_index()
