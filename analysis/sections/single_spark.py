"""The single-Spark notes' tables (Qwen3.8-27B builds, drafting, batch budgets), in their shape.

Present only when some run carries the notes' setup (``analysis.single_spark.setups``: metadata
build / spec / budget, or a qwen3.8-* simulator profile). Each table that lacks its runs is left
out with one line saying which runs it needs; no cell is ever filled in.
"""

from __future__ import annotations

from analysis.document import Block, Section
from analysis.sections import Context
from analysis.single_spark import setups, tables
from analysis.single_spark.setups import DEFAULT_WORD, Entry, Figures
from analysis.single_spark.tables import HELD_SPEC, WIDE_BUDGET

FOUR_BIT = ("int4", "nvfp4")


def build(context: Context) -> Section | None:
    entries = setups.catalogue(context.dataset, context.summary)
    if not entries:
        return None
    figs = setups.figures(context.dataset, context.summary, context.server)
    scales = sorted({r.time_scale for r in context.dataset.runs if r.time_scale != 1})
    intro = (
        "The tables of the single-Spark measurement notes (Qwen3.8-27B on one DGX Spark), from "
        "the runs that say which build, speculative decoding, batch budget and prefix caching "
        "they measured (--metadata, or the simulator's qwen3.8-* profile). Single stream = "
        'per-request output tokens / latency at C=1, one value per run ("run 1 / run 2"); '
        "aggregate = Σ output tokens / level wall time; per stream = aggregate / C."
        + (
            " Simulated time (time scale " + ", ".join(f"{s:g}" for s in scales) + "): "
            "the simulator's figures, not a Spark's."
            if scales
            else ""
        )
    )
    return Section(
        "Single-Spark notes",
        [intro],
        [
            _part("Quantization gain, drafting held constant", _quantization(entries, figs)),
            _part("Draft depth", _draft_depth(entries, figs)),
            _part("Batch-budget control", _budget(entries, figs)),
            _part("Concurrency", _concurrency(entries, figs)),
            _part("Prefill throughput", _prefill(entries, context)),
            _part("FP8 vs 4-bit under concurrency", _fp8_vs_4bit(entries, figs)),
            _part("The speed-up from stock FP8", _ladder(entries, figs)),
        ],
    )


def _part(title: str, blocks: list[Block]) -> Section:
    return Section(title, blocks)


def _left_out(needs: str) -> str:
    return f"Left out: needs {needs}."


def _quantization(entries: list[Entry], figs: Figures) -> list[Block]:
    table = tables.quantization_gain(entries, figs)
    if table is None:
        return [
            _left_out(
                "fresh or edit single-stream runs (C=1 only) of two builds at DSpark k=7, "
                "default batch budget"
            )
        ]
    return [table]


def _draft_depth(entries: list[Entry], figs: Figures) -> list[Block]:
    found = [t for b in setups.builds_of(entries) if (t := tables.draft_depth(entries, figs, b))]
    return list(found) or [
        _left_out("single-stream runs of one build at two DSpark depths (k=7 and k=14)")
    ]


def _budget(entries: list[Entry], figs: Figures) -> list[Block]:
    found: list[Block] = [
        t for b in setups.builds_of(entries) for t in tables.budget_control(entries, figs, b)
    ]
    return found or [
        _left_out(
            f"edit concurrency runs of one build at two of: k=7 default, k=7 {WIDE_BUDGET}, "
            f"k=14 {WIDE_BUDGET}"
        )
    ]


def _concurrency(entries: list[Entry], figs: Figures) -> list[Block]:
    blocks: list[Block] = []
    for spec, budget in tables.fleet_groups(entries):
        contrasts = [
            t
            for b in setups.builds_of(entries)
            if (t := tables.identical_contrast(entries, figs, b, spec, budget)) is not None
        ]
        curve = tables.concurrency_curve(entries, figs, spec, budget, list(FOUR_BIT))
        if curve is not None and not contrasts:
            blocks.append(curve)
        blocks += contrasts
    return blocks or [_left_out("edit concurrency runs (levels above C=1) of a 4-bit build")]


def _prefill(entries: list[Entry], context: Context) -> list[Block]:
    table = tables.prefill_by_size(entries, context.dataset)
    return [table] if table is not None else [_left_out("prefill probes (--workload prefill)")]


def _fp8_vs_4bit(entries: list[Entry], figs: Figures) -> list[Block]:
    found: list[Block] = [
        t
        for spec, budget in tables.fleet_groups(entries)
        if (t := tables.fp8_vs_4bit(entries, figs, spec, budget)) is not None
    ]
    return list(found) or [
        _left_out("edit concurrency runs of FP8 and a 4-bit build in one configuration")
    ]


def _ladder(entries: list[Entry], figs: Figures) -> list[Block]:
    table = tables.speed_up_ladder(entries, figs)
    if table is None:
        return [
            _left_out(
                "a single-stream edit run of FP8 without speculation (--sim-spec none), "
                f"and others to compare (e.g. {HELD_SPEC}, {DEFAULT_WORD} budget)"
            )
        ]
    return [table]
