"""An accuracy probe's results (quality.json): per dataset or built-in probe, how many items were
graded, how many right, the share right with its Wilson score interval, and which were wrong.

``sparkload quality`` writes it beside the run's manifest and records (``QUALITY_FILE``); the
analysis reads it with ``read_quality``. Every object is an ``Entry`` (``records.codec``): typed
fields, unknown keys kept, so a newer writer's fields survive an older reader.

The interval is the contract's: the writer computes it with ``wilson_interval`` and names the
method and level in the file (``interval``, ``confidence``), so a reader need not recompute it.
Outputs may be private: per-item entries (``QualityResult.items``: the expected and extracted
answers, the reply) are written only when the user asked (``--keep-outputs``); the wrong and
failed items' ids always are.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from pathlib import Path
from statistics import NormalDist

from sparkload.records.codec import Entry, JSONValue, omitted

QUALITY_FILE = "quality.json"
QUALITY_SCHEMA = 1
MODE_QUALITY = "quality"  # ``Manifest.mode`` (and its workload's name) of an accuracy probe run
INTERVAL_WILSON = "wilson"
CONFIDENCE = 0.95


def wilson_interval(correct: int, n: int, confidence: float = CONFIDENCE) -> tuple[float, float]:
    """The Wilson score interval of a binomial proportion ``correct / n`` (no continuity
    correction): the proportions p whose score test ``|p̂ − p| / sqrt(p(1 − p)/n) <= z`` does not
    reject, i.e. ``(p̂ + z²/2n ± z·sqrt(p̂(1 − p̂)/n + z²/4n²)) / (1 + z²/n)`` with z the normal
    quantile of ``1 − (1 − confidence)/2``.

    E. B. Wilson (1927), "Probable inference, the law of succession, and statistical
    inference", J. Amer. Statist. Assoc. 22(158), 209-212; method 3 of R. G. Newcombe (1998),
    "Two-sided confidence intervals for the single proportion: comparison of seven methods",
    Statistics in Medicine 17, 857-872, whose worked examples the tests hold it to. Unlike the
    normal approximation p̂ ± z·sqrt(p̂(1 − p̂)/n) it stays within [0, 1] and does not collapse to
    a point at 0 or n correct. ``n == 0``: (0, 1), nothing is known.
    """
    if n <= 0:
        return 0.0, 1.0
    z = NormalDist().inv_cdf(1 - (1 - confidence) / 2)
    p = correct / n
    shrink = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / shrink
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / shrink
    low = 0.0 if correct <= 0 else max(0.0, centre - half)  # exactly 0 then, not 1e-17
    high = 1.0 if correct >= n else min(1.0, centre + half)
    return low, high


# Why a tool-call reply is wrong (BFCL's checks, ``quality.toolcalls``): quality.json's names
# (``QualityResult.failures``, ``QualityItem.failure``) and how a report says each.
WRONG_FUNCTION = "wrong_function"
MISSING_ARGUMENT = "missing_argument"
WRONG_VALUE = "wrong_value"
EXTRA_ARGUMENT = "extra_argument"
UNWANTED_CALL = "unwanted_call"
NO_CALL = "no_call"
WRONG_COUNT = "wrong_count"
BAD_ARGUMENTS = "bad_arguments"
TOOL_CALL_FAILURES = {
    WRONG_FUNCTION: "wrong function",
    MISSING_ARGUMENT: "missing argument",
    WRONG_VALUE: "wrong value",
    EXTRA_ARGUMENT: "extra or unknown argument",
    UNWANTED_CALL: "called when it should not",
    NO_CALL: "no call",
    WRONG_COUNT: "wrong number of calls",
    BAD_ARGUMENTS: "arguments not a JSON object",
}


@dataclass
class QualityItem(Entry):
    """One item as graded (written only with ``--keep-outputs``)."""

    id: str
    correct: bool = False
    expected: str = ""  # the gold answer as graded (a number, a letter, a pattern, a key)
    extracted: str | None = None  # what the grader read in the reply (None: nothing it reads)
    reply: str | None = omitted()  # the reply's text
    error: str | None = omitted()  # the request failed: its failure class and message
    finish_reason: str | None = omitted()
    output_tokens: int | None = omitted()
    failure: str | None = omitted()  # a wrong tool-call reply: why (wrong_function, no_call, ...)
    # what a built-in probe made of the item (a retrieval item's depth and counted length)
    details: dict[str, JSONValue] = field(default_factory=dict)


@dataclass
class QualityCategory(Entry):
    """A tool-call file's items of one category (BFCL's: simple, multiple, parallel,
    irrelevance, ...): their tally and interval, and why the wrong ones were wrong."""

    name: str
    n: int = 0
    correct: int = 0
    accuracy: float | None = None
    low: float | None = None
    high: float | None = None
    failures: dict[str, int] = field(default_factory=dict)


@dataclass
class QualityResult(Entry):
    """One dataset or built-in probe: its items' tally.

    ``n`` counts the items answered and graded; an item whose request failed is not graded
    (``failed``, ``failed_ids``), and one never sent (the run was stopped) is in ``planned``
    only. ``accuracy`` is ``correct / n``, ``low``/``high`` its interval (None while n is 0).
    """

    name: str  # what the report calls it: the file's name, or the probe's
    kind: str = ""  # gsm8k | multiple-choice | generic | bfcl | arithmetic | retrieval
    grading: str = ""  # the rule, in one line
    source: str = ""  # the file's path, or "built-in"
    sha256: str | None = omitted()  # a file's digest
    parameters: dict[str, JSONValue] = field(default_factory=dict)  # a probe's seed, steps, ...
    planned: int = 0
    n: int = 0
    correct: int = 0
    accuracy: float | None = None
    low: float | None = None
    high: float | None = None
    wrong_ids: list[str] = field(default_factory=list)
    failed: int = 0
    failed_ids: list[str] = field(default_factory=list)
    truncated: int = 0  # answers cut off at max_tokens (finish_reason "length"), graded as they are
    # a tool-call file's (BFCL): the wrong items counted by why, every reason named (0 if none),
    # and the tally per category
    failures: dict[str, int] | None = omitted()
    categories: list[QualityCategory] | None = omitted()
    items: list[QualityItem] | None = omitted()  # with --keep-outputs only


@dataclass
class QualityLevel(Entry):
    """A probe beside the load (``run --quality-probe``): what one measured level graded, its
    items sent by the level's own users at its concurrency."""

    index: int  # the level's index in the manifest
    concurrency: int
    results: list[QualityResult] = field(default_factory=list)
    requests: int = 0  # the level's measured requests so far, the probe's among them


@dataclass
class ProbeGrade(Entry):
    """One probe item's grade, as its request's record carries it (``RequestRecord.extra``
    under ``PROBE_GRADE``): the session grades the reply, the master tallies the records."""

    probe: str  # the dataset's or built-in probe's name
    item: str  # the item's id
    correct: bool | None = None  # None: the request failed, nothing graded
    extracted: str | None = None  # what the grader read in the reply
    failure: str | None = omitted()  # a wrong tool-call reply: why


PROBE_GRADE = "quality"  # the key of a record's ``extra`` that holds its ProbeGrade


@dataclass
class QualityEntry(Entry):
    """The whole of quality.json. ``results``: per dataset or probe, every item graded once
    (beside the load: each item the first level it was asked in); ``levels``: beside the load
    only, per measured level."""

    schema: int = QUALITY_SCHEMA
    interval: str = INTERVAL_WILSON  # how ``low`` and ``high`` were computed
    confidence: float = CONFIDENCE
    complete: bool = False  # every planned item was sent (False: the run was stopped)
    results: list[QualityResult] = field(default_factory=list)
    levels: list[QualityLevel] | None = omitted()  # run --quality-probe's, per level


def read_quality(run_dir: Path) -> QualityEntry | None:
    """The quality.json of a run directory (None: it has none); ``OSError`` / ``ValueError``
    when it cannot be read."""
    path = Path(run_dir) / QUALITY_FILE
    if not path.is_file():
        return None
    return QualityEntry.from_dict(json.loads(path.read_text(encoding="utf-8")))
