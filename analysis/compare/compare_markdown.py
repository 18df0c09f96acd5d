"""``sparkload compare``'s table: one Markdown row per level and figure, the verdict line first
(what a CI log shows), then what only one run had and the notes."""

from __future__ import annotations

import math
from pathlib import Path

from analysis.compare.compare import (
    BETTER,
    NO_DATA,
    NOISE,
    VERDICTS,
    WORSE,
    Cell,
    Comparison,
    LevelComparison,
)
from analysis.outputs.markdown import MISSING

COLUMNS = ("level", "figure", "baseline", "run", "change", "interval", "tolerance", "verdict")


def number(value: float | None) -> str:
    """Four significant digits without an exponent (0.2406, 101.3, 1,234)."""
    if value is None:
        return MISSING
    if value == 0:
        return "0"
    decimals = max(0, 3 - math.floor(math.log10(abs(value))))
    return f"{value:,.{decimals}f}"


def _change(value: float | None, unit: str) -> str:
    return MISSING if value is None else f"{value:+.1f}{_unit(unit)}"


def _unit(unit: str) -> str:
    return "%" if unit == "%" else f" {unit}"


def _interval(cell: Cell) -> str:
    if cell.ci_low is None or cell.ci_high is None:
        return MISSING
    return f"{cell.ci_low:+.1f} … {cell.ci_high:+.1f}{_unit(cell.change_unit)}"


def _level_name(level: LevelComparison, labelled: bool) -> str:
    return f"{level.baseline_label} {level.level}" if labelled else level.level


def _row(level: LevelComparison, cell: Cell, labelled: bool) -> str:
    figure = f"{cell.title} ({cell.unit})"
    shown = f"**{cell.verdict}**" if cell.verdict == WORSE else cell.verdict
    if cell.note:
        shown += f" ({cell.note})"
    values = (
        _level_name(level, labelled),
        figure,
        number(cell.baseline),
        number(cell.run),
        _change(cell.change, cell.change_unit),
        _interval(cell),
        cell.tolerance.replace("%", _unit(cell.change_unit)),
        shown,
    )
    return "| " + " | ".join(values) + " |"


def _counted(comparison: Comparison) -> str:
    counts = {v: len(comparison.cells_with(v)) for v in VERDICTS}
    words = [f"{counts[WORSE]} worse", f"{counts[BETTER]} better", f"{counts[NOISE]} within noise"]
    if counts[NO_DATA]:
        words.append(f"{counts[NO_DATA]} n/a")
    return ", ".join(words)


def render(comparison: Comparison) -> str:
    """The whole comparison as Markdown."""
    labels = {(level.baseline_label, level.run_label) for level in comparison.levels}
    labelled = len(labels) > 1
    cells = sum(len(level.cells) for level in comparison.levels)
    worse = comparison.cells_with(WORSE)
    head = "REGRESSION" if worse else "no regression"
    lines = [
        f"## sparkload compare: {head}",
        "",
        f"Run `{comparison.run}` against baseline `{comparison.baseline}`: "
        f"{len(comparison.levels)} common level(s), {cells} cells: {_counted(comparison)}.",
    ]
    if len(labels) == 1 and (pair := next(iter(labels)))[0] != pair[1]:
        lines.append(f"Label {pair[1]!r} compared with the baseline's {pair[0]!r}.")
    if worse:
        named = [
            f"{_level_name(level, labelled)} {cell.title} "
            f"({_change(cell.change, cell.change_unit)})"
            for level, cell in worse
        ]
        lines.append("Worse: " + ", ".join(named) + ".")
    if comparison.settings_differ:
        lines += [
            "",
            "Settings that differ (compared anyway, --allow-different-settings): the changes "
            "below are not the server's alone.",
            "",
            *(f"- {difference}" for difference in comparison.settings_differ),
        ]
    lines += [
        "",
        f"Change: run vs baseline; interval: {comparison.confidence:.0%} of the change, "
        f"{comparison.resamples} bootstrap draws per run (seed {comparison.seed}), of the log "
        "ratio (a share's: of the difference). Worse: moved the worse way beyond its tolerance "
        "(+: higher is worse, -: lower is worse) and the interval excludes no change.",
        "",
        "| " + " | ".join(COLUMNS) + " |",
        "|---|---|--:|--:|--:|--:|--:|---|",
        *(_row(level, cell, labelled) for level in comparison.levels for cell in level.cells),
    ]
    tail = [f"only in baseline: {name}" for name in comparison.only_in_baseline]
    tail += [f"only in run: {name}" for name in comparison.only_in_run]
    tail += [f"note: {note}" for note in comparison.notes]
    if tail:
        lines += ["", *(f"- {line}" for line in tail)]
    return "\n".join(lines) + "\n"


def write(comparison: Comparison, path: Path) -> None:
    path.write_text(render(comparison), encoding="utf-8")
