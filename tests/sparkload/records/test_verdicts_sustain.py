"""What the console says of --sustain's level, and what the manifest keeps of it."""

from __future__ import annotations

from sparkload.records import (
    CapacityEntry,
    CapacityProbe,
    LevelEntry,
    ProbeVerdict,
    sustain_line,
)

BOUNDS = "ttft_p90_ms<=1500"
ENTRY = CapacityEntry(bounds=BOUNDS, capacity=22)


def test_a_held_capacity_says_so_with_its_sample():
    verdict = ProbeVerdict(10, True, {BOUNDS: 1395.3}, requests=154)
    assert sustain_line(ENTRY, 22, 60.0, verdict) == (
        "sustain: C=22 held for 60 s at ttft_p90_ms<=1500 (154 requests)"
    )


def test_a_capacity_that_did_not_hold_says_what_broke():
    verdict = ProbeVerdict(10, False, {BOUNDS: 2063.2}, ["ttft_p90_ms = 2063.2 > 1500"])
    assert sustain_line(ENTRY, 22, 60.0, verdict) == (
        "sustain: C=22 did not hold for 60 s at ttft_p90_ms<=1500 (ttft_p90_ms = 2063.2 > 1500)"
    )


def test_a_miss_its_sample_cannot_settle_still_holds_and_says_so():
    breach = "ttft_p90_ms = 1661 > 1500"
    verdict = ProbeVerdict(10, False, {BOUNDS: 1661.0}, [breach], requests=120)
    verdict.unsettled = [breach]  # its interval, 1455-1784, holds the threshold
    assert verdict.holds_within_sample
    assert sustain_line(ENTRY, 24, 60.0, verdict) == (
        "sustain: C=24 held for 60 s at ttft_p90_ms<=1500, missed only within its sample's "
        "interval (120 requests)"
    )


def test_a_settled_miss_beside_an_unsettled_one_does_not_hold():
    settled, unsettled = "ttft_p90_ms = 2411 > 1500", "itl_p90_ms = 52 > 50"
    verdict = ProbeVerdict(10, False, {}, [settled, unsettled])
    verdict.unsettled = [unsettled]
    assert not verdict.holds_within_sample


def test_no_capacity_found_says_there_is_nothing_to_hold():
    empty = CapacityEntry(bounds=BOUNDS)
    assert sustain_line(empty, None, 60.0, None) == (
        "sustain: none, no probe met ttft_p90_ms<=1500: no capacity to hold"
    )


def test_the_sustained_verdict_and_the_level_mark_survive_the_manifests_json():
    entry = CapacityEntry(bounds=BOUNDS, capacity=22)
    entry.sustained = CapacityProbe(22, ProbeVerdict(10, True, {BOUNDS: 1395.3}))
    read = CapacityEntry.from_dict(entry.to_dict())
    assert read.sustained is not None and read.sustained.verdict.meets
    level = LevelEntry(10, 22, None, "2026-01-01T00:00:00Z")
    assert "sustain" not in level.to_dict() and "sustained" not in CapacityEntry().to_dict()
    level.sustain = 60.0
    assert LevelEntry.from_dict(level.to_dict()).sustain == 60.0
