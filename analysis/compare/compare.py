"""``sparkload compare BASELINE RUN``: a run held to a baseline run, level by level and figure by
figure, with both runs' noise taken into account (a regression gate for CI).

Both directories are read as the report reads them (``load.load``) and summarised by the
report's own definitions (``metrics.summarize``), so a cell's two values are the report's. Runs
are paired by label (one label on each side: those two, whatever their names), levels by name
("C=4", "offered 2 req/s"); what only one side has is listed, not compared.

Runs whose request and workload settings differ (``run_settings``: the model, max_tokens,
thinking on or off, the prompts, ...) are not compared unless the caller allows it: thinking off
against thinking on, 31 of 35 requests never answering, read "no regression" before. Allowed,
every difference is listed with the comparison.

Each compared figure (``tolerances.COMPARED``; a thinking model's TTFO and answered share where
either run has reasoning or tool calls) of each common level is a ``Cell``: both values, the
change, its 90 % interval (``change_intervals``: bootstrap draws of both runs' requests, fixed
seed) and a verdict:

- ``worse``: the change goes the worse way beyond its tolerance AND its interval excludes no
  change (the noise of two runs cannot explain it);
- ``better``: the same the other way (beyond the tolerance's size, interval excluding zero);
- ``within noise``: anything else: within the tolerance, or an interval that holds no change,
  or none at all (fewer than ``change_intervals.MIN_FOR_INTERVAL`` values on a side: the cell
  says so);
- ``n/a``: a side has no value (e.g. no request of the level succeeded) or the baseline's is 0.

A p90 of fewer than ``percentiles.FEW_SAMPLES_FOR_P90`` requests on either side rests on its
top one or two values (the report flags it too): it is never judged worse or better, and its
cell says so (``Cell.note``). Two runs of one simulator at 16 requests a level had a TTFT p90
of 102.6 and 126.4 ms (two requests slowed by a busy machine), the interval +0.3 … +29.1 %.

Why the tolerance both ways: with a 90 % interval, one cell in ten of two runs of the same
server would otherwise read as a significant change, and a gate must not flap.
"""

from __future__ import annotations

import math
import zlib
from dataclasses import dataclass, field, replace
from pathlib import Path

import numpy as np
import pandas as pd

from analysis.compare.change_intervals import (
    CONFIDENCE,
    MIN_FOR_INTERVAL,
    LevelSample,
    draws,
    measure_change,
    own_value,
    sample_size,
)
from analysis.compare.run_settings import SettingDifference, differences
from analysis.compare.tolerances import COMPARED, HIGHER_IS_WORSE, QUANTILE, Compared, Tolerance
from analysis.errors import InputError
from analysis.figures import percentiles, slo
from analysis.figures.measured import measured_rows
from analysis.figures.metrics import (
    LOOPS,
    Settings,
    has_thinking,
    level_name,
    loop_levels,
    summarize,
)
from analysis.reading import load
from analysis.reading.load import Dataset

BETTER, WORSE, NOISE, NO_DATA = "better", "worse", "within noise", "n/a"
VERDICTS = (WORSE, BETTER, NOISE, NO_DATA)


@dataclass
class Cell:
    """One figure of one level in both runs: the change in ``change_unit`` ("%" of the
    baseline, or "pp": percentage points), its interval, the tolerance and the verdict."""

    figure: str  # tolerances.Compared.name
    title: str
    unit: str
    baseline: float | None
    run: float | None
    change: float | None
    change_unit: str
    ci_low: float | None
    ci_high: float | None
    tolerance: str  # "+10%": higher is worse beyond 10 %
    verdict: str
    note: str = ""  # why the verdict is not the change's ("few requests")


@dataclass
class LevelComparison:
    """One level both runs have: its name, each side's label and request counts, its cells."""

    level: str  # "C=4", "offered 2 req/s"
    baseline_label: str
    run_label: str
    baseline_n: int
    run_n: int
    baseline_failures: int
    run_failures: int
    cells: list[Cell] = field(default_factory=list)


@dataclass
class Comparison:
    """The whole comparison: what was compared with what, how, and every level's cells."""

    baseline: str  # the directories as given
    run: str
    confidence: float
    resamples: int
    seed: int
    percentile_method: str
    levels: list[LevelComparison] = field(default_factory=list)
    only_in_baseline: list[str] = field(default_factory=list)  # "C=32", "label fp8"
    only_in_run: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)  # a run that did not finish, ...
    # the request and workload settings the runs do not share (compared anyway when allowed)
    settings_differ: list[SettingDifference] = field(default_factory=list)

    def cells_with(self, verdict: str) -> list[tuple[LevelComparison, Cell]]:
        return [
            (level, cell)
            for level in self.levels
            for cell in level.cells
            if cell.verdict == verdict
        ]

    @property
    def worse(self) -> bool:
        return bool(self.cells_with(WORSE))


def verdict(change: float, low: float, high: float, tolerance: Tolerance) -> str:
    """A cell's verdict from its change, interval and tolerance (the module docstring's rules).
    An interval that could not be drawn (NaN) excludes nothing: never worse, never better."""
    if not math.isfinite(change):
        return NO_DATA
    limit = tolerance.limit_pct
    if tolerance.worse == HIGHER_IS_WORSE:
        worse, better = change > limit and low > 0, change < -limit and high < 0
    else:
        worse, better = change < -limit and high < 0, change > limit and low > 0
    return WORSE if worse else BETTER if better else NOISE


def pair_labels(
    baseline: list[str], run: list[str]
) -> tuple[list[tuple[str, str]], list[str], list[str]]:
    """Which label of the baseline is compared with which of the run: the only one of each, or
    those of the same name; and the labels only one side has."""
    if len(baseline) == 1 and len(run) == 1:
        return [(baseline[0], run[0])], [], []
    pairs = [(label, label) for label in baseline if label in run]
    return pairs, [x for x in baseline if x not in run], [x for x in run if x not in baseline]


def match_levels(baseline: list[str], run: list[str]) -> tuple[list[str], list[str], list[str]]:
    """Level names both runs have (in the baseline's order), only the baseline, only the run."""
    return (
        [name for name in baseline if name in run],
        [name for name in baseline if name not in run],
        [name for name in run if name not in baseline],
    )


@dataclass
class _Level:
    """One run's level: its summary row and what its draws need."""

    row: pd.Series
    sample: LevelSample


def _levels(dataset: Dataset, settings: Settings) -> dict[str, dict[str, _Level]]:
    """label → level name → the level, with the report's summary row (no bootstrap: the
    intervals here are of changes, drawn below)."""
    summary = summarize(dataset, replace(settings, bootstrap_resamples=0))
    found: dict[str, dict[str, _Level]] = {}
    for loop in LOOPS:
        rows = loop_levels(summary, loop)
        groups = slo.loop_positions(dataset.records, loop) if not rows.empty else {}
        for _, row in rows.iterrows():
            key = row[loop.summary_key]
            index = groups.get((row["label"], key), np.empty(0, np.int64))
            ok = measured_rows(dataset.records, index, settings)  # this level's rows alone
            sample = LevelSample(
                ok, int(row["n"]), int(row["failures"]), settings.percentile_method
            )
            found.setdefault(str(row["label"]), {})[level_name(row)] = _Level(row, sample)
    return found


def _value(compared: Compared, level: _Level) -> float:
    """The report's value where its summary has the column, else the same from the requests."""
    if compared.column not in level.row.index:
        return own_value(compared, level.sample)
    value = level.row[compared.column]
    return float(value) if value is not None and not pd.isna(value) else math.nan


def _rng(settings: Settings, side: str, label: str, level: str, figure: str) -> np.random.Generator:
    """A generator per side, label, level and figure: a cell's interval depends on the seed and
    on nothing else (not on the order of levels or figures)."""
    words = (side, label, level, figure)
    return np.random.default_rng([settings.seed, *(zlib.crc32(w.encode()) for w in words)])


def _optional(value: float) -> float | None:
    return value if math.isfinite(value) else None


def _cell(
    compared: Compared,
    base: _Level,
    other: _Level,
    names: tuple[str, str, str],
    tolerance: Tolerance,
    settings: Settings,
) -> Cell:
    base_label, run_label, level = names
    values = (_value(compared, base), _value(compared, other))
    sides = (("baseline", base_label, base, values[0]), ("run", run_label, other, values[1]))
    drawn = [
        draws(
            compared,
            lvl.sample,
            value,
            _rng(settings, side, label, level, compared.name),
            settings.bootstrap_resamples,
        )
        for side, label, lvl, value in sides
    ]
    found = measure_change(compared, values[0], values[1], drawn[0], drawn[1])
    judged = verdict(found.change, found.low, found.high, tolerance)
    note = ""
    sizes = [sample_size(compared, lvl.sample) for lvl in (base, other)]
    few = min(base.sample.n, other.sample.n) < percentiles.FEW_SAMPLES_FOR_P90
    if compared.relative and min(sizes) < MIN_FOR_INTERVAL and math.isfinite(found.change):
        note = f"too few requests for an interval: {sizes[0]} and {sizes[1]}, "
        note += f"{MIN_FOR_INTERVAL} needed"
    elif compared.kind == QUANTILE and compared.q >= 0.9 and few and judged in (WORSE, BETTER):
        judged, note = NOISE, f"fewer than {percentiles.FEW_SAMPLES_FOR_P90} requests"
    return Cell(
        figure=compared.name,
        title=compared.title,
        unit=compared.unit,
        baseline=_optional(values[0]),
        run=_optional(values[1]),
        change=_optional(found.change),
        change_unit="%" if compared.relative else "pp",
        ci_low=_optional(found.low),
        ci_high=_optional(found.high),
        tolerance=tolerance.text,
        verdict=judged,
        note=note,
    )


def _incomplete(dataset: Dataset, side: str) -> list[str]:
    return [
        f"{side} {run.path.name} did not finish (status: {run.status})"
        for run in dataset.runs
        if run.incomplete
    ]


def settings_differences(
    baseline: Dataset, run: Dataset
) -> tuple[list[SettingDifference], list[str]]:
    """Where the request and workload settings of the runs compared with each other differ
    (``run_settings``), label pair by label pair; and a note for a side with no manifest to say."""
    found: list[SettingDifference] = []
    notes = [
        f"{side}: {each.path.name} has no manifest.json: its settings are unknown"
        for side, dataset in (("baseline", baseline), ("run", run))
        for each in dataset.runs
        if not each.has_manifest
    ]
    pairs, _, _ = pair_labels(list(baseline.labels), list(run.labels))
    for base_label, run_label in pairs:
        base, other = (
            [r.manifest for r in dataset.runs if r.label == label and r.has_manifest]
            for dataset, label in ((baseline, base_label), (run, run_label))
        )
        if base and other:
            found += differences(base, other, base_label if len(pairs) > 1 else "")
    return found, notes


def compare(
    baseline: Dataset,
    run: Dataset,
    tolerances: dict[str, Tolerance],
    settings: Settings,
    paths: tuple[str, str] = ("baseline", "run"),
    allow_different_settings: bool = False,
) -> Comparison:
    """Every figure of every level both runs have; InputError when they have none in common,
    or when their settings differ and ``allow_different_settings`` is not given."""
    differ, unknown = settings_differences(baseline, run)
    if differ and not allow_different_settings:
        raise InputError(
            "the runs' request and workload settings differ ("
            + "; ".join(map(str, differ))
            + "): a change would not say what the server did; compare them anyway with "
            "--allow-different-settings"
        )
    result = Comparison(
        paths[0],
        paths[1],
        CONFIDENCE,
        settings.bootstrap_resamples,
        settings.seed,
        settings.percentile_method,
    )
    result.notes = _incomplete(baseline, "baseline") + _incomplete(run, "run") + unknown
    result.settings_differ = differ
    thinking = has_thinking(baseline.records) or has_thinking(run.records)
    figures = [compared for compared in COMPARED if thinking or not compared.thinking]
    base_levels, run_levels = _levels(baseline, settings), _levels(run, settings)
    pairs, only_base, only_run = pair_labels(list(base_levels), list(run_levels))
    result.only_in_baseline += [f"label {label}" for label in only_base]
    result.only_in_run += [f"label {label}" for label in only_run]
    several = len(pairs) > 1
    for base_label, run_label in pairs:
        common, only_b, only_r = match_levels(
            list(base_levels[base_label]), list(run_levels[run_label])
        )
        prefix = f"{base_label} " if several else ""
        result.only_in_baseline += [prefix + name for name in only_b]
        result.only_in_run += [prefix + name for name in only_r]
        for name in common:
            base, other = base_levels[base_label][name], run_levels[run_label][name]
            level = LevelComparison(
                name,
                base_label,
                run_label,
                base.sample.n,
                other.sample.n,
                base.sample.failures,
                other.sample.failures,
            )
            level.cells = [
                _cell(
                    compared,
                    base,
                    other,
                    (base_label, run_label, name),
                    tolerances[compared.name],
                    settings,
                )
                for compared in figures
            ]
            result.levels.append(level)
    if not result.levels:
        raise InputError(
            f"no common levels: the baseline has {_listed(base_levels)}, "
            f"the run {_listed(run_levels)}"
        )
    return result


def _listed(levels: dict[str, dict[str, _Level]]) -> str:
    names = [f"{label} {name}" for label, named in levels.items() for name in named]
    return ", ".join(names) or "none"


def load_pair(baseline: str | Path, run: str | Path) -> tuple[Dataset, Dataset]:
    """Both run directories, each read alone (a label both share must not pool them);
    InputError naming the side for a missing directory, no run or no per-request records."""
    datasets = []
    for side, path in (("baseline", baseline), ("run", run)):
        try:
            datasets.append(load.load_with_records(path))
        except InputError as exc:
            raise InputError(f"{side}: {exc}") from None
    return datasets[0], datasets[1]
