"""Time-based steps: each level runs for a fixed time, users sending back to back (exploratory).

The same shape holds a capacity search's found concurrency for ``--sustain`` (``search.py``):
one step, numbered after the search's probes, its manifest entry marked as the sustain level.
"""

from __future__ import annotations

from sparkload.run.context import RunContext
from sparkload.shapes import SPAWN_RATE, Conductor, Tick, after
from sparkload.shapes.drain import Drain
from sparkload.stages import RUN, Stage


class StepsShape:
    def __init__(
        self,
        levels: tuple[int, ...],
        step_duration: float,
        request_timeout: float,
        first_index: int = 0,
        sustain: float | None = None,
    ) -> None:
        self.levels = levels
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
            plan.ladder * plan.repeat, plan.step_duration, context.options.request.request_timeout
        )

    @property
    def level_index(self) -> int:
        """The run's number of the step under way."""
        return self.first_index + self.index

    def tick(self, conductor: Conductor, now: float) -> Tick:
        if self.index >= len(self.levels):
            self.finished = self.drain.done(conductor, now)
            return None if self.finished else (self.levels[-1], SPAWN_RATE)
        c = self.levels[self.index]
        if not self.level_begun:
            conductor.begin_level(self.level_index, c, None, sustain=self.sustain)
            self.level_begun = True
        if self.step_started is None:
            if conductor.users_ready(c):  # the step's time starts once all its users run
                conductor.broadcast(Stage(RUN, self.level_index, c))
                self.step_started = now
        elif now - self.step_started >= self.step_duration:
            return self.tick(conductor, after(now, lambda: self._end_step(conductor)))
        return (c, SPAWN_RATE)

    def _end_step(self, conductor: Conductor) -> None:
        conductor.end_level(self.level_index)
        self.index += 1
        self.level_begun = False
        self.step_started = None
        if self.index >= len(self.levels):
            conductor.broadcast(Stage())  # stop sending; in-flight requests still finish
