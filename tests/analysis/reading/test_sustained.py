"""A --sustain level's records set apart from the run's levels (it runs at a probe's load)."""

from __future__ import annotations

import pandas as pd

from analysis.reading import sustained
from sparkload.records import LevelEntry, Manifest


def manifest(*sustain: float | None) -> Manifest:
    levels = []
    for index, seconds in enumerate(sustain):
        level = LevelEntry(index, 8, None, "2026-01-01T00:00:00Z")
        if seconds is not None:
            level.sustain = seconds
        levels.append(level)
    return Manifest(levels=levels)


def records(levels: list[int], run: int = 0) -> pd.DataFrame:
    return pd.DataFrame({"run": run, "level_index": levels, "ttft": 0.1})


def test_the_sustain_levels_records_go_apart_the_others_stay():
    kept, apart = sustained.split(records([0, 1, 1, 2, 2]), [manifest(None, None, 60.0)])
    assert list(kept["level_index"]) == [0, 1, 1]
    assert list(apart["level_index"]) == [2, 2]


def test_a_run_without_a_sustain_level_keeps_every_record():
    frame = records([0, 1])
    kept, apart = sustained.split(frame, [manifest(None, None)])
    assert kept is frame and apart.empty


def test_only_the_marked_runs_level_goes_apart():
    frame = pd.concat([records([0, 1], run=0), records([0, 1], run=1)], ignore_index=True)
    kept, apart = sustained.split(frame, [manifest(None, None), manifest(None, 30.0)])
    assert list(zip(apart["run"], apart["level_index"], strict=True)) == [(1, 1)]
    assert len(kept) == 3
