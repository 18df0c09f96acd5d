"""Accuracy probes' results (each run's quality.json) and the statistics that compare them.

``results(dataset)`` is one row per run and dataset or probe, as ``sparkload quality`` wrote it
(``records.QualityResult``): items graded, correct, the share right and its interval (the
writer's: Wilson's score interval at 95 %, ``records.wilson_interval``), failures and answers
cut off at max_tokens. Comparing two variants is this module's:

- ``samples_to_distinguish(p1, p2)``: items per variant for a two-sided two-proportion z-test
  at alpha 0.05 to detect ``p1`` against ``p2`` with power 0.8, by the normal approximation
  with the pooled variance under the null,
  ``n = (z(1-a/2)·sqrt(2·p̄·q̄) + z(1-b)·sqrt(p1·q1 + p2·q2))² / (p1 - p2)²``, p̄ the mean of the
  two, rounded up (J. L. Fleiss, B. Levin, M. C. Paik, "Statistical Methods for Rates and
  Proportions", 3rd ed., Wiley 2003, chapter 4, without the continuity correction; JMP's
  two-sample proportions calculator documents the same figure, 2,554 a group for 0.08 against
  0.06);
- ``two_proportion_p(c1, n1, c2, n2)``: that test's two-sided p-value on what was observed,
  ``z = (p̂1 - p̂2) / sqrt(p̂(1 - p̂)(1/n1 + 1/n2))``, p̂ the pooled share (R's
  ``prop.test(correct = FALSE)``, whose chi-squared is z²).

The normal quantiles come from the standard library (``statistics.NormalDist``).
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from statistics import NormalDist

import pandas as pd

from analysis.reading.load import Dataset
from sparkload.records import QUALITY_FILE, QualityEntry, read_quality

ALPHA = 0.05
POWER = 0.8
COLUMNS = (
    "run",  # the run's position in the report
    "label",
    "variant",
    "directory",
    "probe",
    "kind",
    "grading",
    "planned",
    "n",
    "correct",
    "accuracy",
    "low",
    "high",
    "failed",
    "truncated",
    "wrong_ids",
    "failed_ids",
    "failures",  # a tool-call file's wrong items by why ({} for another probe)
    "categories",  # a tool-call file's tally per category (records.QualityCategory; [] else)
    "complete",
    "confidence",
    "interval",
)


def entries(dataset: Dataset) -> tuple[list[tuple[int, QualityEntry]], list[str]]:
    """Each run's quality.json that reads (by the run's position), and a note per one that
    does not."""
    found: list[tuple[int, QualityEntry]] = []
    notes: list[str] = []
    for index, run in enumerate(dataset.runs):
        try:
            entry = read_quality(run.path)
        except (OSError, ValueError) as exc:
            notes.append(f"`{run.path.name}`: unreadable {QUALITY_FILE} ({type(exc).__name__})")
            continue
        if entry is not None:
            found.append((index, entry))
    return found, notes


def results(dataset: Dataset) -> pd.DataFrame:
    """One row per run and dataset or probe, in the order of the runs and of their files
    (an empty frame with ``COLUMNS`` when no run has a quality.json)."""
    rows = []
    for index, entry in entries(dataset)[0]:
        run = dataset.runs[index]
        for r in entry.results:
            rows.append(
                {
                    "run": index,
                    "label": run.label,
                    "variant": run.variant,
                    "directory": run.path.name,
                    "probe": r.name,
                    "kind": r.kind,
                    "grading": r.grading,
                    "planned": r.planned,
                    "n": r.n,
                    "correct": r.correct,
                    "accuracy": r.accuracy,
                    "low": r.low,
                    "high": r.high,
                    "failed": r.failed,
                    "truncated": r.truncated,
                    "wrong_ids": list(r.wrong_ids),
                    "failed_ids": list(r.failed_ids),
                    "failures": dict(r.failures or {}),
                    "categories": list(r.categories or []),
                    "complete": entry.complete,
                    "confidence": entry.confidence,
                    "interval": entry.interval,
                }
            )
    return pd.DataFrame(rows, columns=list(COLUMNS))


def samples_to_distinguish(
    p1: float, p2: float, alpha: float = ALPHA, power: float = POWER
) -> int | None:
    """Items per variant for a two-sided two-proportion z-test at ``alpha`` to tell ``p1``
    from ``p2`` with ``power`` (the module's formula); None when the two are equal."""
    if p1 == p2:
        return None
    normal = NormalDist()
    z_alpha, z_beta = normal.inv_cdf(1 - alpha / 2), normal.inv_cdf(power)
    mean = (p1 + p2) / 2
    root = z_alpha * math.sqrt(2 * mean * (1 - mean)) + z_beta * math.sqrt(
        p1 * (1 - p1) + p2 * (1 - p2)
    )
    return math.ceil(round(root * root / (p1 - p2) ** 2, 9))  # 2554.0000001 is 2554


def two_proportion_p(c1: int, n1: int, c2: int, n2: int) -> float | None:
    """The two-sided p-value of the pooled two-proportion z-test (None: nothing to test, an
    empty side or every item right, or wrong, on both)."""
    if n1 <= 0 or n2 <= 0:
        return None
    pooled = (c1 + c2) / (n1 + n2)
    spread = pooled * (1 - pooled) * (1 / n1 + 1 / n2)
    if spread <= 0:
        return None
    z = (c1 / n1 - c2 / n2) / math.sqrt(spread)
    return 2 * (1 - NormalDist().cdf(abs(z)))


@dataclass(frozen=True)
class Closest:
    """The two labels of one probe whose accuracies lie nearest, and what telling them apart
    takes."""

    probe: str
    first: pd.Series  # a row of ``results``
    second: pd.Series
    needed: int | None  # items per variant (None: equal accuracies)
    p_value: float | None  # the test on what the two runs graded


def closest_pairs(frame: pd.DataFrame) -> list[Closest]:
    """Per probe graded by two labels or more, the two nearest in accuracy (ties: the first
    pair in report order), with the items needed to tell them apart."""
    found = []
    graded = frame[frame["n"] > 0]
    for probe, rows in graded.groupby("probe", sort=False):
        rows = rows.drop_duplicates("label")
        if len(rows) < 2:
            continue
        ordered = rows.sort_values("accuracy", kind="stable")
        gaps = ordered["accuracy"].diff().iloc[1:]
        at = ordered.index.get_loc(gaps.idxmin())
        first, second = ordered.iloc[at - 1], ordered.iloc[at]
        found.append(
            Closest(
                str(probe),
                first,
                second,
                samples_to_distinguish(float(first["accuracy"]), float(second["accuracy"])),
                two_proportion_p(
                    int(first["correct"]),
                    int(first["n"]),
                    int(second["correct"]),
                    int(second["n"]),
                ),
            )
        )
    return found


def summary_entries(dataset: Dataset) -> dict[str, list[dict]]:
    """summary.json's ``accuracy``: the rows of ``results`` (nothing when no run has one)."""
    frame = results(dataset)
    if frame.empty:
        return {}
    shown = frame.drop(columns=["run", "grading"])
    return {"accuracy": json.loads(shown.to_json(orient="records", double_precision=15))}
