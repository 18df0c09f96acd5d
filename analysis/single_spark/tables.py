"""The notes' tables, one function each (the notes' sections in brackets): (a) the quantization
gain, (b) draft depth, (c) the batch-budget control, (d) concurrency curves and distinct against
identical prompts, (e) prefill by prompt size, (f) FP8 against 4-bit, (g) the speed-up ladder.
Each returns None (or []) when its runs are missing: nothing is filled in."""

from __future__ import annotations

import numpy as np
import pandas as pd

from analysis.reading.load import Dataset
from analysis.single_spark.setups import (
    BUILD_NAMES,
    DEFAULT_WORD,
    TOK_S,
    Entry,
    Figures,
    Setup,
    builds_of,
    change,
    describe_spec,
    display,
    find,
    mean_of,
    runs_cell,
    spec_depth,
)
from analysis.views.tables import Table
from analysis.views.throughput_views import prefill_rows, spread_pct
from sparkload.records import WORKLOAD_EDIT, WORKLOAD_FRESH, WORKLOAD_PREFILL

HELD_SPEC = "dspark:7"  # the drafting the notes hold constant across builds (§1) and budgets (§3a)
WIDE_BUDGET = "16384"
PCT = "{:+.1f}%"


# ----- (a) quantization gain, (b) draft depth ----------------------------------------------------
def _single_stream_row(entries: list[Entry], figs: Figures, **setup) -> dict | None:
    """Fresh and edit single-stream figures of one setup; None when neither ran."""
    fresh = find(entries, True, workload=WORKLOAD_FRESH, identical=False, **setup)
    edit = find(entries, True, workload=WORKLOAD_EDIT, identical=False, **setup)
    if fresh is None and edit is None:
        return None
    fresh_runs = figs.runs(fresh.label) if fresh else []
    edit_runs = figs.runs(edit.label) if edit else []
    return {
        "fresh": runs_cell(fresh_runs),
        "edit": runs_cell(edit_runs),
        "fresh_mean": mean_of(fresh_runs),
        "edit_mean": mean_of(edit_runs),
        "accept_fresh": figs.server_value(fresh.label, "acceptance_rate") * 100
        if fresh
        else np.nan,
        "accept_edit": figs.server_value(edit.label, "acceptance_rate") * 100 if edit else np.nan,
        "per_pass": figs.server_value(edit.label, "tokens_per_pass") if edit else np.nan,
        "kv": next(
            (figs.kv_tokens[e.label] for e in (edit, fresh) if e and e.label in figs.kv_tokens),
            np.nan,
        ),
    }


def quantization_gain(entries: list[Entry], figs: Figures) -> Table | None:
    """Notes §1: each build at DSpark k=7, default budget; gain × over FP8 (needs two builds)."""
    rows = {
        build: row
        for build in builds_of(entries)
        if (
            row := _single_stream_row(
                entries,
                figs,
                build=build,
                spec=HELD_SPEC,
                budget=DEFAULT_WORD,
                prefix_caching=True,
            )
        )
    }
    if len(rows) < 2:
        return None
    fp8 = rows.get("fp8", {})
    frame = pd.DataFrame(
        {
            "Weights": [display(b) for b in rows],
            "Fresh gen tok/s": [r["fresh"] for r in rows.values()],
            "Edit-heavy tok/s": [r["edit"] for r in rows.values()],
            "Accept (fresh)": [r["accept_fresh"] for r in rows.values()],
            "Accept (edit)": [r["accept_edit"] for r in rows.values()],
            "Mean tok/pass (edit)": [r["per_pass"] for r in rows.values()],
            "KV tokens": [r["kv"] for r in rows.values()],
            "Fresh × vs FP8": [
                _ratio(r["fresh_mean"], fp8.get("fresh_mean")) for r in rows.values()
            ],
            "Edit × vs FP8": [_ratio(r["edit_mean"], fp8.get("edit_mean")) for r in rows.values()],
        }
    )
    kv_reported = frame["KV tokens"].notna().any()
    if not kv_reported:
        frame = frame.drop(columns="KV tokens")
    return Table(
        "notes_quantization_gain",
        f"Quantization gain, drafting held constant ({describe_spec(HELD_SPEC)}, "
        f"{DEFAULT_WORD} batch budget, C=1)",
        frame,
        {
            "Fresh gen tok/s": TOK_S,
            "Edit-heavy tok/s": TOK_S,
            "Accept (fresh)": "{:.1f}%",
            "Accept (edit)": "{:.1f}%",
            "Mean tok/pass (edit)": "{:.2f}",
            "KV tokens": "{:,.0f}",
            "Fresh × vs FP8": "{:.2f}×",
            "Edit × vs FP8": "{:.2f}×",
        },
        note="tok/s = per-request output tokens / latency at C=1, one value per run "
        '("run 1 / run 2"); gain × = mean over the runs / FP8\'s. Acceptance and tokens per pass: '
        "the server's spec-decode counters."
        + (
            ""
            if kv_reported
            else " KV tokens left out: the server reports no vllm:cache_config_info."
        ),
    )


def _ratio(value: float, base: float | None) -> float:
    return value / base if base and np.isfinite(base) and np.isfinite(value) else np.nan


def draft_depth(entries: list[Entry], figs: Figures, build: str) -> Table | None:
    """Notes §2: every DSpark depth of one build, single stream (needs two depths)."""
    setups = sorted(
        {
            (e.setup.spec, e.setup.budget)
            for e in entries
            if e.single_stream
            and e.setup.build == build
            and e.setup.spec.startswith("dspark:")
            and e.setup.prefix_caching
        },
        key=lambda s: (spec_depth(s[0]), s[1] != DEFAULT_WORD, s[1]),
    )
    if len({spec for spec, _ in setups}) < 2:
        return None
    rows = []
    for spec, budget in setups:
        row = _single_stream_row(
            entries, figs, build=build, spec=spec, budget=budget, prefix_caching=True
        )
        if row is not None:
            rows.append({"k": spec_depth(spec), "Batch budget": budget, **row})
    frame = pd.DataFrame(
        {
            "k": [r["k"] for r in rows],
            "Batch budget": [r["Batch budget"] for r in rows],
            "Fresh gen tok/s": [r["fresh"] for r in rows],
            "Edit-heavy tok/s": [r["edit"] for r in rows],
            "Accept (edit)": [r["accept_edit"] for r in rows],
            "Mean tok/pass (edit)": [r["per_pass"] for r in rows],
        }
    )
    return Table(
        f"notes_draft_depth_{build}",
        f"Draft depth: {display(build)}, DSpark, C=1",
        frame,
        {
            "Fresh gen tok/s": TOK_S,
            "Edit-heavy tok/s": TOK_S,
            "Accept (edit)": "{:.1f}%",
            "Mean tok/pass (edit)": "{:.2f}",
        },
        note="Acceptance falls with depth while tokens per pass rise: tokens per pass is what "
        "predicts throughput.",
    )


# ----- (c) batch-budget control ------------------------------------------------------------------
CONTROL = ((HELD_SPEC, DEFAULT_WORD), (HELD_SPEC, WIDE_BUDGET), ("dspark:14", WIDE_BUDGET))


def _fleet(entries: list[Entry], identical: bool = False, **setup) -> Entry | None:
    return find(
        entries, False, workload=WORKLOAD_EDIT, identical=identical, prefix_caching=True, **setup
    )


def _single_edit(entries: list[Entry], **setup) -> Entry | None:
    return find(
        entries, True, workload=WORKLOAD_EDIT, identical=False, prefix_caching=True, **setup
    )


def budget_control(entries: list[Entry], figs: Figures, build: str) -> list[Table]:
    """Notes §3a: k=7 default / k=7 16384 / k=14 16384 × single stream and common levels, with
    the like-for-like changes; [] without two of the three concurrency runs."""
    fleets = {key: _fleet(entries, build=build, spec=key[0], budget=key[1]) for key in CONTROL}
    present = {key: e for key, e in fleets.items() if e is not None}
    if len(present) < 2:
        return []
    levels = sorted(set.intersection(*(set(e.levels) for e in present.values())) - {1})
    singles = {
        key: _single_edit(entries, build=build, spec=key[0], budget=key[1]) for key in present
    }
    frame = pd.DataFrame(
        {
            "Config": [f"k={spec_depth(spec)}" for spec, _ in present],
            "Batch budget": [budget for _, budget in present],
            "Single stream": [runs_cell(_runs_of(figs, singles[key])) for key in present],
            **{
                f"c{c}": [figs.value(e.label, c, "measured_total_tps") for e in present.values()]
                for c in levels
            },
        }
    )
    table = Table(
        f"notes_budget_control_{build}",
        f"Batch-budget control: {display(build)}, edit-heavy (single stream C=1; c≥2 aggregate "
        "tok/s of the concurrency runs)",
        frame,
        {"Single stream": TOK_S, **{f"c{c}": TOK_S for c in levels}},
        note="Single stream: the single-stream edit runs, one value per run; cN: Σ output tokens "
        "/ level wall time of N distinct edit streams.",
    )
    comparisons = [
        (("dspark:14", WIDE_BUDGET), (HELD_SPEC, WIDE_BUDGET), f"k=14 vs k=7 at {WIDE_BUDGET}"),
        ((HELD_SPEC, WIDE_BUDGET), (HELD_SPEC, DEFAULT_WORD), f"{WIDE_BUDGET} vs default at k=7"),
    ]
    rows = []
    for other, base, title in comparisons:
        if other in present and base in present:
            single = [mean_of(_runs_of(figs, singles[k])) for k in (base, other)]
            rows.append(
                {
                    "Like for like": title,
                    "Single stream": change(*single),
                    **{
                        f"c{c}": change(
                            figs.value(present[base].label, c, "measured_total_tps"),
                            figs.value(present[other].label, c, "measured_total_tps"),
                        )
                        for c in levels
                    },
                }
            )
    if not rows:
        return [table]
    changes = Table(
        f"notes_budget_like_for_like_{build}",
        f"Like for like: {display(build)}",
        pd.DataFrame(rows),
        {"Single stream": PCT, **{f"c{c}": PCT for c in levels}},
        note="Change of the first configuration over the second (single stream: means of the "
        "runs).",
    )
    return [table, changes]


def _runs_of(figs: Figures, entry: Entry | None) -> list[float]:
    return figs.runs(entry.label) if entry is not None else []


# ----- (d) concurrency curves, (f) FP8 vs 4-bit --------------------------------------------------
def fleet_groups(entries: list[Entry]) -> list[tuple[str, str]]:
    """(spec, budget) of the distinct concurrency runs, in input order."""
    return list(
        dict.fromkeys(
            (e.setup.spec, e.setup.budget)
            for e in entries
            if not e.single_stream
            and e.setup.workload == WORKLOAD_EDIT
            and not e.setup.identical
            and e.setup.prefix_caching
        )
    )


def _setup_title(spec: str, budget: str) -> str:
    return f"{describe_spec(spec)}, batch budget {budget}"


def concurrency_curve(
    entries: list[Entry], figs: Figures, spec: str, budget: str, builds: list[str]
) -> Table | None:
    """Notes §3b: aggregate and per stream of each build's distinct concurrency run."""
    found = {
        b: e
        for b in builds
        if (e := _fleet(entries, build=b, spec=spec, budget=budget)) is not None
    }
    if not found:
        return None
    levels = sorted(set().union(*(e.levels for e in found.values())))
    frame = pd.DataFrame({"Concurrency": [f"c{c}" for c in levels]})
    formats = {}
    for build, entry in found.items():
        aggregate = np.array([figs.value(entry.label, c, "measured_total_tps") for c in levels])
        frame[f"{display(build)} aggregate"] = aggregate
        frame[f"{display(build)} per stream"] = aggregate / np.array(levels, dtype=float)
        formats[f"{display(build)} aggregate"] = formats[f"{display(build)} per stream"] = TOK_S
    return Table(
        f"notes_concurrency_{_key(spec, budget)}",
        f"Concurrency, full curve: {_setup_title(spec, budget)}, distinct edit prompts",
        frame,
        formats,
        note="Aggregate = Σ output tokens / level wall time; per stream = aggregate / C.",
    )


def identical_contrast(
    entries: list[Entry], figs: Figures, build: str, spec: str, budget: str
) -> Table | None:
    """Notes §3 detail: distinct vs identical prompts of one configuration."""
    distinct = _fleet(entries, build=build, spec=spec, budget=budget)
    same = _fleet(entries, identical=True, build=build, spec=spec, budget=budget)
    if distinct is None or same is None:
        return None
    levels = sorted(set(distinct.levels) | set(same.levels))
    c = np.array(levels, dtype=float)
    a = np.array([figs.value(distinct.label, level, "measured_total_tps") for level in levels])
    b = np.array([figs.value(same.label, level, "measured_total_tps") for level in levels])
    frame = pd.DataFrame(
        {
            "Concurrency": [f"c{level}" for level in levels],
            "Distinct aggregate": a,
            "Distinct per stream": a / c,
            "Identical aggregate": b,
            "Identical per stream": b / c,
            "Identical overstates by": (b / a - 1) * 100,
        }
    )
    return Table(
        f"notes_distinct_identical_{build}_{_key(spec, budget)}",
        f"Distinct vs identical prompts: {display(build)}, {_setup_title(spec, budget)}",
        frame,
        {**{col: TOK_S for col in frame.columns[1:5]}, "Identical overstates by": PCT},
        note="Identical prompts let the prefix cache serve every stream's prompt: measured for "
        "contrast, not for quoting.",
    )


def fp8_vs_4bit(entries: list[Entry], figs: Figures, spec: str, budget: str) -> Table | None:
    """Notes §4a: FP8 against each 4-bit build per concurrency, one configuration."""
    fp8 = _fleet(entries, build="fp8", spec=spec, budget=budget)
    others = {
        b: e
        for b in builds_of(entries)
        if b != "fp8" and (e := _fleet(entries, build=b, spec=spec, budget=budget)) is not None
    }
    if fp8 is None or not others:
        return None
    levels = sorted(set(fp8.levels).union(*(e.levels for e in others.values())))
    base = [figs.value(fp8.label, c, "measured_total_tps") for c in levels]
    frame = pd.DataFrame({"Concurrency": [f"c{c}" for c in levels], "FP8": base})
    formats = {"FP8": TOK_S}
    for build, entry in others.items():
        values = [figs.value(entry.label, c, "measured_total_tps") for c in levels]
        frame[display(build)] = values
        frame[f"{display(build)} advantage"] = [
            change(a, b) for a, b in zip(base, values, strict=True)
        ]
        formats[display(build)], formats[f"{display(build)} advantage"] = TOK_S, PCT
    return Table(
        f"notes_fp8_vs_4bit_{_key(spec, budget)}",
        f"FP8 vs 4-bit by concurrency: {_setup_title(spec, budget)} (aggregate tok/s)",
        frame,
        formats,
        note="Advantage = 4-bit / FP8 − 1 of the aggregate at each level.",
    )


def _key(spec: str, budget: str) -> str:
    return f"{spec.replace(':', '')}_{budget}"


# ----- (e) prefill -------------------------------------------------------------------------------
def prefill_by_size(entries: list[Entry], dataset: Dataset) -> Table | None:
    """Notes §4: prefill tok/s per prompt size and build, run-to-run agreement, comparisons."""
    labels = {
        build: entry.label
        for build in builds_of(entries)
        if (
            entry := next(
                (
                    e
                    for e in entries
                    if e.setup.build == build and e.setup.workload == WORKLOAD_PREFILL
                ),
                None,
            )
        )
    }
    cells = {build: _prefill_cells(dataset, label) for build, label in labels.items()}
    cells = {build: frame for build, frame in cells.items() if not frame.empty}
    if not cells:
        return None
    sizes = sorted(set().union(*(set(f.index) for f in cells.values())))
    first = next(iter(cells.values()))
    frame = pd.DataFrame(
        {
            "Prompt": [f"~{size / 1000:.0f}K" if size >= 1000 else str(size) for size in sizes],
            "Tokens": [first["tokens"].get(size, np.nan) for size in sizes],
        }
    )
    formats = {"Tokens": "{:,.0f}"}
    for build, cell in cells.items():
        name = display(build)
        frame[name] = [cell["mean"].get(size, np.nan) for size in sizes]
        frame[f"{name} runs"] = [cell["runs"].get(size, np.nan) for size in sizes]
        frame[f"{name} agreement"] = [cell["spread"].get(size, np.nan) for size in sizes]
        formats[name], formats[f"{name} agreement"] = "{:,.1f}", "{:.2f}%"
    for other, base, title in (
        ("nvfp4", "int4", "NVFP4 vs MixedInt4"),
        ("fp8", "nvfp4", "FP8 advantage over NVFP4"),
    ):
        if other in cells and base in cells:
            frame[title] = [
                change(b, a)
                for a, b in zip(frame[display(other)], frame[display(base)], strict=True)
            ]
            formats[title] = PCT
    return Table(
        "notes_prefill",
        "Prefill throughput by prompt size (tok/s), with run-to-run agreement",
        frame,
        formats,
        note="Prefill tok/s = prompt tokens / prefill time of each measured cold request "
        "(max_tokens=1, unique prompts); runs = each measured request in order; agreement = "
        "(max − min) / mean.",
    )


def _prefill_cells(dataset: Dataset, label: str) -> pd.DataFrame:
    rows = prefill_rows(dataset.records, label).dropna(subset=["size"])
    rows = rows[rows["ok"]] if not rows.empty else rows
    if rows.empty:
        return pd.DataFrame()
    out = {}
    for size, group in rows.groupby("size", sort=True):
        speeds = [float(v) for v in group["tok_s"].dropna()]
        out[int(size)] = {
            "tokens": float(group["prompt_tokens"].mean()),
            "mean": mean_of(speeds),
            "runs": " / ".join(f"{v:,.1f}" for v in speeds) if len(speeds) > 1 else np.nan,
            "spread": spread_pct(speeds),
        }
    return pd.DataFrame.from_dict(out, orient="index")


# ----- (g) the speed-up ladder -------------------------------------------------------------------
def _ladder_order(entry: Entry) -> tuple:
    setup = entry.setup
    family = setup.spec.split(":", 1)[0]
    build_rank = list(BUILD_NAMES).index(setup.build) if setup.build in BUILD_NAMES else 9
    return (
        setup.build != "fp8",
        {"none": 0, "mtp": 1, "dspark": 2}.get(family, 3),
        spec_depth(setup.spec),
        build_rank,
        setup.budget != DEFAULT_WORD,
    )


def speed_up_ladder(entries: list[Entry], figs: Figures) -> Table | None:
    """Notes §5: edit single stream from stock FP8 (no speculation) up, × over stock."""
    singles = [
        e
        for e in entries
        if e.single_stream and e.setup.workload == WORKLOAD_EDIT and not e.setup.identical
    ]
    stock = next(
        (
            e
            for e in singles
            if e.setup.build == "fp8" and e.setup.spec == "none" and not e.setup.prefix_caching
        ),
        None,
    ) or next((e for e in singles if e.setup.build == "fp8" and e.setup.spec == "none"), None)
    if stock is None:
        return None
    rows = [stock, *sorted((e for e in singles if e is not stock), key=_ladder_order)]
    speeds = [mean_of(figs.runs(e.label)) for e in rows]
    frame = pd.DataFrame(
        {
            "Configuration": [_ladder_name(e.setup) for e in rows],
            "tok/s": speeds,
            "vs stock": [s / speeds[0] if speeds[0] else np.nan for s in speeds],
        }
    )
    return Table(
        "notes_speed_up_ladder",
        "The speed-up from stock FP8: edit-heavy, single stream",
        frame,
        {"tok/s": TOK_S, "vs stock": "{:.1f}×"},
        note="tok/s = mean over the runs of per-request output tokens / latency at C=1.",
    )


def _ladder_name(setup: Setup) -> str:
    parts = [display(setup.build)]
    parts.append(describe_spec(setup.spec) if setup.spec != "none" else "no speculation")
    if setup.budget != DEFAULT_WORD:
        parts.append(f"budget {setup.budget}")
    if not setup.prefix_caching:
        parts.append("no prefix caching")
    return ", ".join(parts)
