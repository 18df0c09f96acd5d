"""--refine-knee: the levels added around the live knee, the ladders that add them (tick by tick
against a fake conductor), the progress line that counts them and the plans that refuse it."""

from __future__ import annotations

import argparse

import pytest

from sparkload import config as options
from sparkload.config import default
from sparkload.errors import ConfigError
from sparkload.records import NO_MARKS, Knee, NoKnee
from sparkload.run.livetable import LevelTally
from sparkload.shapes.knee import KneeRefiner, refinement_levels
from sparkload.shapes.ladder import LadderShape
from sparkload.shapes.progress import progress_line
from sparkload.shapes.steps import StepsShape
from tests.option_namespace import namespace as option_namespace
from tests.sparkload.shapes.test_progress import collector
from tests.sparkload.shapes.test_progress import options as progress_options
from tests.sparkload.test_shapes import FakeConductor


def test_the_levels_added_are_the_rounded_geometric_midpoints_around_the_knee():
    knee = Knee(32, 0.9, 0.46, below=16, above=64)
    assert refinement_levels(knee, {1, 2, 4, 8, 16, 32, 64}) == (23, 45)


def test_a_midpoint_already_measured_is_not_added_again():
    knee = Knee(2, 1.0, 0.2, below=1, above=4)  # sqrt(2) rounds to 1, sqrt(8) to 3
    assert refinement_levels(knee, {1, 2, 4, 8}) == (3,)


def test_no_knee_adds_no_level():
    assert refinement_levels(NoKnee("flat throughout"), {1, 2, 4, 8}) == ()


def level(concurrency: int, tps: float) -> LevelTally:
    """An ended level whose mean TPS makes ``tps`` total tok/s."""
    tally = LevelTally(0, concurrency, 1)
    tally.add({"phase": "measure", "status": "ok", "tps": tps / concurrency, "latency": 1.0})
    return tally


SATURATING = {1: 10.0, 2: 20.0, 4: 40.0, 8: 80.0, 16: 160.0, 32: 200.0, 64: 200.0}


def test_the_refiner_adds_levels_only_after_the_last_planned_level():
    refiner = KneeRefiner(planned=7)
    added = [refiner.level_ended(i, level(c, tps)) for i, (c, tps) in enumerate(SATURATING.items())]
    assert added[:-1] == [()] * 6
    assert isinstance(refiner.knee, Knee) and refiner.knee.level == 16
    assert added[-1] == (11, 23)
    assert [refiner.refines(i) for i in (6, 7)] == [False, True]


class KneeConductor(FakeConductor):
    """Each level's records arrive at once, their mean TPS making ``SATURATING``'s tok/s."""

    def __init__(self) -> None:
        super().__init__()
        self.refining: list[int] = []

    def begin_level(
        self, index, concurrency, expected, arrival_rate=None, sessions=None, marks=NO_MARKS
    ):
        tally = super().begin_level(index, concurrency, expected, arrival_rate, sessions)
        if marks.refines_knee:
            self.refining.append(concurrency)
        self.users = concurrency
        return tally

    def finish(self, index: int) -> None:
        tally = self.tallies[index]
        tps = SATURATING.get(tally.concurrency, 180.0) / tally.concurrency
        tally.add({"phase": "warmup", "status": "ok"})
        for _ in range(tally.expected or 1):
            tally.add({"phase": "measure", "status": "ok", "tps": tps, "latency": 1.0})


def run_ladder(ladder: LadderShape, conductor: KneeConductor) -> list[int]:
    """Tick the ladder through every level (a bounded loop); the concurrencies it ran."""
    for tick in range(200):
        if ladder.index >= len(ladder.levels):
            break
        index = ladder.index
        ladder.tick(conductor, tick)  # begins the level, spawns
        ladder.tick(conductor, tick)  # warms up
        conductor.finish(index)
        ladder.tick(conductor, tick)  # measures, ends
    return [conductor.tallies[i].concurrency for i in sorted(conductor.tallies)]


def test_a_ladder_with_refine_knee_runs_the_levels_around_its_knee_after_its_own():
    planned = tuple(SATURATING)
    ladder = LadderShape(planned, 1, refiner=KneeRefiner(len(planned)))
    conductor = KneeConductor()
    assert run_ladder(ladder, conductor) == [*planned, 11, 23]
    assert conductor.refining == [11, 23]


def test_a_ladder_without_refine_knee_runs_its_levels_only():
    planned = tuple(SATURATING)
    assert run_ladder(LadderShape(planned, 1), KneeConductor()) == list(planned)


def test_a_time_based_ladder_adds_the_levels_after_its_last_step():
    planned = tuple(SATURATING)
    steps = StepsShape(planned, 1.0, default("request_timeout"), KneeRefiner(len(planned)))
    conductor = KneeConductor()
    for second in range(0, 200, 2):  # each level: users ready, its step runs out two seconds on
        if steps.index >= len(steps.levels):
            break
        index = steps.index
        steps.tick(conductor, second)
        conductor.finish(index)
        steps.tick(conductor, second + 1.5)
    assert [conductor.tallies[i].concurrency for i in sorted(conductor.tallies)][-2:] == [11, 23]
    assert conductor.refining == [11, 23]


def test_the_progress_line_counts_the_added_levels():
    ladder = LadderShape((1, 2, 4, 8), 10, refiner=KneeRefiner(4))
    ladder.levels += (3, 6)
    ladder.index = 4
    tally = LevelTally(4, 3, 30)
    line = progress_line(ladder, collector(tally), progress_options(ladder=(1, 2, 4, 8)))
    assert line.startswith("level 5/6 (C=3)")


def namespace(**overrides) -> argparse.Namespace:
    """The options with --refine-knee given, and ``overrides``."""
    return option_namespace(**{"refine_knee": "true", **overrides})


def test_refine_knee_is_taken_with_a_count_based_or_time_based_ladder():
    assert options.from_namespace(namespace()).plan.refine_knee
    assert options.from_namespace(namespace(step_duration="30")).plan.refine_knee


@pytest.mark.parametrize(
    ("given", "message"),
    [
        ({"arrival_rate": "2,4"}, "adds levels to a ladder: drop it, or drop --arrival-rate"),
        ({"find_capacity": "ttft_p90_ms<=800"}, "drop it, or drop --find-capacity"),
        ({"repeat": "2"}, "--refine-knee with --repeat"),
        ({"ladder": "1,2,4"}, "at least 4 levels to find a knee \\(given 1,2,4\\)"),
    ],
)
def test_refine_knee_elsewhere_is_refused_in_one_line(given, message):
    with pytest.raises(ConfigError, match=message):
        options.from_namespace(namespace(**given))
