"""Graded items into the results contract: one ``Outcome`` per item sent, one ``QualityResult``
per item set (quality.json's entries, ``records.quality``)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from sparkload.quality.graders import Grade, failure, grade
from sparkload.quality.items import Item, ItemSet
from sparkload.quality.toolcalls import FAILURES
from sparkload.records import (
    STATUS_OK,
    TOOL_CALL_FAILURES,
    QualityCategory,
    QualityItem,
    QualityResult,
    RequestRecord,
    wilson_interval,
)
from sparkload.transport.tally import ToolCall

FINISH_LENGTH = "length"  # the server's finish_reason for an answer cut off at max_tokens
WRONG_IDS_SHOWN = 20  # the most wrong ids a summary line lists (quality.json has them all)


@dataclass(frozen=True)
class Outcome:
    """What became of one item: its reply graded, or its request's failure."""

    item: Item
    grade: Grade | None  # None: the request failed
    reply: str = ""
    error: str | None = None  # the failure class and message
    finish_reason: str | None = None
    output_tokens: int | None = None
    failure: str | None = None  # a wrong tool-call reply: why (``toolcalls.FAILURES``)

    @classmethod
    def of(
        cls, item: Item, record: RequestRecord, reply: str, calls: Sequence[ToolCall] = ()
    ) -> Outcome:
        """The outcome of ``item`` sent as ``record`` (measured), ``reply`` its text and
        ``calls`` its tool calls."""
        failed = record.status != STATUS_OK
        graded = None if failed else grade(item, reply, calls)
        return cls(
            item,
            graded,
            reply,
            f"{record.error_kind}: {record.error}" if failed else None,
            record.finish_reason,
            record.output_tokens,
            None if graded is None or graded.correct else failure(item, calls),
        )

    def entry(self) -> QualityItem:
        """The item as quality.json keeps it with ``--keep-outputs``: its reply too."""
        entry = QualityItem(
            id=self.item.id,
            correct=self.grade is not None and self.grade.correct,
            expected=self.item.expected,
            extracted=self.grade.extracted if self.grade is not None else None,
            finish_reason=self.finish_reason,
            output_tokens=self.output_tokens,
            details=dict(self.item.details),
            reply=self.reply,
        )
        if self.error is not None:
            entry.error = self.error
        if self.failure is not None:
            entry.failure = self.failure
        return entry


def result(items: ItemSet, outcomes: list[Outcome], keep_outputs: bool = False) -> QualityResult:
    """The tally of ``items`` from the outcomes of those sent (in any order; an item not among
    them was never sent)."""
    by_id = {outcome.item.id: outcome for outcome in outcomes}
    done = [by_id[item.id] for item in items.items if item.id in by_id]
    graded = [outcome for outcome in done if outcome.grade is not None]
    correct = sum(1 for outcome in graded if outcome.grade and outcome.grade.correct)
    n = len(graded)
    low, high = wilson_interval(correct, n) if n else (None, None)
    entry = QualityResult(
        name=items.name,
        kind=items.kind,
        grading=items.grading,
        source=items.source,
        parameters=dict(items.parameters),
        planned=len(items.items),
        n=n,
        correct=correct,
        accuracy=correct / n if n else None,
        low=low,
        high=high,
        wrong_ids=[o.item.id for o in graded if o.grade is not None and not o.grade.correct],
        failed=len(done) - n,
        failed_ids=[o.item.id for o in done if o.grade is None],
        truncated=sum(1 for o in graded if o.finish_reason == FINISH_LENGTH),
    )
    if items.sha256 is not None:
        entry.sha256 = items.sha256
    if any(item.answer is not None for item in items.items):
        entry.failures = failures(graded)
        entry.categories = categories(items, graded)
    if keep_outputs:
        entry.items = [outcome.entry() for outcome in done]
    return entry


def failures(graded: list[Outcome]) -> dict[str, int]:
    """The wrong tool-call replies counted by why, every reason named."""
    said = [o.failure for o in graded if o.grade is not None and not o.grade.correct]
    return {reason: said.count(reason) for reason in FAILURES}


def categories(items: ItemSet, graded: list[Outcome]) -> list[QualityCategory]:
    """The graded items' tally per category, in the order the set first names each."""
    names = list(dict.fromkeys(item.category for item in items.items))
    tallies = []
    for name in names:
        own = [o for o in graded if o.item.category == name]
        correct = sum(1 for o in own if o.grade is not None and o.grade.correct)
        low, high = wilson_interval(correct, len(own)) if own else (None, None)
        tallies.append(
            QualityCategory(
                name,
                len(own),
                correct,
                correct / len(own) if own else None,
                low,
                high,
                failures(own),
            )
        )
    return tallies


def summary_line(r: QualityResult) -> str:
    """One dataset's or probe's tally as the console shows it: its accuracy, its interval, the
    wrong items' ids (``sparkload quality``, and each level of ``run --quality-probe``)."""
    if r.n == 0 or r.accuracy is None or r.low is None or r.high is None:
        return f"{r.name}: no item graded ({r.failed} failed of {r.planned})"
    shown = ", ".join(r.wrong_ids[:WRONG_IDS_SHOWN])
    more = len(r.wrong_ids) - WRONG_IDS_SHOWN
    more_ids = f" and {more} more" if more > 0 else ""
    extra = [f"{r.failed} failed"] if r.failed else []
    extra += [f"{r.truncated} cut off at --max-tokens"] if r.truncated else []
    if r.n < r.planned - r.failed:
        extra.append(f"{r.planned - r.failed - r.n} not sent")
    why = [
        f"{count} {TOOL_CALL_FAILURES.get(reason, reason)}"
        for reason, count in (r.failures or {}).items()
        if count
    ]
    return (
        f"{r.name}: {r.correct}/{r.n} correct, {100 * r.accuracy:.1f} % "
        f"(95 % Wilson interval {100 * r.low:.1f}-{100 * r.high:.1f} %)"
        + (f"; {', '.join(extra)}" if extra else "")
        + (f"; wrong: {shown}{more_ids}" if r.wrong_ids else "")
        + (f" ({', '.join(why)})" if why else "")
    )
