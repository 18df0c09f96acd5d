"""Accuracy: each run's accuracy probes (quality.json), their intervals, and what it takes to
tell the two closest variants apart (``analysis/figures/accuracy.py`` defines every figure)."""

from __future__ import annotations

import pandas as pd

from analysis.document import Block, Section
from analysis.fidelity import fidelity
from analysis.figures import accuracy
from analysis.sections import Context, image
from analysis.views import speed_accuracy
from analysis.views.tables import Table
from sparkload.records import CONFIDENCE, TOOL_CALL_FAILURES

TITLE = "Accuracy"
WRONG_SHOWN = 20  # the most wrong ids a line lists (quality.json has them all)
FORMATS = {"Accuracy (%)": "{:.1f}"}


def _method(confidence: float) -> str:
    return (
        "Share of items answered right per dataset or built-in probe, each item sent once "
        "(`sparkload quality`), with its "
        f"{100 * confidence:g} % Wilson score interval (E. B. Wilson, 1927: unlike p ± 1.96·SE "
        "it stays within 0–100 % and keeps a width at none or all right). An item whose "
        "request failed is not graded (Failed); one cut off at the output limit is graded as "
        "it is (Truncated)."
    )


def _interval(row) -> str:
    if pd.isna(row.low) or pd.isna(row.high):
        return "—"
    return f"{100 * row.low:.1f}–{100 * row.high:.1f}"


def _comparison(pair: accuracy.Closest) -> str:
    first, second = pair.first, pair.second
    a, b = 100 * float(first["accuracy"]), 100 * float(second["accuracy"])
    if pair.needed is None:
        return (
            f"**{pair.probe}**: `{first['label']}` and `{second['label']}`, the two closest, "
            f"scored the same ({a:.1f} %): no number of items tells equal rates apart."
        )
    said = (
        f"**{pair.probe}**: telling `{first['label']}` ({a:.1f} %) from `{second['label']}` "
        f"({b:.1f} %), the two closest, apart takes about {pair.needed:,} items per variant "
        f"(two-sided two-proportion z-test at α = {accuracy.ALPHA:g} with power "
        f"{accuracy.POWER:g}; Fleiss, Levin & Paik 2003, ch. 4); these runs graded "
        f"{int(first['n'])} and {int(second['n'])}"
    )
    if pair.p_value is None:
        return said + "."
    verdict = "is" if pair.p_value < accuracy.ALPHA else "is not"
    return (
        f"{said}: the difference {verdict} significant at α = {accuracy.ALPHA:g} "
        f"(p = {pair.p_value:.3g})."
    )


def _tool_calls(frame: pd.DataFrame, names: pd.Series) -> list[Block]:
    """A tool-call file's (BFCL's) wrong items by why, and its accuracy per category."""
    rows = []
    blocks: list[Block] = []
    for name, row in zip(names, frame.itertuples(), strict=True):
        if not row.categories:
            continue
        said = [
            f"{TOOL_CALL_FAILURES.get(reason, reason)} {count}"
            for reason, count in row.failures.items()
            if count
        ]
        blocks.append(
            f"`{name}` · `{row.probe}`: tool calls wrong by why: "
            + (", ".join(said) if said else "none wrong")
            + "."
        )
        for category in row.categories:
            rows.append(
                {
                    "Probe": row.probe,
                    "Category": category.name,
                    "n": category.n,
                    "Correct": category.correct,
                    "Accuracy (%)": None if category.accuracy is None else 100 * category.accuracy,
                    "95 % interval (%)": _interval(category),
                    "Wrong by why": ", ".join(
                        f"{TOOL_CALL_FAILURES.get(reason, reason)} {count}"
                        for reason, count in category.failures.items()
                        if count
                    )
                    or "—",
                }
            )
    if not rows:
        return []
    table = pd.DataFrame(rows)
    if names.nunique() > 1:
        table.insert(
            0,
            "Run",
            [n for n, r in zip(names, frame.itertuples(), strict=True) for _ in r.categories],
        )
    return [
        *blocks,
        "Tool calls per category (BFCL's, from the item's id, else the file's name), each with "
        "its interval; wrong by why: BFCL's checks in order (the function, the required "
        "arguments, no unknown one, each value among the allowed ones; an irrelevance item "
        "wants no call).",
        Table("accuracy_tool_calls", "Tool-call accuracy per category", table, FORMATS),
    ]


def _per_level(context: Context) -> list[Block]:
    """``run --quality-probe``'s accuracy per level, beside the level's concurrency."""
    levels = speed_accuracy.levels(context.dataset)
    if levels.empty:
        return []
    repeated = levels.drop_duplicates("run")["label"].duplicated(keep=False).any()
    names = levels["label"] + (" (" + levels["directory"] + ")" if repeated else "")
    table = pd.DataFrame(
        {
            "Run" if repeated else "Label": names,
            "Probe": levels["probe"],
            "C": levels["concurrency"],
            "Probe items / level requests": [
                f"{int(row.n) + int(row.failed)} / {int(row.requests)}"
                for row in levels.itertuples()
            ],
            "n": levels["n"],
            "Correct": levels["correct"],
            "Accuracy (%)": 100 * levels["accuracy"].astype(float),
            "95 % interval (%)": [_interval(row) for row in levels.itertuples()],
        }
    )
    return [
        "Beside the load (`sparkload run --quality-probe`): in each measured level, some of the "
        "level's own sessions sent the probe's items instead of the workload's requests, so "
        "each item was answered at the level's concurrency with the level's other streams in "
        "flight, at no extra request; each level asked items of its own, and the table above "
        "pools them (every item once). Probe items / level requests: what the probe took of "
        "the level's load.",
        Table("accuracy_levels", "Accuracy per level (probe beside the load)", table, FORMATS),
    ]


def _capacity(label: str, found: dict[str, float | None]) -> str:
    if label not in found:
        return "—"
    value = found[label]
    return "none (the lowest level fails)" if value is None else f"{value:.1f}"


def _fidelity(level: fidelity.LevelFidelity | None) -> str:
    """The fastest level's exact-match share against the label's own lowest level."""
    if level is None or level.share is None:
        return "—"
    return f"{100 * level.share:.1f} ({100 * level.low:.1f}–{100 * level.high:.1f})"


def _speed(context: Context, frame: pd.DataFrame) -> list[Block]:
    """Per label: output tokens/s, capacity and joules per token beside accuracy, and the
    chart (two labels or more)."""
    found = speed_accuracy.capacities(
        context.dataset.records,
        context.summary,
        context.settings,
        context.bounds,
        context.think_time_s,
        context.capacities,
    )
    rows = speed_accuracy.per_label(context.summary, frame, context.telemetry, found)
    if rows["label"].nunique() < 2:
        return []
    table = pd.DataFrame(
        {
            "Label": rows["label"],
            "Probe": rows["probe"],
            "Output tok/s (fastest level)": rows["output_tps"],
            "at C": rows["at_concurrency"],
            "Capacity (C)": [_capacity(label, found) for label in rows["label"]],
            "J per output token": rows["j_per_output_token"],
            "n": rows["n"],
            "Accuracy (%)": 100 * rows["accuracy"],
            "95 % interval (%)": [_interval(row) for row in rows.itertuples()],
        }
    )
    kept = fidelity.own_levels(context.dataset.runs)
    if kept:
        table["Exact vs own lowest level (%)"] = [
            _fidelity(kept.get((str(row.label), int(row.at_concurrency))))
            for row in rows.itertuples()
        ]
    capacity = (
        "the highest C meeting the SLO (`--slo`)"
        if context.bounds
        else "a capacity search's finding (give `--slo` for the SLO's)"
    )
    return [
        "Speed beside accuracy per label: output tokens/s is Σ output tokens / wall time at "
        f"the label's fastest level; capacity {capacity}; J per output token at that level "
        "(where the run has energy figures); accuracy pooled over the label's levels"
        + (
            "; exact vs own lowest level: the share of that level's greedy replies identical "
            "to the label's lowest level's for the same prompt, with its interval "
            "(`--keep-outputs`, Output fidelity below)."
            if kept
            else "."
        ),
        Table(
            "speed_accuracy",
            "Speed and accuracy per label",
            table,
            {**FORMATS, "Output tok/s (fastest level)": "{:.1f}", "J per output token": "{:.3f}"},
        ),
        image(speed_accuracy.CHART_FOLDER, speed_accuracy.CHART_KEY, "Speed against accuracy"),
    ]


def build(context: Context) -> Section | None:
    found, notes = accuracy.entries(context.dataset)
    frame = accuracy.results(context.dataset)
    if frame.empty and not notes:
        return None
    blocks: list[Block] = [_method(found[0][1].confidence if found else CONFIDENCE)]
    blocks += notes
    if frame.empty:
        return Section(TITLE, blocks)
    runs = frame.drop_duplicates("run")
    repeated = runs["label"].duplicated(keep=False).any()  # a label run twice: name the runs
    names = frame["label"] + (" (" + frame["directory"] + ")" if repeated else "")
    table = pd.DataFrame(
        {
            "Run" if repeated else "Label": names,
            "Probe": frame["probe"],
            "n": frame["n"],
            "Correct": frame["correct"],
            "Accuracy (%)": 100 * frame["accuracy"].astype(float),
            "95 % interval (%)": [_interval(row) for row in frame.itertuples()],
            "Failed": frame["failed"],
            "Truncated": frame["truncated"],
        }
    )
    blocks.append(Table("accuracy", "Accuracy per run and probe", table, FORMATS))
    for probe, grading in dict(zip(frame["probe"], frame["grading"], strict=True)).items():
        blocks.append(f"Grading of `{probe}`: {grading}.")
    for name, row in zip(names, frame.itertuples(), strict=True):
        where = f"`{name}` · `{row.probe}`"
        if row.wrong_ids:
            shown = ", ".join(row.wrong_ids[:WRONG_SHOWN])
            more = f" ({len(row.wrong_ids)} in all; quality.json lists every one)"
            blocks.append(
                f"{where}: wrong: {shown}" + (more if len(row.wrong_ids) > WRONG_SHOWN else "")
            )
        if row.failed:
            blocks.append(f"{where}: {row.failed} request(s) failed: {', '.join(row.failed_ids)}")
        if not row.complete and row.n + row.failed < row.planned:
            blocks.append(
                f"{where}: **stopped early**: {row.n + row.failed} of {row.planned} items sent"
            )
        if row.truncated:
            blocks.append(
                f"{where}: {row.truncated} answer(s) cut off at the output limit: a higher "
                "--max-tokens may change them"
            )
    blocks += _tool_calls(frame, names)
    blocks += _per_level(context)
    blocks += _speed(context, frame)
    pairs = accuracy.closest_pairs(frame)
    blocks += [_comparison(pair) for pair in pairs]
    if not pairs:
        blocks.append(
            "One label per probe: a report of several runs (`sparkload report DIR DIR ...`) "
            "says how many items would tell the two closest apart."
        )
    return Section(TITLE, blocks)
