"""quality.json's contract: the Wilson interval against Newcombe's worked examples, and its
entries read and written back as every entry of the contract is (unknown keys kept)."""

from __future__ import annotations

import json

import pytest

from sparkload.records import (
    QUALITY_FILE,
    QualityEntry,
    QualityItem,
    QualityResult,
    read_quality,
    wilson_interval,
)


# R. G. Newcombe (1998), Statistics in Medicine 17, 857-872, table II, method 3 (the Wilson
# score interval without continuity correction), to the four decimals it prints.
@pytest.mark.parametrize(
    ("correct", "n", "low", "high"),
    [
        (81, 263, 0.2553, 0.3662),
        (15, 148, 0.0624, 0.1605),
        (0, 20, 0.0000, 0.1611),
        (1, 29, 0.0061, 0.1718),
    ],
)
def test_the_wilson_interval_is_newcombes(correct, n, low, high):
    got = wilson_interval(correct, n)
    assert (round(got[0], 4), round(got[1], 4)) == (low, high)


def test_the_wilson_interval_at_its_edges():
    assert wilson_interval(0, 20)[0] == 0.0  # exactly: not 1e-17
    assert wilson_interval(20, 20)[1] == 1.0
    assert wilson_interval(20, 20)[0] == pytest.approx(1 - 0.1611, abs=1e-4)  # symmetric
    assert wilson_interval(0, 0) == (0.0, 1.0)  # nothing graded: nothing known
    low, high = wilson_interval(35, 50)
    assert low < 0.7 < high and (round(low, 4), round(high, 4)) == (0.5625, 0.8090)
    narrower = wilson_interval(35, 50, confidence=0.9)
    assert low < narrower[0] < narrower[1] < high


def test_quality_json_reads_back_and_keeps_what_it_does_not_know(tmp_path):
    entry = QualityEntry(
        complete=True,
        results=[
            QualityResult(
                name="gsm8k.jsonl",
                kind="gsm8k",
                planned=3,
                n=2,
                correct=1,
                accuracy=0.5,
                low=0.09,
                high=0.91,
                wrong_ids=["2"],
                failed=1,
                failed_ids=["3"],
            )
        ],
    )
    data = entry.to_dict()
    assert "items" not in data["results"][0]  # per-item outputs only when kept
    assert "sha256" not in data["results"][0]
    data["results"][0]["from_a_newer_writer"] = {"level": 16}
    data["written_by"] = "phase 2"
    (tmp_path / QUALITY_FILE).write_text(json.dumps(data))
    read = read_quality(tmp_path)
    assert read is not None
    assert read.results[0].wrong_ids == ["2"] and read.results[0].failed_ids == ["3"]
    assert read.to_dict() == data  # unknown keys survive an older reader


def test_items_are_written_only_when_kept():
    result = QualityResult(name="p", items=[QualityItem(id="1", correct=True, expected="4")])
    (item,) = result.to_dict()["items"]
    assert item == {"id": "1", "correct": True, "expected": "4", "extracted": None, "details": {}}


def test_a_run_without_quality_json_has_none(tmp_path):
    assert read_quality(tmp_path) is None
    (tmp_path / QUALITY_FILE).write_text("[1]")
    with pytest.raises(ValueError):
        read_quality(tmp_path)
