"""The run's load shape, chosen by the kind of plan: one entry per kind, in one table.

As guidellm's profiles and aiperf's timing strategies register, each kind of plan names the
factory that builds its shape from the run's context (``SHAPES``); a new load shape is a module
with its shape class and a ``for_run(context)``, and a line here. ``--repeat N`` runs the whole
plan N times back to back: each factory repeats its levels.
"""

from __future__ import annotations

from collections.abc import Callable

from sparkload.config import ARRIVAL, LADDER, STEPS, RunOptions
from sparkload.run.context import RunContext
from sparkload.shapes import Shape
from sparkload.shapes.arrival import ArrivalShape
from sparkload.shapes.ladder import LadderShape
from sparkload.shapes.scenario import ScenarioShape
from sparkload.shapes.search import search_shape
from sparkload.shapes.steps import StepsShape

TRACE, SEARCH, SCENARIO = "trace", "search", "scenario"

SHAPES: dict[str, Callable[[RunContext], Shape]] = {
    LADDER: LadderShape.for_run,
    STEPS: StepsShape.for_run,
    ARRIVAL: ArrivalShape.for_run,
    TRACE: ArrivalShape.for_trace,
    SEARCH: search_shape,
    SCENARIO: ScenarioShape.for_run,
}


def plan_kind(options: RunOptions) -> str:
    """A scenario, a trace replay, a capacity search (closed or open loop), else the plan's
    mode."""
    if options.scenario.scenario:
        return SCENARIO
    if options.plan.trace is not None:
        return TRACE
    if options.plan.searches:
        return SEARCH
    return options.plan.mode


def shape_for(context: RunContext) -> Shape:
    """The load shape of the run's plan."""
    return SHAPES[plan_kind(context.options)](context)
