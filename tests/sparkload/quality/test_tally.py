"""Graded items into quality.json's entries: the counts, the interval, the wrong and failed ids,
items never sent, and the per-item outputs only when kept."""

from __future__ import annotations

from sparkload.quality.items import MATCH_NUMERIC, Item, ItemSet
from sparkload.quality.tally import Outcome, result
from sparkload.records import STATUS_ERROR, RequestRecord, wilson_interval

ITEMS = ItemSet(
    "sums.jsonl",
    "generic",
    "numeric",
    "/data/sums.jsonl",
    tuple(Item(str(i), f"{i}+{i}?", str(2 * i), MATCH_NUMERIC) for i in range(1, 7)),
    {"form": "generic"},
    "ab" * 32,
)


def record(finish: str | None = "stop", failed: bool = False) -> RequestRecord:
    out = RequestRecord("r", 4, 0, "measure", "local", 0, "h", "m", 0, 64, 0.0)
    out.finish_reason, out.output_tokens = finish, 12
    if failed:
        out.status, out.error_kind, out.error = STATUS_ERROR, "http_500", "HTTP 500"
    return out


def outcomes() -> list[Outcome]:
    item = {i.id: i for i in ITEMS.items}
    return [
        Outcome.of(item["4"], record(failed=True), ""),
        Outcome.of(item["1"], record(), "The answer is 2."),
        Outcome.of(item["2"], record(), "#### 5"),
        Outcome.of(item["3"], record(finish="length"), "so far 6"),
        Outcome.of(item["5"], record(), "ten"),
    ]  # item 6 never sent


def test_the_tally_counts_what_was_graded():
    tallied = result(ITEMS, outcomes())
    assert (tallied.planned, tallied.n, tallied.correct) == (6, 4, 2)
    assert tallied.accuracy == 0.5
    assert (tallied.low, tallied.high) == wilson_interval(2, 4)
    assert tallied.wrong_ids == ["2", "5"]  # in the file's order, whatever order they came in
    assert (tallied.failed, tallied.failed_ids) == (1, ["4"])
    assert tallied.truncated == 1
    assert tallied.sha256 == "ab" * 32 and tallied.source == "/data/sums.jsonl"
    assert tallied.items is None and "items" not in tallied.to_dict()


def test_kept_outputs_are_every_item_sent_with_its_reply_and_what_was_read():
    kept = result(ITEMS, outcomes(), keep_outputs=True).items
    assert kept is not None
    assert [(i.id, i.expected, i.extracted, i.correct) for i in kept] == [
        ("1", "2", "2", True),
        ("2", "4", "5", False),
        ("3", "6", "6", True),
        ("4", "8", None, False),
        ("5", "10", None, False),
    ]
    assert kept[0].reply == "The answer is 2." and kept[2].finish_reason == "length"
    assert kept[3].error == "http_500: HTTP 500"


def test_nothing_graded_has_no_accuracy():
    tallied = result(ITEMS, [])
    assert (tallied.n, tallied.accuracy, tallied.low, tallied.high) == (0, None, None, None)
