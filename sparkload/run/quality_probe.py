"""``run --quality-probe``: accuracy graded beside the load, at each measured level's concurrency.

Why the level's own users send the probe, not a user of its own: an extra user would make C=1
a level of two streams (and C=16 one of 17), so what was graded would not be the level's
concurrency. Here ``--quality-items`` K of the level's C x R sessions (``--requests-per-user``
R) are the probe's items instead of the workload's requests: the level keeps its concurrency
and its count exactly, each item is answered while the level's other C - 1 streams are in
flight, and the probe costs no extra request and no extra time (it is K of the level's
requests; the report says how many). The K are spread evenly over the level's sessions in the
order they start (the first one T/K sessions in, past the level's start), and each level asks
items of its own (level i the items i·K .. i·K + K - 1 of the set, round again when a dataset
is shorter), so the run's pooled tally grades every item once. A probe item is sent in the
run's body (its sampling, its ``max_tokens``) as one user message, its reply kept and graded
in the session by the same rules as ``sparkload quality`` (``quality.graders``); its record
carries the grade (``records.ProbeGrade`` under ``extra["quality"]``) and the master tallies
the records into quality.json (``ProbeTally``), per level and pooled, rewritten at every
level's end.

What it takes: a closed-loop ladder (``--ladder``, counted levels, a search's too) in one
process, and a workload whose sessions are single requests (chat, fresh, edit).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from sparkload.config import RunOptions
from sparkload.config.plan import KNEE_LEVELS_ADDED
from sparkload.errors import ConfigError
from sparkload.quality import datasets, probes
from sparkload.quality.graders import Grade
from sparkload.quality.items import (
    ITEM_HEADER,
    KIND_ARITHMETIC,
    KIND_BFCL,
    KIND_RETRIEVAL,
    PROBES,
    ItemSet,
)
from sparkload.quality.tally import Outcome, result, summary_line
from sparkload.records import (
    PHASE_MEASURE,
    PROBE_GRADE,
    STATUS_OK,
    ProbeGrade,
    QualityEntry,
    QualityLevel,
    QualityResult,
    RequestRecord,
)
from sparkload.stages import MEASURE, Stage
from sparkload.transport.tally import Reply
from sparkload.workloads.contract import PlannedRequest
from sparkload.workloads.fitting import Counter

FLAG = "--quality-probe"
ANSWERS_FLAG = "--quality-answers"
SEARCH_LEVELS = 32  # a capacity search's levels are not known in advance: items for so many


def probe_of(options: RunOptions) -> str:
    return options.workload.quality_probe.strip()


def check(options: RunOptions, requests_per_session: int | None, processes: int) -> None:
    """A ConfigError of one line unless the probe can be interleaved with this run's levels;
    a dataset is read here (every bad line one error), before anything is contacted."""
    name = probe_of(options)
    if not name:
        if options.workload.quality_answers is not None:
            raise ConfigError(
                f"{ANSWERS_FLAG}: give --quality-probe FILE, the BFCL file it answers"
            )
        return
    if options.mode != "ladder":
        raise ConfigError(f"{FLAG}: closed-loop ladders only (counted levels), not {options.mode}")
    if requests_per_session != 1:
        raise ConfigError(
            f"{FLAG}: the {options.workload.name} workload's sessions hold several requests; "
            "use chat, fresh or edit"
        )
    if processes > 1:
        raise ConfigError(f"{FLAG}: a run in one process only (no --processes, no workers)")
    if name not in PROBES:
        read(options)
    elif options.workload.quality_answers is not None:
        raise ConfigError(f"{ANSWERS_FLAG}: the {name} probe takes no answer file")


def read(options: RunOptions) -> ItemSet:
    """The dataset file ``--quality-probe`` names, its errors under this flag's name."""
    path = Path(probe_of(options))
    answers = options.workload.quality_answers
    try:
        given = () if answers is None else (answers,)
        items = datasets.read_dataset(path, flag=FLAG, answers=given, answers_flag=ANSWERS_FLAG)
    except ConfigError as exc:
        if path.exists():
            raise
        raise ConfigError(f"{exc} (or give one of {', '.join(PROBES)})") from None
    if answers is not None and items.kind != KIND_BFCL:
        raise ConfigError(f"{ANSWERS_FLAG}: {path} is not a BFCL file, which alone takes answers")
    return items


def items_for(options: RunOptions, counter: Counter | None) -> ItemSet | None:
    """The run's probe items (None: no probe): the dataset's, or a built-in probe's K items per
    level of the plan. ``counter`` sizes a retrieval context (None: not needed)."""
    name = probe_of(options)
    if not name:
        return None
    plan = options.plan
    levels = SEARCH_LEVELS if plan.searches else plan.level_count * plan.repeat
    levels += KNEE_LEVELS_ADDED if plan.refine_knee else 0  # new items for its levels too
    count = options.workload.quality_items * max(levels, 1)
    seed = plan.seed
    if name == KIND_ARITHMETIC:
        return probes.arithmetic(count, seed)
    if name == KIND_RETRIEVAL:
        if counter is None:
            raise ConfigError(f"{FLAG} retrieval: no token counter")  # a caller's mistake
        return probes.retrieval(count, counter, seed)
    return read(options)


@dataclass(frozen=True)
class ProbeTurn:
    """One session that sends item ``index`` of ``items`` in the workload's place."""

    items: ItemSet
    index: int

    def planned(self, max_tokens: int) -> PlannedRequest:
        return self.items.planned(self.index, max_tokens)

    def headers(self, base: dict[str, str]) -> dict[str, str]:
        """``base`` and the header naming the item (the simulator's; a server ignores it)."""
        return {**base, ITEM_HEADER: self.items.items[self.index].id}

    def grade(self, record: RequestRecord, reply: Reply | None) -> None:
        grade_into(self.items, self.index, record, reply)


@dataclass
class ProbeDealer:
    """Which of a process's sessions in a level are the probe's items (see the module)."""

    items: ItemSet
    per_level: int
    requests_per_user: int
    started: dict[int, int] = field(default_factory=dict)  # level index -> sessions begun

    def take(self, stage: Stage) -> int | None:
        """The item (its index in the set) the next session of ``stage`` sends, or None: the
        workload's request. Called once per session begun."""
        if stage.kind != MEASURE:
            return None
        total = stage.concurrency * self.requests_per_user
        begun = self.started.get(stage.index, 0)
        self.started[stage.index] = begun + 1
        if begun >= total:
            return None
        k = min(self.per_level, total)
        nth = (begun + 1) * k // total
        if nth == begun * k // total:
            return None
        return (stage.index * self.per_level + nth - 1) % len(self.items.items)

    def turn(self, stage: Stage) -> ProbeTurn | None:
        """``take`` as the session uses it: the item with its set, or None."""
        index = self.take(stage)
        return None if index is None else ProbeTurn(self.items, index)


def grade_into(items: ItemSet, index: int, record: RequestRecord, reply: Reply | None) -> None:
    """Grade item ``index``'s reply and keep the grade in its record (``PROBE_GRADE``)."""
    item = items.items[index]
    reply = reply if reply is not None else Reply()
    outcome = Outcome.of(item, record, reply.content, reply.tool_calls)
    grade = outcome.grade
    said = ProbeGrade(
        items.name,
        item.id,
        None if grade is None else grade.correct,
        None if grade is None else grade.extracted,
    )
    if outcome.failure is not None:
        said.failure = outcome.failure
    record.extra[PROBE_GRADE] = said.to_dict()


@dataclass
class ProbeTally:
    """The master's side: the probe's graded records per level, into quality.json."""

    items: ItemSet
    by_id: dict[str, int] = field(init=False)
    outcomes: dict[int, list[Outcome]] = field(default_factory=dict)  # level index -> graded
    concurrency: dict[int, int] = field(default_factory=dict)
    requests: dict[int, int] = field(default_factory=dict)  # the level's measured requests

    def __post_init__(self) -> None:
        self.by_id = {item.id: i for i, item in enumerate(self.items.items)}

    def add(self, record: dict) -> None:
        """One record of the run (any: the probe's are told by their ``extra``)."""
        if record.get("phase") != PHASE_MEASURE:
            return
        index = record["level_index"]
        self.concurrency[index] = record["level"]
        self.requests[index] = self.requests.get(index, 0) + 1
        raw = (record.get("extra") or {}).get(PROBE_GRADE)
        if not isinstance(raw, dict):
            return
        grade = ProbeGrade.from_dict(raw)
        at = self.by_id.get(grade.item)
        if grade.probe != self.items.name or at is None:
            return
        ok = record.get("status") == STATUS_OK and grade.correct is not None
        error = None if ok else f"{record.get('error_kind')}: {record.get('error')}"
        self.outcomes.setdefault(index, []).append(
            Outcome(
                self.items.items[at],
                Grade(grade.extracted, bool(grade.correct)) if ok else None,
                error=error,
                finish_reason=record.get("finish_reason"),
                output_tokens=record.get("output_tokens"),
                failure=grade.failure if ok else None,
            )
        )

    def entry(self, levels: list[int], complete: bool) -> QualityEntry:
        """quality.json of the run directory holding ``levels``: per level, and pooled (an
        item asked in two levels, when a dataset is shorter than the run, counts once: its
        first level's grade)."""
        pooled: dict[str, Outcome] = {}
        for index in reversed(sorted(levels)):
            pooled.update({o.item.id: o for o in self.outcomes.get(index, [])})
        return QualityEntry(
            complete=complete,
            results=[self._result(list(pooled.values()))],
            levels=[
                QualityLevel(
                    index,
                    self.concurrency.get(index, 0),
                    [self._result(self.outcomes.get(index, []))],
                    self.requests.get(index, 0),
                )
                for index in sorted(levels)
            ],
        )

    def lines(self, levels: list[int]) -> list[str]:
        """The run's accuracy for the console, as quality.json holds it: each level's, then
        the pooled tally."""
        entry = self.entry(levels, complete=False)
        said = [
            f"quality probe C={level.concurrency}: {summary_line(level.results[0])}"
            for level in entry.levels or []
        ]
        return [*said, f"quality probe, pooled: {summary_line(entry.results[0])}"]

    def _result(self, outcomes: list[Outcome]) -> QualityResult:
        """The tally over the items sent (``planned``: those sent, not the whole set)."""
        entry = result(self.items, outcomes)
        entry.planned = len({o.item.id for o in outcomes})
        return entry
