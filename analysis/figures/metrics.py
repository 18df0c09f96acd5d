"""The one place that defines every per-level metric (DESIGN section 2).

A closed-loop level is known by its concurrency C, an open-loop level (``mode == "arrival"``)
by its offered rate (``offered_rps``); summary.csv's ``loop`` column says which. Per level, over
measured requests only (warm-up excluded):
  n                    ok measured requests; ``failures`` counts the rest, which are not used
  mean/p50/p90/p99     of ttft (ms), itl (ms), tps (tok/s), latency (s), with bootstrap CIs
  throughput_rps       n / Σ latency = 1 / mean latency   (the reference tool's per-stream RPS)
  system_rps           C / mean latency                   (report section 5.5)
  measured_rps         n / level wall time, wall time = max(start + latency) − min(start)
  total_tps            mean tps × C                       (report section 6.1)
  measured_total_tps   Σ output tokens / level wall time
  saturation_pct       mean tps(C) / mean tps(lowest C of the label) × 100   (section 6.2)

Open loop: C is only the size of the client pool, so throughput_rps, system_rps, total_tps and
saturation_pct are left empty; measured_rps and measured_total_tps are the achieved rates, and
  inflight_mean/peak   requests in flight: time mean and maximum of a sweep over the level's
                       start and end events (start, start + latency) of measured requests
  send_lateness_ms     p50/p99 of queue_wait (due → sent) of measured requests

  arrival_cv           coefficient of variation (sd / mean) of the gaps between the scheduled
                       times of the level's requests, all sent or not: 1 for Poisson arrivals,
                       0 for constant ones, 1/√B for gamma of shape B (the manifest's whole
                       schedule where it has one: a level stopped early sent only its start)
  scheduled            arrivals in the level's whole schedule (the manifest's), sent or not

A thinking model's and an agent's figures (only where some record has reasoning or tool calls:
a plain run's summary keeps its columns as they were; ``THINKING_COLUMNS``), over ok measured
requests that report them (older records lack them: they read as missing):
  ttfo_ms              time to first output token: the first content or tool-call chunk,
                       reasoning excluded (mean/p50/p90/p99, CIs), TTFT's companion
  no_answer            requests that reasoned until max_tokens (finish "length") without a
                       first output token ("no answer within max_tokens"); not in ttfo_ms.
                       A reply that stopped of itself with no output is not one
  reasoning_tokens     per request (mean/p50/p90/p99), and ``reasoning_counted_by`` (the
                       server's usage, or its chunks: a lower bound with MTP); answer_tokens
                       = output − reasoning tokens, likewise
  reasoning_pct        Σ reasoning tokens / Σ output tokens × 100, of requests that report both
  reasoning_tps, answer_tps   decode rates (``RequestRecord.derive``: the reasoning's from TTFT,
                       the answer's from TTFO), mean/p50/p90/p99
  tool_calls           tool calls streamed in the level; tool_call_requests, requests with one
                       or more; tool_args_ms (mean/p50/p90/p99): send → the last tool-call
                       delta, when the last call's arguments were complete
  tool_args_valid_pct  share of requests with tool calls whose every call's arguments parse as
                       a JSON object, of those that finished (truncated ones left out)
  tool_args_truncated  requests whose tool calls were cut by max_tokens (finish "length"):
                       truncated, counted apart, never valid (``truncated_calls``)

Column groups only where some record carries their field: embeddings' (``figures/inputs.py``;
a level that generated nothing has no output sum, NaN not 0), the server's own figures (vLLM's
per-request queue, TTFT, generation, ITL, TPS, acceptance length and rate: ``SERVER_COLUMNS``;
the TTFT split and drafts' tables are ``figures/server_timing.py``'s), structured output's
(``figures/structured.py``) and images' (``figures/images.py``).
Per-request itl/tps come from the records (``RequestRecord.derive``) and are never recomputed.
Extra columns beside them: p99s, bootstrap CIs, decode tok/s, chunk ITL (vLLM's per-chunk gap,
per step rather than per token with MTP), the lengths achieved (prompt tokens by the server's
usage: mean, standard deviation, percentiles, min, max; output tokens' deviation and
percentiles), the share of prompt tokens served from cache (``cached_prompt_pct``: usage
cached_tokens / prompt_tokens) and the share a cache that keeps everything would serve
(``expected_cached_pct``: Σ expected cached tokens / Σ prompt tokens, of requests whose prompts
share text by design: shared prefixes, trace blocks). Several runs of one label pool their
requests, as do a scenario's phases of one C: each level's wall time is counted apart, added up.
"""

from __future__ import annotations

import zlib
from dataclasses import dataclass

import numpy as np
import pandas as pd

from analysis import allocator
from analysis.figures import images as im
from analysis.figures import inputs, level_counts, percentiles
from analysis.figures import structured as st
from analysis.figures.measured import FloatColumns, group_positions, measured_ok_of
from analysis.figures.replies import no_answer, truncated_calls
from analysis.reading.load import Dataset, describe_level
from analysis.reading.manifest_levels import (
    FLAG_KINDS,
    level_flags,
    level_schedules,
    saturation_stops,
)
from sparkload.records import QUANTILES, REQUEST_METRICS, RequestMetric

# The per-request metrics of the summary (``RequestMetric.summary``, each declared once in
# ``sparkload/records/metrics.py``): the contract's, then a thinking model's and an agent's (the
# summary has those only where some record has reasoning or tool calls: ``has_thinking``).
METRICS = tuple(m for m in REQUEST_METRICS if m.summary and not (m.thinking or m.server))
THINKING_METRICS = tuple(m for m in REQUEST_METRICS if m.summary and m.thinking)
# the server's own figures (vLLM's per-request metrics): only where some record carries them
SERVER_METRICS = tuple(m for m in REQUEST_METRICS if m.summary and m.server)
METRIC_BY_FIELD = {m.field: m for m in (*METRICS, *THINKING_METRICS, *SERVER_METRICS)}
TTFO = METRIC_BY_FIELD["ttfo"]
OPEN_LOOP_COLUMNS = [
    "inflight_mean",
    "inflight_peak",
    "send_lateness_ms_p50",
    "send_lateness_ms_p99",
]
LENGTH_COLUMNS = [
    *(f"prompt_tokens_{s}" for s in ("mean", "sd", "p50", "p90", "p99", "min", "max")),
    *(f"output_tokens_{s}" for s in ("sd", "p50", "p90", "p99")),
]

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
    "loop",  # closed | open; the columns above are the original contract, in its order
    "offered_rps",
    *OPEN_LOOP_COLUMNS,
]
EXTRA_COLUMNS = [
    "client_flags",
    "stream_flags",
    "stream_flag_kinds",
    "saturation",
    "saturation_stop",
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
    "expected_cached_pct",
    *LENGTH_COLUMNS,
    "arrival_cv",
    "scheduled",
    "time_scale",
    "runs",
    "incomplete",
]


THINKING_COLUMNS = [
    *(
        f"{m.column}_{s}"
        for m in THINKING_METRICS
        for s in (
            "mean",
            "p50",
            "p90",
            "p99",
            *(("p50_ci_low", "p50_ci_high", "p90_ci_low", "p90_ci_high") if m.intervals else ()),
        )
    ),
    "no_answer",
    "reasoning_counted_by",
    "reasoning_pct",
    "tool_calls",
    "tool_call_requests",
    "tool_args_valid_pct",
    "tool_args_truncated",
]


SERVER_COLUMNS = [f"{m.column}_{s}" for m in SERVER_METRICS for s in ("mean", "p50", "p90", "p99")]


def has_server_figures(records: pd.DataFrame) -> bool:
    """Whether some record carries the server's own per-request figures."""
    return any(m.field in records and bool(records[m.field].notna().any()) for m in SERVER_METRICS)


def has_thinking(records: pd.DataFrame) -> bool:
    """Whether some record has reasoning or tool calls (a thinking model's, an agent's run)."""
    # asked of the column itself: a sparse one answers without 80 MB of NaN made dense at 10M
    return any(
        name in records and bool((records[name] > 0).any())
        for name in ("reasoning_tokens", "tool_calls")
    )


@dataclass(frozen=True)
class Settings:
    """How the per-level numbers are computed."""

    percentile_method: str = percentiles.LINEAR
    itl_null_as_zero: bool = False
    bootstrap_resamples: int = 1000
    seed: int = 0


@dataclass(frozen=True)
class Loop:
    """How the levels of one kind of run are told apart."""

    name: str  # summary.csv's ``loop``
    record_key: str  # the records' column naming a level
    summary_key: str  # the summary's column naming it


CLOSED = Loop("closed", "level", "concurrency")
OPEN = Loop("open", "offered_rps", "offered_rps")
LOOPS = (CLOSED, OPEN)


def loop_records(records: pd.DataFrame, loop: Loop) -> pd.DataFrame:
    """The records of one loop's runs: open loop are those with an offered rate."""
    if "offered_rps" not in records:  # no raw records (Locust CSV input)
        return records if loop is CLOSED else records.iloc[0:0]
    keep = records["offered_rps"].notna().to_numpy() == (loop is OPEN)
    return records if keep.all() else records[keep]


def loop_levels(summary: pd.DataFrame, loop: Loop) -> pd.DataFrame:
    """The summary rows of one loop; closed-loop rows with their concurrency as plain ints."""
    rows = summary[summary["loop"] == loop.name].reset_index(drop=True)
    return rows.astype({"concurrency": np.int64}) if loop is CLOSED else rows


def level_keys(levels: pd.DataFrame) -> np.ndarray:
    """What each summary row's level is known by: its C, or its offered rate (open loop)."""
    closed = (levels["loop"] == CLOSED.name).to_numpy()
    return np.where(
        closed, levels["concurrency"].to_numpy(float, na_value=np.nan), levels["offered_rps"]
    )


def level_name(row: pd.Series) -> str:
    """A summary row's level as messages name it ("C=4", "offered 150 req/s")."""
    if row["loop"] == CLOSED.name:
        return describe_level(int(row["concurrency"]), None)
    return describe_level(None, float(row["offered_rps"]))


def _group_rng(settings: Settings, label: str, key: float) -> np.random.Generator:
    """A generator seeded by the label and level, so results do not depend on input order."""
    level = int(key) if float(key).is_integer() else zlib.crc32(repr(float(key)).encode())
    return np.random.default_rng([settings.seed, zlib.crc32(label.encode()), level])


def _distribution_stats(values: np.ndarray, metric: RequestMetric, settings: Settings, rng) -> dict:
    values = np.sort(values[np.isfinite(values)]) * metric.factor
    out = {f"{metric.column}_mean": float(values.mean()) if len(values) else np.nan}
    for name, q in QUANTILES.items():
        out[f"{metric.column}_{name}"] = percentiles.quantile(values, q, settings.percentile_method)
    for name in ("p50", "p90") if metric.intervals else ():
        low, high = percentiles.bootstrap_ci(
            values, QUANTILES[name], settings.percentile_method, rng, settings.bootstrap_resamples
        )
        out[f"{metric.column}_{name}_ci_low"], out[f"{metric.column}_{name}_ci_high"] = low, high
    return out


def _nanmean(values: np.ndarray) -> float:
    return float(np.nanmean(values)) if np.isfinite(values).any() else np.nan


def level_stats(records: pd.DataFrame, settings: Settings, loop: Loop) -> pd.DataFrame:
    """Base statistics per (label, level) of one loop's records."""
    if records.empty or "level" not in records:
        return pd.DataFrame()
    groups = group_positions(records, ["label", loop.record_key])
    counts = level_counts.counts(records, loop.record_key, loop.summary_key, groups)
    answered = measured_ok_of(records, groups)
    del groups  # every record's position: 40 MB at 10,000,000 records, not needed past here
    thinking, structured = has_thinking(records), st.has_structured(records)
    pictured = im.has_images(records)
    served, batched = has_server_figures(records), inputs.has_inputs(records)
    column = FloatColumns(records, settings.itl_null_as_zero)
    rows = []
    for (label, key), index in answered.items():
        rng = _group_rng(settings, str(label), key)
        row = {
            "label": label,
            loop.summary_key: int(key) if loop is CLOSED else float(key),
            "itl_n": int(np.isfinite(column["itl"][index]).sum()),
        }
        for metric in METRICS:
            row.update(_distribution_stats(column[metric.field][index], metric, settings, rng))
        tokens = column["output_tokens"][index]
        row["output_tokens_sum"] = float(np.nansum(tokens)) if np.isfinite(tokens).any() else np.nan
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
        expected = column["expected_cached_tokens"][index]
        by_design = np.isfinite(prompt) & np.isfinite(expected)
        row["expected_cached_pct"] = (
            expected[by_design].sum() / prompt[by_design].sum() * 100
            if prompt[by_design].sum()
            else np.nan
        )
        row.update(length_stats(prompt, tokens, settings))
        if batched:
            row.update(inputs.input_sums(column["inputs"][index], prompt))
        if thinking:
            row.update(thinking_stats(records.iloc[index], column, index, settings, rng))
        if structured:
            row.update(st.structured_stats(records["structured"].iloc[index], records.iloc[index]))
        if pictured:
            row.update(im.level_sums(column["images"][index], column["image_bytes"][index]))
        for metric in SERVER_METRICS if served else ():
            row.update(_distribution_stats(column[metric.field][index], metric, settings, rng))
        rows.append(row)
        allocator.give_back()  # the level's temporaries, some fifty arrays of its size
    by_level = ["label", loop.summary_key]
    # where every measured request failed there are no rows: the levels keep their counts
    stats = pd.DataFrame(rows) if rows else pd.DataFrame(columns=by_level)
    frame = counts.join(stats.set_index(by_level), how="left")
    if loop is OPEN:
        frame = frame.join(open_loop_stats(records, settings), how="left")
    frame = frame.reset_index()
    frame["label"] = frame["label"].astype(str)
    frame["loop"] = loop.name
    frame["percentile_method"] = settings.percentile_method
    frame["source"] = "records"
    return frame


def thinking_stats(
    ok: pd.DataFrame, column: dict[str, np.ndarray], index: np.ndarray, settings: Settings, rng
) -> dict:
    """A level's thinking-model and tool-call figures (the module docstring's), from its ok
    requests (``ok``, and their float columns at ``index``); drawn from ``rng`` after the
    contract metrics, so their confidence intervals do not move."""
    row: dict = {}
    for metric in THINKING_METRICS:
        row.update(_distribution_stats(column[metric.field][index], metric, settings, rng))
    row["no_answer"] = int(no_answer(ok).sum())
    counted = set(ok["reasoning_counted_by"].astype(str)) - {"", "nan"}
    row["reasoning_counted_by"] = "/".join(sorted(counted)) or None
    reasoning, output = column["reasoning_tokens"][index], column["output_tokens"][index]
    both = np.isfinite(reasoning) & np.isfinite(output)
    total = output[both].sum()
    row["reasoning_pct"] = reasoning[both].sum() / total * 100 if total else np.nan
    calls = column["tool_calls"][index]
    with_calls = np.isfinite(calls) & (calls > 0)
    row["tool_calls"] = int(calls[with_calls].sum())
    row["tool_call_requests"] = int(with_calls.sum())
    cut = truncated_calls(ok)
    row["tool_args_truncated"] = int(cut.sum())
    valid = column["tool_args_valid"][index][with_calls & ~cut]
    valid = valid[np.isfinite(valid)]
    row["tool_args_valid_pct"] = float(valid.mean() * 100) if len(valid) else np.nan
    return row


@dataclass(frozen=True)
class InFlight:
    """Requests in flight during one run's level, from a sweep over their start and end events."""

    request_seconds: float  # the integral of the in-flight count over time
    wall_s: float  # first start to last end
    peak: int


def in_flight(starts: np.ndarray, ends: np.ndarray) -> InFlight:
    """Sweep the sorted events (+1 at a start, −1 at an end; at one instant ends first, so a
    request that ends as another starts does not overlap it) and integrate the count."""
    times = np.concatenate([starts, ends])
    steps = np.concatenate([np.ones(len(starts)), -np.ones(len(ends))])
    order = np.lexsort((steps, times))
    times, count = times[order], np.cumsum(steps[order])
    return InFlight(
        float(np.sum(count[:-1] * np.diff(times))), float(times[-1] - times[0]), int(count.max())
    )


def length_stats(prompt: np.ndarray, output: np.ndarray, settings: Settings) -> dict:
    """The lengths a level achieved: prompt tokens (mean, sd, p50/p90/p99, min, max) and output
    tokens (sd, p50/p90/p99), over the requests that report them."""
    out: dict[str, float] = {}
    for stem, values, stats in (
        ("prompt_tokens", prompt, ("mean", "sd", "p50", "p90", "p99", "min", "max")),
        ("output_tokens", output, ("sd", "p50", "p90", "p99")),
    ):
        ordered = np.sort(values[np.isfinite(values)])
        figures = {
            "mean": float(ordered.mean()) if len(ordered) else np.nan,
            "sd": float(ordered.std()) if len(ordered) else np.nan,
            "min": float(ordered[0]) if len(ordered) else np.nan,
            "max": float(ordered[-1]) if len(ordered) else np.nan,
            **{
                name: percentiles.quantile(ordered, q, settings.percentile_method)
                for name, q in QUANTILES.items()
            },
        }
        out.update({f"{stem}_{name}": figures[name] for name in stats})
    return out


def open_loop_stats(records: pd.DataFrame, settings: Settings) -> pd.DataFrame:
    """Per (label, offered rate), over measured requests (failures included: they were sent):
    the in-flight requests the arrivals reached, pooled over runs (mean = Σ integrals / Σ walls),
    and the send lateness: how long a due request waited for a free client."""
    measured = records[records["measure"].to_numpy()]
    starts = measured["start_time"].to_numpy()
    ends = starts + np.nan_to_num(measured["latency"].to_numpy())
    lateness_ms = measured["queue_wait"].to_numpy() * 1000.0
    scheduled = measured["scheduled_time"].to_numpy()
    per_run: dict[tuple, list[np.ndarray]] = {}
    for (label, rate, _), index in measured.groupby(
        ["label", "offered_rps", "run"], observed=True
    ).indices.items():
        per_run.setdefault((label, rate), []).append(index)
    rows = []
    for (label, rate), runs in per_run.items():
        sweeps = [in_flight(starts[index], ends[index]) for index in runs]
        wall = sum(s.wall_s for s in sweeps)
        late = lateness_ms[np.concatenate(runs)]
        late = np.sort(late[np.isfinite(late)])
        # gaps within each run (a run's schedule is its own), pooled: sd / mean over all gaps
        gaps = np.concatenate([np.diff(np.sort(scheduled[index])) for index in runs])
        gaps = gaps[np.isfinite(gaps)]
        rows.append(
            [
                label,
                rate,
                sum(s.request_seconds for s in sweeps) / wall if wall else np.nan,
                max(s.peak for s in sweeps),
                *(percentiles.quantile(late, q, settings.percentile_method) for q in (0.5, 0.99)),
                float(gaps.std() / gaps.mean()) if len(gaps) > 1 and gaps.mean() > 0 else np.nan,
            ]
        )
    by_level = ["label", "offered_rps"]
    columns = [*by_level, *OPEN_LOOP_COLUMNS, "arrival_cv"]
    return pd.DataFrame(rows, columns=columns).set_index(by_level)


def add_rates(levels: pd.DataFrame) -> pd.DataFrame:
    """The derived per-level rates: every formula of the module docstring lives here."""
    out = levels.copy()
    closed = out["loop"] == CLOSED.name
    c = out["concurrency"].astype(float).where(closed)
    mean_latency = out["latency_s_mean"]
    out["throughput_rps"] = (1.0 / mean_latency).where(closed)
    out["system_rps"] = c / mean_latency
    out["measured_rps"] = out["n"] / out["wall_s"]
    out["total_tps"] = out["tps_mean"] * c
    out["measured_total_tps"] = out["output_tokens_sum"] / out["wall_s"]
    first = (
        out[closed].sort_values("concurrency").groupby("label", sort=False)["tps_mean"]
    ).transform("first")
    out["saturation_pct"] = out["tps_mean"] / first.reindex(out.index) * 100.0
    out["p90_few_samples"] = out["n"] < percentiles.FEW_SAMPLES_FOR_P90
    return out


WARM_CACHE_PCT = 50.0  # from this share of cached prompt tokens on, TTFT measures a warm cache


def summarize(dataset: Dataset, settings: Settings) -> pd.DataFrame:
    """summary.csv: one row per (label, level), closed-loop levels by C, open-loop levels by
    offered rate, the contract columns first."""
    parts = [level_stats(loop_records(dataset.records, loop), settings, loop) for loop in LOOPS]
    if not dataset.csv_levels.empty:
        parts.append(dataset.csv_levels.assign(loop=CLOSED.name))
    levels = pd.concat([part for part in parts if not part.empty], ignore_index=True)
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
    # each row's level as the manifests name it: (label, C or offered rate)
    named = list(zip(levels["label"], level_keys(levels), strict=True))
    for kind in FLAG_KINDS:
        flagged = level_flags(dataset, kind)
        levels[kind] = ["; ".join(flagged.get(level, [])) for level in named]
    stops = saturation_stops(dataset)
    levels["saturation_stop"] = [level in stops for level in named]
    kinds = level_flags(dataset, "stream_flag_kinds")
    # each kind once over repeated runs
    levels["stream_flag_kinds"] = [" ".join(dict.fromkeys(kinds.get(level, []))) for level in named]
    schedules = level_schedules(dataset)
    found = [schedules.get(level, []) for level in named]
    levels["scheduled"] = [sum(s.arrivals for s in runs) if runs else np.nan for runs in found]
    whole_cv = [
        float(np.mean(cvs)) if (cvs := [s.gap_cv for s in runs if s.gap_cv is not None]) else np.nan
        for runs in found
    ]
    levels["arrival_cv"] = levels["arrival_cv"].where(np.isnan(whole_cv), whole_cv)
    for column in ("concurrency", "tp", "nodes"):
        levels[column] = levels[column].astype("Int64")
    levels = add_rates(levels)
    order = {label: i for i, label in enumerate(dataset.labels)}
    levels = levels.sort_values(
        ["label", "concurrency", "offered_rps"],
        key=lambda s: s.map(order) if s.name == "label" else s,
    )
    for column in ("n", "failures", "warmup_excluded", "runs", "itl_n"):
        levels[column] = levels[column].fillna(0).astype(int)
    columns = SUMMARY_COLUMNS + EXTRA_COLUMNS
    if has_thinking(dataset.records):  # else a plain run's summary is as it always was
        for column in THINKING_COLUMNS:
            if column not in levels:
                levels[column] = np.nan
        for column in ("no_answer", "tool_calls", "tool_call_requests", "tool_args_truncated"):
            levels[column] = levels[column].astype("Int64")
        columns = columns + THINKING_COLUMNS
    if inputs.has_inputs(dataset.records):  # an embeddings run's (analysis/figures/inputs.py)
        levels = inputs.add_input_rates(levels)
        columns = columns + inputs.COLUMNS
    if has_server_figures(dataset.records):  # else a summary without them, as it was
        levels = levels.reindex(
            columns=[*levels.columns.difference(SERVER_COLUMNS), *SERVER_COLUMNS]
        )
        columns = columns + SERVER_COLUMNS
    if st.has_structured(dataset.records):  # --response-format (analysis/figures/structured.py)
        levels = levels.reindex(columns=[*levels.columns.difference(st.COLUMNS), *st.COLUMNS])
        levels[st.COUNT_COLUMNS] = levels[st.COUNT_COLUMNS].astype("Int64")
        columns = columns + st.COLUMNS
    if im.has_images(dataset.records):  # --images, a dataset's images (analysis/figures/images.py)
        levels = im.add_rates(levels)
        columns = columns + im.COLUMNS
    return levels[columns].reset_index(drop=True)
