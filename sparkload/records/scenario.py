"""A ``--scenario`` run as the manifest keeps it: the scenario's name and its phases.

Each phase is one level of the run (its ``LevelEntry.phase`` names it); the same concurrency
may come twice (recovery's baseline and after), so the analysis tells phases apart by their
level's index, not by C. The names are shared: the load side plans by them, the analysis reads
its figures by them (``analysis/figures/scenario.py``).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from sparkload.records.codec import Entry

SCENARIO_RAMP, SCENARIO_BURST, SCENARIO_RECOVERY = "ramp", "burst", "recovery"
SCENARIO_ZIGZAG, SCENARIO_CHURN, SCENARIO_SOAK = "zigzag", "churn", "soak"
SCENARIO_NAMES = (
    SCENARIO_RAMP,
    SCENARIO_BURST,
    SCENARIO_RECOVERY,
    SCENARIO_ZIGZAG,
    SCENARIO_CHURN,
    SCENARIO_SOAK,
)
# The phases' names the figures look for (a ramp's and a zigzag's are numbered: step1, low1, ...)
BASELINE_PHASE, BURST_PHASE, OVERLOAD_PHASE, AFTER_PHASE = "baseline", "burst", "overload", "after"
KEPT_PHASE, CHURN_PHASE, SOAK_PHASE = "kept", "churn", "soak"


@dataclass
class ScenarioPhase(Entry):
    """One phase: its name, its users (back to back), its length in the target's seconds, and
    whether every request opens a connection of its own (``churn``)."""

    name: str
    concurrency: int
    duration: float
    churn: bool = False


@dataclass
class ScenarioEntry(Entry):
    """``--scenario``: which plan ran, and its phases in order (one level each)."""

    name: str = ""
    phases: list[ScenarioPhase] = field(default_factory=list)
