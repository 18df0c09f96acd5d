"""Worker clock offsets from round trips, and records put on the master's clock (pure)."""

from __future__ import annotations

import pytest

from sparkload.clock_offsets import MOVE_LIMIT, START, Reading, RoundTrip, moved, reading
from sparkload.records import ClockReading, Manifest, RefusedWorker, WorkerEntry, on_master_clock


def test_the_offset_is_the_workers_clock_against_the_middle_of_the_round_trip():
    trip = RoundTrip(sent=100.0, worker=102.004, back=100.008)
    assert trip.rtt == pytest.approx(0.008)
    assert trip.offset == pytest.approx(2.0)


def test_a_reading_takes_the_shortest_round_trip():
    slow = RoundTrip(100.0, 102.09, 100.1)  # a busy loop answered late: offset 2.04, rtt 0.1
    fast = RoundTrip(101.0, 103.001, 101.002)
    assert reading(START, [slow, fast]) == Reading(START, pytest.approx(2.0), pytest.approx(0.002))


def test_no_answer_is_no_reading():
    assert reading(3, []) is None


def test_a_move_within_the_round_trips_uncertainty_and_the_limit_is_no_move():
    before = Reading(START, 2.0, 0.004)
    assert moved(before, Reading(0, 2.0 + MOVE_LIMIT + 0.003, 0.004)) is None


def test_a_step_beyond_the_limit_and_the_uncertainty_is_a_move():
    change = moved(Reading(START, 2.0, 0.001), Reading(1, 1.5, 0.001))
    assert change == pytest.approx(-0.5)


def test_a_workers_record_is_put_on_the_masters_clock_and_says_by_how_much():
    record = {"start_time": 1002.5, "scheduled_time": 1002.25, "ttft": 0.3, "latency": 2.0}
    shifted = on_master_clock(record, 2.0)
    assert shifted == {
        "start_time": 1000.5,
        "scheduled_time": 1000.25,
        "ttft": 0.3,
        "latency": 2.0,
        "clock_offset": 2.0,
    }
    assert record["start_time"] == 1002.5  # the worker's own record is left as it was


def test_a_closed_loop_record_without_a_scheduled_time_keeps_none():
    assert (
        on_master_clock({"start_time": 5.0, "scheduled_time": None}, 1.0)["scheduled_time"] is None
    )


def test_the_manifest_keeps_every_workers_clock_through_a_round_trip():
    entry = WorkerEntry(
        "host_abc",
        1,
        hostname="host",
        clock_offset=2.0,
        clock_rtt=0.001,
        clock_readings=[ClockReading("start", 2.0, 0.001)],
        clock_flags=["moved"],
    )
    manifest = Manifest("run", workers=[entry], refused_workers=[RefusedWorker("x", reason="r")])
    assert Manifest.from_dict(manifest.to_dict()) == manifest


def test_a_manifest_written_before_worker_clocks_reads_with_no_workers():
    assert Manifest.from_dict({"label": "old"}).workers == []
