"""The knee end to end (must-show 2): the simulator's fp8 profile over a ladder of 1 to 64 with
--refine-knee (one run for both, to keep it short); the ladder's knee against its own growth,
the knee summary.json names over every level, and the levels added around the live knee."""

from __future__ import annotations

import math

import pytest

from sparkload.records import Knee, find_knee
from tests.conftest import LocustRun, run_locust
from tests.report_files import report_summary

pytestmark = pytest.mark.e2e  # starts Locust and the simulator

LADDER = (1, 2, 4, 8, 16, 32, 64)


@pytest.fixture(scope="module")
def refined(tmp_path_factory) -> tuple[LocustRun, dict]:
    """2 requests per user of 32 tokens at 20x: about 30 s. The run and its summary.json."""
    run = run_locust(
        [
            "--headless",
            "--sim-profile",
            "fp8",
            "--ladder",
            ",".join(map(str, LADDER)),
            "--refine-knee",
            "--requests-per-user",
            "2",
            "--max-tokens",
            "32",
            "--sim-time-scale",
            "20",
        ],
        tmp_path_factory.mktemp("knee"),
        timeout=300,
    )
    assert run.returncode == 0 and run.run_dir is not None, run.output
    return run, report_summary(run.run_dir)


def ladder_throughput(summary: dict) -> list[float]:
    by_c = {level["concurrency"]: level["total_tps"] for level in summary["levels"]}
    return [by_c[c] for c in LADDER]


def test_the_knee_is_within_one_step_of_the_first_level_that_grew_less_than_1_5x(refined):
    """Must-show 2, on the ladder's own levels: the knee the report names for this ladder run
    without --refine-knee (the report's function, on summary.json's figures)."""
    _, summary = refined
    tps = ladder_throughput(summary)
    first = next(i for i in range(1, len(tps)) if tps[i] < 1.5 * tps[i - 1])
    knee = find_knee(list(zip(LADDER, tps, strict=True)))
    assert isinstance(knee, Knee) and abs(LADDER.index(int(knee.level)) - first) <= 1


def test_the_report_names_a_knee_over_every_level_measured(refined):
    run, summary = refined
    (knee,) = summary["knees"]
    measured = {level["concurrency"] for level in run.manifest["levels"]}
    assert knee["knee"] in measured and knee["below"]["key"] < knee["knee"] < knee["above"]["key"]


def test_the_levels_added_are_those_around_the_live_knee_and_marked_so(refined):
    run, _ = refined
    levels = run.manifest["levels"]
    planned = [level for level in levels if not level.get("refines_knee")]
    added = [level["concurrency"] for level in levels if level.get("refines_knee")]
    assert [level["concurrency"] for level in planned] == list(LADDER)
    (line,) = [line for line in run.output.splitlines() if "--refine-knee: live knee at" in line]
    live = float(line.split("live knee at C=")[1].split(";")[0])
    neighbours = LADDER[LADDER.index(live) - 1], LADDER[LADDER.index(live) + 1]
    expected = {round(math.sqrt(live * side)) for side in neighbours}
    assert set(added) == expected and len(levels) == len(LADDER) + len(added)


def test_the_report_names_the_added_levels(refined):
    run, summary = refined
    (knee,) = summary["knees"]
    assert sorted(knee["refined"]) == sorted(
        level["concurrency"] for level in run.manifest["levels"] if level.get("refines_knee")
    )
