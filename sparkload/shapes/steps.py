"""Time-based steps: each level runs for a fixed time, users sending back to back (exploratory).

The same shape holds a capacity search's found concurrency for ``--sustain`` (``search.py``):
one step, numbered after the search's probes, its manifest entry marked as the sustain level.
"""

from __future__ import annotations

from sparkload.records import LevelMarks
from sparkload.run.context import RunContext
from sparkload.run.livetable import LevelTally
from sparkload.shapes import SPAWN_RATE, Conductor, Tick, after
from sparkload.shapes.drain import Drain
from sparkload.shapes.knee import KneeRefiner
from sparkload.stages import RUN, Stage


class StepsShape:
    def __init__(
        self,
        levels: tuple[int, ...],
        step_duration: float,
        request_timeout: float,
        refiner: KneeRefiner | None = None,
        first_index: int = 0,
        sustain: float | None = None,
    ) -> None:
        self.levels = levels
        self.refiner = refiner  # --refine-knee: adds levels after the last one
        self.tally: LevelTally | None = None
        self.step_duration = step_duration  # real seconds
        self.first_index = first_index  # the run's number of the first step (after a search's)
        self.sustain = sustain  # --sustain's target seconds: the steps hold a found load
        self.index = 0
        self.level_begun = False
        self.step_started: float | None = None
        self.drain = Drain(timeout=request_timeout + 5.0)
        self.finished = False

    @classmethod
    def for_run(cls, context: RunContext) -> StepsShape:
        plan = context.options.plan
        return cls(
            plan.ladder * plan.repeat,
            plan.step_duration,
            context.options.request.request_timeout,
            KneeRefiner(len(plan.ladder)) if plan.refine_knee else None,
        )

    @property
    def level_index(self) -> int:
        """The run's number of the step under way."""
        return self.first_index + self.index

    def duration(self, index: int) -> float:
        """Real seconds level ``index`` runs once all its users run."""
        return self.step_duration

    @property
    def users(self) -> int:
        """Locust's user count now: the current level's C."""
        return self.levels[min(self.index, len(self.levels) - 1)]

    def begin(self, conductor: Conductor) -> None:
        refines = self.refiner is not None and self.refiner.refines(self.index)
        marks = LevelMarks(refines_knee=refines, sustain=self.sustain)
        self.tally = conductor.begin_level(
            self.level_index, self.levels[self.index], None, marks=marks
        )

    def stage(self) -> Stage:
        return Stage(RUN, self.level_index, self.levels[self.index])

    def tick(self, conductor: Conductor, now: float) -> Tick:
        if self.index >= len(self.levels):
            self.finished = self.drain.done(conductor, now)
            return None if self.finished else (self.users, SPAWN_RATE)
        if not self.level_begun:
            self.begin(conductor)
            self.level_begun = True
        if self.step_started is None:
            if conductor.users_ready(self.users):  # the step's time starts once all its users run
                conductor.broadcast(self.stage())
                self.step_started = now
        elif now - self.step_started >= self.duration(self.index):
            return self.tick(conductor, after(now, lambda: self._end_step(conductor)))
        return (self.users, SPAWN_RATE)

    def _end_step(self, conductor: Conductor) -> None:
        conductor.end_level(self.level_index)
        if self.refiner is not None and self.tally is not None:
            self.levels += self.refiner.level_ended(self.index, self.tally)
        self.index += 1
        self.level_begun = False
        self.step_started = None
        if self.index >= len(self.levels):
            conductor.broadcast(Stage())  # stop sending; in-flight requests still finish
