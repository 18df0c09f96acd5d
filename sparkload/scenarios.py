"""The ``--scenario`` load plans, pure: each a short declaration of phases (users sending back
to back for a time, in the target's time), from the scenario's knobs.

Why phases and not a new kind of level: a phase is a time-based step (``shapes/steps.py``'s
RUN stage) with a name and, for churn, a new connection per request; the shape
(``shapes/scenario.py``) runs them and the analysis reads each by its level's index
(``analysis/figures/scenario.py``). L and H are ``--scenario-low`` and ``--scenario-high``, P
``--scenario-phase`` (each scenario's own default when not given), N ``--scenario-cycles``:

    ramp      step1..stepK: L, 2L, 4L, ... up to H (H last), P each
    burst     baseline L for P, burst H for P/3, after L for P
    recovery  baseline L for P, overload H for P/3, after L for 2P
    zigzag    low1 L, high1 H, ... lowN, highN, then low(N+1) L: P each
    churn     kept H for P (kept-alive connections), churn H for P (a connection per request)
    soak      soak H for P (default 10 minutes)
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from sparkload.records.scenario import (
    AFTER_PHASE,
    BASELINE_PHASE,
    BURST_PHASE,
    CHURN_PHASE,
    KEPT_PHASE,
    OVERLOAD_PHASE,
    SCENARIO_BURST,
    SCENARIO_CHURN,
    SCENARIO_RAMP,
    SCENARIO_RECOVERY,
    SCENARIO_SOAK,
    SCENARIO_ZIGZAG,
    SOAK_PHASE,
    ScenarioPhase,
)

DEFAULT_PHASE = 60.0  # target seconds of a phase, when --scenario-phase is not given
DEFAULT_SOAK = 600.0  # a soak's one phase: long enough for drift to show


@dataclass(frozen=True)
class Knobs:
    """What every plan is made from (``config/scenario.py``'s options, settled)."""

    low: int
    high: int
    phase: float  # target seconds; 0: the scenario's own default
    cycles: int


def _ramp(k: Knobs, p: float) -> list[ScenarioPhase]:
    levels = [k.low]
    while levels[-1] * 2 < k.high:
        levels.append(levels[-1] * 2)
    levels.append(k.high)
    return [ScenarioPhase(f"step{i}", c, p) for i, c in enumerate(levels, 1)]


def _burst(k: Knobs, p: float) -> list[ScenarioPhase]:
    return [
        ScenarioPhase(BASELINE_PHASE, k.low, p),
        ScenarioPhase(BURST_PHASE, k.high, p / 3),
        ScenarioPhase(AFTER_PHASE, k.low, p),
    ]


def _recovery(k: Knobs, p: float) -> list[ScenarioPhase]:
    return [
        ScenarioPhase(BASELINE_PHASE, k.low, p),
        ScenarioPhase(OVERLOAD_PHASE, k.high, p / 3),
        ScenarioPhase(AFTER_PHASE, k.low, 2 * p),
    ]


def _zigzag(k: Knobs, p: float) -> list[ScenarioPhase]:
    phases = []
    for n in range(1, k.cycles + 1):
        phases += [ScenarioPhase(f"low{n}", k.low, p), ScenarioPhase(f"high{n}", k.high, p)]
    return [*phases, ScenarioPhase(f"low{k.cycles + 1}", k.low, p)]


def _churn(k: Knobs, p: float) -> list[ScenarioPhase]:
    return [ScenarioPhase(KEPT_PHASE, k.high, p), ScenarioPhase(CHURN_PHASE, k.high, p, True)]


def _soak(k: Knobs, p: float) -> list[ScenarioPhase]:
    return [ScenarioPhase(SOAK_PHASE, k.high, p)]


# name -> (its phases from the knobs and its phase length, its default phase length)
PLANS: dict[str, tuple[Callable[[Knobs, float], list[ScenarioPhase]], float]] = {
    SCENARIO_RAMP: (_ramp, DEFAULT_PHASE),
    SCENARIO_BURST: (_burst, DEFAULT_PHASE),
    SCENARIO_RECOVERY: (_recovery, DEFAULT_PHASE),
    SCENARIO_ZIGZAG: (_zigzag, DEFAULT_PHASE),
    SCENARIO_CHURN: (_churn, DEFAULT_PHASE),
    SCENARIO_SOAK: (_soak, DEFAULT_SOAK),
}


def phases(name: str, knobs: Knobs) -> tuple[ScenarioPhase, ...]:
    """The scenario's phases in order, one level each (KeyError: not a scenario's name)."""
    plan, default = PLANS[name]
    return tuple(plan(knobs, knobs.phase or default))
