"""A ``--scenario``: its phases (``sparkload/scenarios.py``) as time-based steps, a level each.

A phase is a step of its own length (target seconds, run in real seconds / time scale), named in
its level's manifest entry. Locust's users stay at the highest phase's count so far and the users
above a phase's C idle (``Stage.idle_above``): a phase lower than the one before lets its extra
users finish the request they hold (filed under the phase that sent it) instead of killing them
mid-stream, so every issued request is answered and the overload's tail is measured. A churn
phase's stage tells every user to open a new connection per request (``Stage.churn``).
"""

from __future__ import annotations

from sparkload.records.manifest import LevelMarks
from sparkload.records.scenario import ScenarioPhase
from sparkload.run.context import RunContext
from sparkload.shapes import Conductor
from sparkload.shapes.steps import StepsShape
from sparkload.stages import RUN, Stage


class ScenarioShape(StepsShape):
    def __init__(
        self, phases: tuple[ScenarioPhase, ...], time_scale: float, request_timeout: float
    ) -> None:
        super().__init__(tuple(p.concurrency for p in phases), 0.0, request_timeout)
        self.phases = phases
        self.time_scale = time_scale

    @classmethod
    def for_run(cls, context: RunContext) -> ScenarioShape:
        opts = context.options
        phases = opts.scenario.phases * opts.plan.repeat
        return cls(phases, context.time_scale, opts.request.request_timeout)

    def duration(self, index: int) -> float:
        return self.phases[index].duration / self.time_scale

    @property
    def users(self) -> int:
        """The most users any phase so far had: a lower phase's extra users idle."""
        return max(self.levels[: min(self.index, len(self.levels) - 1) + 1])

    def begin(self, conductor: Conductor) -> None:
        phase = self.phases[self.index]
        conductor.begin_level(
            self.index, phase.concurrency, None, marks=LevelMarks(phase=phase.name)
        )

    def stage(self) -> Stage:
        phase = self.phases[self.index]
        return Stage(RUN, self.index, phase.concurrency, idle_above=True, churn=phase.churn)
