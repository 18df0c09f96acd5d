"""Throughput seen four ways, for any run (the single-Spark notes' method): aggregate against
per stream, run-to-run agreement, prefill per prompt size, distinct against identical prompts.

* Aggregate vs per-stream throughput, every level: aggregate = Σ output tokens / level wall time
  (``measured_total_tps``), per-stream = mean of the requests' tps; aggregate / C beside them.
* Run-to-run agreement: a label run more than once (several run directories with one label);
  per level and metric, each run's value and the spread (max − min) / mean × 100.
* Prefill probe (runs of the ``WORKLOAD_PREFILL`` workload): per prompt size, the
  prompt tokens, prefill tok/s = prompt_tokens / prefill time of every measured (cold) request,
  their agreement and the cached tokens the server reported (0 when the probe is honest).
* Distinct vs identical prompts: labels whose manifests agree on workload, max_tokens, variant,
  TP, model, simulator setup and metadata and differ only in ``workload.identical_prompts`` are
  paired; aggregate and per-stream throughput of both side by side, with how much the identical
  run overstates them.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from analysis.reading.load import Dataset
from analysis.views.tables import Table, slug
from sparkload.records import WORKLOAD_PREFILL


def prefill_labels(dataset: Dataset) -> list[str]:
    """Labels of prefill probes (one-token requests, reported per prompt size), in input order."""
    return list(
        dict.fromkeys(r.label for r in dataset.runs if r.manifest.workload_name == WORKLOAD_PREFILL)
    )


# ----- aggregate vs per-stream ------------------------------------------------------------------
def aggregate_vs_per_stream(summary: pd.DataFrame, server: pd.DataFrame, label: str) -> Table:
    rows = summary[summary["label"] == label].sort_values("concurrency")
    frame = pd.DataFrame(
        {
            "Concurrency": rows["concurrency"].to_numpy(),
            "n": rows["n"].to_numpy(),
            "Aggregate tok/s": rows["measured_total_tps"].to_numpy(),
            "Per-stream tok/s": rows["tps_mean"].to_numpy(),
            "Aggregate / C": (rows["measured_total_tps"] / rows["concurrency"]).to_numpy(),
            "Mean output tokens": rows["output_tokens_mean"].to_numpy(),
        }
    )
    formats = {
        "Aggregate tok/s": "{:.2f}",
        "Per-stream tok/s": "{:.2f}",
        "Aggregate / C": "{:.2f}",
        "Mean output tokens": "{:.0f}",
    }
    if not server.empty and "gen_tok_s" in server:
        gen = server[server["label"] == label].set_index("concurrency")["gen_tok_s"]
        frame["Server generation tok/s"] = [gen.get(c, np.nan) for c in frame["Concurrency"]]
        formats["Server generation tok/s"] = "{:.2f}"
    return Table(
        f"{slug(label)}_aggregate_per_stream",
        f"{label}: aggregate vs per-stream throughput",
        frame,
        formats,
    )


# ----- run-to-run agreement ---------------------------------------------------------------------
AGREEMENT_METRICS = (
    ("aggregate", "Aggregate tok/s"),
    ("tps", "Per-stream tok/s"),
    ("ttft_ms", "TTFT ms"),
    ("itl_ms", "ITL ms"),
)


def per_run_levels(records: pd.DataFrame) -> pd.DataFrame:
    """Per (label, run, concurrency): the agreement metrics from that run's measured requests."""
    if records.empty or "measure" not in records:
        return pd.DataFrame()  # Locust CSV input: no raw records
    measured = records[records["measure"].to_numpy() & records["ok"].to_numpy()]
    if measured.empty:
        return pd.DataFrame()
    end = measured["start_time"] + measured["latency"].fillna(0.0)
    frame = pd.DataFrame(
        {
            "label": measured["label"].astype(str),
            "run": measured["run"],
            "concurrency": measured["level"],
            "start": measured["start_time"],
            "end": end,
            "tokens": measured["output_tokens"],
            "tps": measured["tps"],
            "ttft_ms": measured["ttft"] * 1000,
            "itl_ms": measured["itl"] * 1000,
        }
    )
    grouped = frame.groupby(["label", "run", "concurrency"], sort=False)
    out = grouped.agg(
        start=("start", "min"),
        end=("end", "max"),
        tokens=("tokens", "sum"),
        tps=("tps", "mean"),
        ttft_ms=("ttft_ms", "mean"),
        itl_ms=("itl_ms", "mean"),
    )
    out["aggregate"] = out["tokens"] / (out["end"] - out["start"])
    return out.reset_index()


def spread_pct(values) -> float:
    """(max − min) / mean × 100 over the finite values; NaN with fewer than two."""
    values = np.array([v for v in values if v is not None and np.isfinite(v)], dtype=float)
    if len(values) < 2 or values.mean() == 0:
        return np.nan
    return float((values.max() - values.min()) / values.mean() * 100.0)


def agreement(levels: pd.DataFrame, label: str) -> Table | None:
    """One row per level and metric: each run's value and the spread in % (None: one run only),
    from ``per_run_levels``."""
    if levels.empty:
        return None
    rows = levels[levels["label"] == label]
    runs = list(dict.fromkeys(rows["run"]))
    if len(runs) < 2:
        return None
    out = []
    for c, level in rows.groupby("concurrency", sort=True):
        by_run = level.set_index("run")
        for column, title in AGREEMENT_METRICS:
            values = [by_run[column].get(r, np.nan) for r in runs]
            out.append(
                {
                    "Concurrency": c,
                    "Metric": title,
                    **{f"Run {i}": v for i, v in enumerate(values, start=1)},
                    "Agreement (spread %)": spread_pct(values),
                }
            )
    frame = pd.DataFrame(out)
    formats = {f"Run {i}": "{:.2f}" for i in range(1, len(runs) + 1)}
    formats["Agreement (spread %)"] = "{:.2f}%"
    return Table(
        f"{slug(label)}_agreement",
        f"{label}: run-to-run agreement ({len(runs)} runs)",
        frame,
        formats,
        note="Spread = (max − min) / mean × 100 of the runs' values; 0 % = identical.",
    )


# ----- prefill probe ----------------------------------------------------------------------------
def prefill_rows(records: pd.DataFrame, label: str) -> pd.DataFrame:
    """One row per measured request of a prefill label (times already simulated by the loader)."""
    if records.empty or "measure" not in records:
        return pd.DataFrame()
    rows = records[records["measure"].to_numpy() & (records["label"] == label).to_numpy()]
    seconds = rows["extra_prefill_s"]
    ok = rows["ok"] & (seconds > 0)
    return pd.DataFrame(
        {
            "size": rows["extra_target_tokens"],
            "run": rows["run"],
            "start": rows["start_time"],
            "ok": ok,
            "identical": rows["extra_identical"] == 1,
            "prompt_tokens": rows["prompt_tokens"],
            "cached_tokens": rows["cached_tokens"].fillna(0),
            "tok_s": (rows["prompt_tokens"] / seconds).where(ok & (rows["prompt_tokens"] > 0)),
        }
    ).sort_values(["size", "run", "start"])


def prefill_table(records: pd.DataFrame, label: str) -> Table | None:
    rows = prefill_rows(records, label).dropna(subset=["size"])
    if rows.empty:
        return None
    most = int(rows.groupby("size").size().max())
    out = []
    for size, cell in rows.groupby("size", sort=True):
        good = cell[cell["ok"]]
        speeds = list(good["tok_s"])
        row = {
            "Prompt (target tokens)": f"~{int(size):,}",
            "Prompt tokens": good["prompt_tokens"].mean(),
            **{
                f"Run {i} tok/s": speeds[i - 1] if i <= len(speeds) else np.nan
                for i in range(1, most + 1)
            },
            "Mean tok/s": float(np.mean(speeds)) if speeds else np.nan,
            "Agreement (spread %)": spread_pct(speeds),
            "Cached tokens (max)": int(cell["cached_tokens"].max()),
            "Failed": int((~cell["ok"]).sum()),
        }
        out.append(row)
    frame = pd.DataFrame(out)
    formats = {
        "Prompt tokens": "{:,.0f}",
        "Mean tok/s": "{:,.1f}",
        "Agreement (spread %)": "{:.2f}%",
        **{f"Run {i} tok/s": "{:,.1f}" for i in range(1, most + 1)},
    }
    identical = bool(rows["identical"].any())
    note = (
        "Prefill tok/s = prompt tokens / prefill time (TTFT; the end of the stream when the one "
        "output token was not visible), one measured cold request per run, after one warm-up per "
        "size. Cached tokens (usage.prompt_tokens_details.cached_tokens) must be 0 for a cold "
        "probe."
    )
    if identical:
        note += (
            " **This run used --identical-prompts: the prefix cache served it; not a cold probe.**"
        )
    return Table(
        f"{slug(label)}_prefill",
        f"{label}: prefill throughput per prompt size",
        frame,
        formats,
        note=note,
    )


# ----- distinct vs identical prompts ------------------------------------------------------------
def _label_kinds(dataset: Dataset) -> dict[str, tuple[tuple, set[bool]]]:
    kinds: dict[str, tuple[tuple, set[bool]]] = {}
    for run in dataset.runs:
        if run.open_loop:  # its levels are offered rates: nothing to pair by concurrency
            continue
        manifest = run.manifest
        key = (manifest.workload_name, manifest.variant, run.tp, manifest.model, _deployment(run))
        flags = kinds.setdefault(run.label, (key, set()))[1]
        flags.add(bool(manifest.workload.identical_prompts))
    return kinds


def _deployment(run) -> str:
    """What else must agree for a fair pair: output length, simulator setup, the user's metadata
    (the time scale may differ: figures are in simulated time)."""
    manifest = run.manifest
    written = manifest.simulator.to_dict() if manifest.simulator is not None else {}
    simulator = {k: v for k, v in written.items() if k != "time_scale"}
    return repr(
        (manifest.workload.max_tokens, sorted(simulator.items()), sorted(manifest.metadata.items()))
    )


def contrast_pairs(dataset: Dataset) -> tuple[list[tuple[str, str]], list[str]]:
    """(distinct label, identical label) pairs, and labels that mix both kinds (a warning)."""
    kinds = _label_kinds(dataset)
    mixed = [label for label, (_, flags) in kinds.items() if len(flags) > 1]
    pairs = []
    for distinct, (key, flags) in kinds.items():
        if flags != {False}:
            continue
        for identical, (other_key, other_flags) in kinds.items():
            if other_flags == {True} and other_key == key and key[0] != WORKLOAD_PREFILL:
                pairs.append((distinct, identical))
    return pairs, mixed


def contrast_table(summary: pd.DataFrame, distinct: str, identical: str) -> Table:
    a = summary[summary["label"] == distinct].set_index("concurrency")
    b = summary[summary["label"] == identical].set_index("concurrency")
    levels = sorted(set(a.index) & set(b.index))
    frame = pd.DataFrame({"Concurrency": levels})
    frame["Aggregate, distinct"] = [a.at[c, "measured_total_tps"] for c in levels]
    frame["Aggregate, identical"] = [b.at[c, "measured_total_tps"] for c in levels]
    frame["Overstated by"] = (
        frame["Aggregate, identical"] / frame["Aggregate, distinct"] - 1
    ) * 100
    frame["Per stream, distinct"] = [a.at[c, "tps_mean"] for c in levels]
    frame["Per stream, identical"] = [b.at[c, "tps_mean"] for c in levels]
    frame["Cached prompt, distinct"] = [a.at[c, "cached_prompt_pct"] for c in levels]
    frame["Cached prompt, identical"] = [b.at[c, "cached_prompt_pct"] for c in levels]
    formats = {column: "{:.2f}" for column in frame.columns if column != "Concurrency"}
    formats["Overstated by"] = "{:+.1f}%"
    formats["Cached prompt, distinct"] = formats["Cached prompt, identical"] = "{:.1f}%"
    return Table(
        f"{slug(distinct)}_vs_{slug(identical)}",
        f"Distinct ({distinct}) vs identical ({identical}) prompts",
        frame,
        formats,
        note="Aggregate = Σ output tokens / level wall time (tok/s); per stream = mean request "
        "tok/s. Overstated by = identical / distinct − 1.",
    )
