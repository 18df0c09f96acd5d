"""A scenario's manifest entries: written and read back, and left out of every other run."""

from __future__ import annotations

from sparkload.records import LevelEntry, Manifest, ScenarioEntry, ScenarioPhase


def test_a_scenario_and_its_phases_read_back_as_written():
    phases = [ScenarioPhase("kept", 8, 60.0), ScenarioPhase("churn", 8, 60.0, churn=True)]
    level = LevelEntry(1, 8, None, "2026-01-01T00:00:00Z")
    level.phase = "churn"
    manifest = Manifest(label="x", scenario=ScenarioEntry("churn", phases), levels=[level])
    again = Manifest.from_dict(manifest.to_dict())
    assert again.scenario == ScenarioEntry("churn", phases)
    assert again.levels[0].phase == "churn"


def test_a_run_without_a_scenario_writes_neither_key():
    manifest = Manifest(label="x", levels=[LevelEntry(0, 2, 20, "2026-01-01T00:00:00Z")])
    written = manifest.to_dict()
    assert "scenario" not in written and "phase" not in written["levels"][0]
    assert Manifest.from_dict(written).scenario is None
