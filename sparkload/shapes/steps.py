"""Time-based steps: each level runs for a fixed time, users sending back to back (exploratory)."""

from __future__ import annotations

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
    ) -> None:
        self.levels = levels
        self.refiner = refiner  # --refine-knee: adds levels after the last one
        self.tally: LevelTally | None = None
        self.step_duration = step_duration
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

    def tick(self, conductor: Conductor, now: float) -> Tick:
        if self.index >= len(self.levels):
            self.finished = self.drain.done(conductor, now)
            return None if self.finished else (self.levels[-1], SPAWN_RATE)
        c = self.levels[self.index]
        if not self.level_begun:
            refines = self.refiner is not None and self.refiner.refines(self.index)
            self.tally = conductor.begin_level(self.index, c, None, refines_knee=refines)
            self.level_begun = True
        if self.step_started is None:
            if conductor.users_ready(c):  # the step's time starts once all its users run
                conductor.broadcast(Stage(RUN, self.index, c))
                self.step_started = now
        elif now - self.step_started >= self.step_duration:
            return self.tick(conductor, after(now, lambda: self._end_step(conductor)))
        return (c, SPAWN_RATE)

    def _end_step(self, conductor: Conductor) -> None:
        conductor.end_level(self.index)
        if self.refiner is not None and self.tally is not None:
            self.levels += self.refiner.level_ended(self.index, self.tally)
        self.index += 1
        self.level_begun = False
        self.step_started = None
        if self.index >= len(self.levels):
            conductor.broadcast(Stage())  # stop sending; in-flight requests still finish
