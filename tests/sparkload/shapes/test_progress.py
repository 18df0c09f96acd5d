"""The progress line: level, requests done, elapsed and time left, never a negative time."""

from __future__ import annotations

import time
from types import SimpleNamespace

import pytest

from sparkload.config import default
from sparkload.records import ScenarioPhase
from sparkload.run.livetable import LevelTally
from sparkload.shapes.arrival import ArrivalShape
from sparkload.shapes.ladder import LadderShape
from sparkload.shapes.progress import progress_line
from sparkload.shapes.scenario import ScenarioShape
from sparkload.shapes.steps import StepsShape


def options(**changed) -> SimpleNamespace:
    base = {"mode": "ladder", "ladder": (1, 2), "arrival_rate": (), "repeat": 1}
    merged = {**base, **changed}
    levels = len(merged["arrival_rate"] or merged["ladder"])
    return SimpleNamespace(
        plan=SimpleNamespace(**merged, level_count=levels),
        level_count=levels,
        scenario=SimpleNamespace(scenario=merged.get("scenario", "")),
    )


def collector(*tallies: LevelTally, started_ago: float = 100.0) -> SimpleNamespace:
    return SimpleNamespace(
        tallies={t.index: t for t in tallies},
        started=time.monotonic() - started_ago,
        time_scale=1.0,
    )


def tally(index: int, c: int, expected: int | None, measured: int, latency: float) -> LevelTally:
    level = LevelTally(index, c, expected)
    for _ in range(measured):
        level.add({"phase": "measure", "status": "ok", "latency": latency})
    return level


def test_the_ladder_line_names_level_count_and_time_left():
    shape = LadderShape((1, 2), requests_per_user=10)
    line = progress_line(shape, collector(tally(0, 1, 10, 4, 2.0)), options())
    # 6 requests of 2 s left here, then 10 rounds of 2 s at C=2, plus a level change of 2 s
    assert line == "level 1/2 (C=1): 4/10 requests · elapsed 1:40 · about 0:34 left"


def test_the_last_level_complete_is_finishing_not_a_negative_time():
    shape = LadderShape((1, 2), requests_per_user=10)
    shape.index = 2  # both levels ended; in-flight requests drain
    line = progress_line(shape, collector(tally(1, 2, 20, 20, 9.0)), options())
    assert line.endswith("· finishing") and "-" not in line.split("elapsed")[1]


@pytest.mark.parametrize("seconds_into_step", [0.0, 30.0, 500.0])
def test_a_time_based_step_counts_down_its_clock_and_never_below_zero(seconds_into_step):
    shape = StepsShape((4, 8), step_duration=60.0, request_timeout=default("request_timeout"))
    shape.step_started = time.monotonic() - seconds_into_step
    line = progress_line(shape, collector(tally(0, 4, None, 7, 1.0)), options(ladder=(4, 8)))
    left = line.split("about ")[1].removesuffix(" left")
    minutes, seconds = left.split(":")
    assert int(minutes) * 60 + int(seconds) == round(max(60 - seconds_into_step, 0) + 62)


def test_a_scenario_line_names_its_phase_and_counts_down_every_phases_own_length():
    phases = (ScenarioPhase("baseline", 2, 60.0), ScenarioPhase("overload", 32, 20.0))
    shape = ScenarioShape(phases, time_scale=10.0, request_timeout=default("request_timeout"))
    shape.step_started = time.monotonic() - 1.0  # 1 s of the baseline's 6 real seconds
    line = progress_line(shape, collector(tally(0, 2, None, 3, 1.0)), options(scenario="recovery"))
    # 5 s of the baseline left, then the overload's 2 real seconds and a level change of 2 s
    assert line.startswith("recovery phase 1/2 baseline (C=2): 3 requests")
    assert line.endswith("about 0:09 left")


def test_an_open_loop_line_names_the_rate_and_counts_down_its_arrival_time():
    shape = ArrivalShape((2.0,), users=8, duration=30.0, request_timeout=10.0)
    shape.started = time.monotonic() - 10.0
    opts = options(mode="arrival", arrival_rate=(2.0,))
    level = tally(0, 8, None, 20, 1.0)
    level.arrival_rate = 2.0
    line = progress_line(shape, collector(level), opts)
    assert line == "level 1/1 (2/s): 20 requests · elapsed 1:40 · about 0:20 left"
