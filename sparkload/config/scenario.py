"""``--scenario``'s options: a named load plan of phases (``sparkload/scenarios.py``) in place of
the ladder, and the knobs every plan is made from.

A scenario brings its own levels and timing, so the options of every other plan are refused
beside it (``ScenarioOptions.check``; a value equal to its default cannot be told from none).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from sparkload.config.option import PLAN, Option
from sparkload.config.parsers import duration, whole
from sparkload.config.plan import ROWS as PLAN_ROWS
from sparkload.config.plan import PlanOptions
from sparkload.errors import ConfigError
from sparkload.records.scenario import SCENARIO_NAMES, ScenarioPhase
from sparkload.scenarios import Knobs, phases

SCENARIO = "scenario"  # the manifest's mode of a scenario's run (``RunOptions.mode``)


def scenario_name(flag: str, value: Any) -> str:
    """One of the scenarios' names, or "" (none)."""
    name = str(value or "").strip()
    if name and name not in SCENARIO_NAMES:
        raise ConfigError(
            f"{flag}: {name!r} is not a scenario: give one of {', '.join(SCENARIO_NAMES)}"
        )
    return name


ROWS: tuple[Option, ...] = (
    Option(
        "--scenario",
        "",
        "Run a named load plan of phases instead of the ladder, users sending back to back in "
        "each (docs/scenarios.md): ramp (C doubling from low to high), burst (low, a short "
        "high burst, low), recovery (low, an overload, low until TTFT recovers: the recovery "
        "time), zigzag (low and high alternating), churn (high with kept connections, then a "
        "new connection per request), soak (one long high phase: steady-state windows)",
        PLAN,
        scenario_name,
    ),
    Option(
        "--scenario-low",
        2,
        "Scenario: the low phases' concurrency (a ramp's first step)",
        PLAN,
        whole,
    ),
    Option(
        "--scenario-high",
        32,
        "Scenario: the high phases' concurrency (a burst's, an overload's, a ramp's last step, "
        "churn's and soak's)",
        PLAN,
        whole,
    ),
    Option(
        "--scenario-phase",
        "0",
        "Scenario: a phase's length in the target's time, with its unit (90s, 5m); a burst or "
        "overload lasts a third of it, recovery's after phase twice it (0: 60s, a soak's 10m)",
        PLAN,
        duration,
    ),
    Option(
        "--scenario-cycles",
        3,
        "Scenario zigzag: low/high cycles (a last low phase follows them)",
        PLAN,
        whole,
    ),
)
_DEFAULT = {row.dest: row.value(None) for row in (*ROWS, *PLAN_ROWS)}


@dataclass(frozen=True)
class ScenarioOptions:
    scenario: str  # "" : no scenario (the plan's ladder, steps or open loop)
    scenario_low: int
    scenario_high: int
    scenario_phase: float  # target seconds; 0: the scenario's own
    scenario_cycles: int

    @property
    def phases(self) -> tuple[ScenarioPhase, ...]:
        """The scenario's phases in order, one level each (empty: no scenario)."""
        if not self.scenario:
            return ()
        knobs = Knobs(
            self.scenario_low, self.scenario_high, self.scenario_phase, self.scenario_cycles
        )
        return phases(self.scenario, knobs)

    def check(self, plan: PlanOptions) -> None:
        """The scenario's rules across options: a ConfigError of one line naming the conflict."""
        knobs = [row.flag for row in ROWS[1:] if getattr(self, row.dest) != _DEFAULT[row.dest]]
        if not self.scenario:
            if knobs:
                raise ConfigError(f"{knobs[0]} shapes a scenario: give --scenario NAME")
            return
        if self.scenario_low >= self.scenario_high:
            raise ConfigError(
                f"--scenario-low {self.scenario_low} must be below --scenario-high "
                f"{self.scenario_high}"
            )
        given = {
            "--arrival-rate": bool(plan.arrival_rate),
            "--trace": plan.trace is not None,
            "--find-capacity": bool(plan.find_capacity),
            "--tier": bool(plan.tiers),
            "--step-duration": plan.step_duration > 0,
            "--ladder": plan.ladder != _DEFAULT["ladder"],
            "--requests-per-user": plan.requests_per_user != _DEFAULT["requests_per_user"],
        }
        clash = [flag for flag, present in given.items() if present]
        if clash:
            raise ConfigError(
                f"--scenario {self.scenario} brings its own phases (their users and lengths: "
                f"--scenario-low/-high/-phase): drop {', '.join(clash)}"
            )
