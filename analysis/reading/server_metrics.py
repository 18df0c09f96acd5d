"""Server-side figures per level from vLLM /metrics snapshots (server_metrics.jsonl).

Each level has a "start" and an "end" snapshot per endpoint (and "during" samples of the
gauges). Counters become deltas end − start, summed over label sets (engines, models) except
``position`` for per-position acceptance, and over endpoints. A ladder level also has a
"measure" snapshot, taken when its warm-up request came back (nothing in flight); deltas then
run from it, so they cover exactly the measured requests, not the spawn and the warm-up.

A level's window is its measured requests' own, first send to last end (``Window``, from the
records, on the snapshots' clock). Gauges are the mean (and max) of the mid-level samples taken
inside it, and only with ``MIN_GAUGE_SAMPLES`` of them an endpoint: a sample of the spawn, the
warm-up or the idle tail after the last answer (running 0, KV 0 %) is not the level's, and a
level with fewer samples has no gauge figures (the report says "too few samples"); the values
at the bounds are never used (a closed-loop level starts and ends idle). Derived:
  acceptance rate        accepted tokens / draft tokens
  tokens per pass        1 + accepted tokens / drafts (mean tokens a forward pass emits)
  acceptance at pos i    accepted at position i / drafts
  prefix-cache hit rate  hits / queries
  generation tok/s       Δ generation tokens / the window's seconds (simulated time) when the
                         window lies between the two snapshots (nothing was in flight outside
                         it, so every token of the Δ is in it); else / the snapshots' interval,
                         which also holds the load generator's time around the requests (the
                         scrapes, the shipping of records; x the time scale on a simulator)
  server TTFT / ITL      Δ histogram sum / Δ histogram count (ms)
Several runs of one label add their deltas before the ratios are taken. Only the target's own
endpoints count here; ``--scrape`` nodes (snapshots with a ``node`` but no ``endpoint``) are
read by ``analysis/reading/telemetry.py``.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np
import orjson
import pandas as pd

from analysis.reading.load import Dataset, Run
from analysis.reading.sustained import sustain_levels

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
# Mid-level samples inside a level's window below which its gauges (and a node's sampled
# figures, ``telemetry.py``) are not given: one or two looks at a level are not its mean
MIN_GAUGE_SAMPLES = 3
TOO_FEW_SAMPLES = "too few samples"  # what the report prints in place of such a figure


@dataclass(frozen=True)
class Window:
    """A level's measured requests, first send to last end, in wall-clock seconds on the clock
    the snapshots are timed by (the master's, which every record is put on): real time, so a
    simulator's node counts its seconds x the time scale."""

    start: float
    end: float

    def holds(self, time: float) -> bool:
        return self.start <= time <= self.end

    def within(self, start: float, end: float) -> bool:
        """The window lies between two snapshots (taken with nothing in flight around it)."""
        return start <= self.start and self.end <= end

    @property
    def seconds(self) -> float:
        return self.end - self.start


def measured_windows(records: pd.DataFrame, run: Run, run_index: int) -> dict[int, Window]:
    """Level index → the window of its measured requests, from the loaded records (simulated
    time since ``run.time_origin``); empty without records."""
    if records.empty or "level_index" not in records or not np.isfinite(run.time_origin):
        return {}
    mine = records[(records["run"] == run_index) & records["measure"]]
    ends = mine["start_time"] + mine["latency"].fillna(0.0)
    out = {}
    for index, level in mine.groupby("level_index"):
        first, last = float(level["start_time"].min()), float(ends[level.index].max())
        out[int(index)] = Window(
            run.time_origin + first / run.time_scale, run.time_origin + last / run.time_scale
        )
    return out


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


def read_snapshots(run: Run, sustained: bool = False) -> list[dict]:
    """Every whole snapshot of the run's server_metrics.jsonl, in file order: of its levels, or
    (``sustained``) of its --sustain level only, which the levels' figures leave out as they
    leave out its records (``sustained.py``)."""
    out: list[dict] = []
    path = run.server_metrics_path
    held = {index for _, index in sustain_levels([run.manifest])}
    for line in path.read_bytes().splitlines() if path is not None else ():
        try:
            snap = orjson.loads(line)
            index = int(snap["level_index"]), str(snap["when"]), float(snap["time"])
        except (orjson.JSONDecodeError, KeyError, TypeError, ValueError):
            continue  # a torn last line of a killed run
        if (index[0] in held) == sustained:
            out.append(snap)
    return out


def _level_deltas(run: Run, windows: Mapping[int, Window]) -> list[dict]:
    """One row per level of one run: counter deltas summed over endpoints, gauges per level.

    Gauges: the mean (and max) of the mid-level samples (``when="during"``) inside the level's
    window (``windows``), with at least ``MIN_GAUGE_SAMPLES`` an endpoint, else NaN;
    running/waiting add up over endpoints, KV usage is their mean. Level seconds: the window's
    when it lies between the first endpoint's start and end snapshots, else theirs.
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
            window = windows.get(index)
            if window is not None and window.holds(float(snap["time"])):
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
        span = float(first_start["time"]), float(first_end["time"])
        window = windows.get(index)
        seconds = window.seconds if window and window.within(*span) else span[1] - span[0]
        row = {
            "label": run.label,
            "concurrency": int(first_end.get("concurrency", 0)),
            "level_index": index,
            "seconds": seconds * run.time_scale,
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
        sampled = during.get(index, {})
        row.update(_gauges([sampled.get(e, []) for e in ends if e in starts]))
        rows.append(row)
    return rows


def _gauge(totals: dict, key: str) -> float:
    for name in _GAUGE_NAMES[key]:
        if name in totals:
            return totals[name]
    return np.nan


def _gauges(sampled: list[list[dict]]) -> dict:
    """running/waiting summed over endpoints, KV usage averaged; mean and max over each
    endpoint's samples (``sampled``: per endpoint, those inside the level's window), NaN when an
    endpoint has fewer than ``MIN_GAUGE_SAMPLES``; ``gauge_samples``: the fewest an endpoint has."""
    fewest = min((len(samples) for samples in sampled), default=0)
    out: dict[str, float] = {"gauge_samples": fewest}
    for key in _GAUGES:
        combine = np.nanmean if key == "kv_cache_usage_pct" else np.nansum
        values = [np.array([_gauge(t, key) for t in samples]) for samples in sampled]
        enough = fewest >= MIN_GAUGE_SAMPLES and all(np.isfinite(v).any() for v in values)
        out[key] = float(combine([np.nanmean(v) for v in values])) if enough else np.nan
        out[f"{key}_max"] = float(combine([np.nanmax(v) for v in values])) if enough else np.nan
    return out


def per_level(dataset: Dataset) -> pd.DataFrame:
    """Server figures per (label, concurrency) of the closed-loop runs; empty when no such run
    has server_metrics.jsonl."""
    rows = [
        row
        for run_index, run in enumerate(dataset.runs)
        if run.server_metrics_path and not run.open_loop
        for row in _level_deltas(run, measured_windows(dataset.records, run, run_index))
    ]
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
        for row in _level_deltas(run, {}):  # counters only: no window needed
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
