"""What the manifests say of each level, keyed as the summary keys it: (label, C) or, for an
open-loop level, (label, offered rate). The records say what was measured; these say what the
load side noticed (flags), planned (schedules) and stopped (a sweep's saturation)."""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np

from analysis.reading.load import Dataset, Run
from sparkload.records import LevelEntry, Schedule

# LevelEntry fields, one summary column each: the lists of flags, and what showed a level
# over-saturated (``saturation_stop`` beside it: its arrivals were stopped there, the sweep's end)
FLAG_KINDS = ("client_flags", "stream_flags", "saturation")
# ... and ``stream_flag_kinds``: the STREAM_* names of a level's stream flags, space-separated


def manifest_levels(dataset: Dataset) -> Iterator[tuple[Run, LevelEntry, float]]:
    """Every level of every run's manifest with its key in the summary: C, or the offered rate
    of an open-loop level (NaN when its rate is unknown)."""
    for run in dataset.runs:
        rates = run.offered_rates() if run.open_loop else {}
        for level in run.manifest.levels:
            yield run, level, rates.get(level.index, np.nan) if run.open_loop else level.concurrency


def level_flags(dataset: Dataset, kind: str) -> dict[tuple[str, float], list[str]]:
    """(label, level key: C or offered rate) -> a level's flags of one kind (``FLAG_KINDS``)
    from the manifests: what the load generator's self-monitor or the stream shape said."""
    flags: dict[tuple[str, float], list[str]] = {}
    for run, level, key in manifest_levels(dataset):
        if found := getattr(level, kind):
            flags.setdefault((run.label, key), []).extend(
                [found] if isinstance(found, str) else found
            )
    return flags


def level_schedules(dataset: Dataset) -> dict[tuple[str, float], list[Schedule]]:
    """(label, offered rate) -> the whole schedules the manifests keep for its levels."""
    schedules: dict[tuple[str, float], list[Schedule]] = {}
    for run, level, key in manifest_levels(dataset):
        if run.open_loop and level.schedule is not None:
            schedules.setdefault((run.label, key), []).append(level.schedule)
    return schedules


def saturation_stops(dataset: Dataset) -> set[tuple[str, float]]:
    """(label, level key) of the levels where a sweep stopped as over-saturated (the
    manifest's ``saturated_at``): their arrivals ended early and no later level ran."""
    return {
        (run.label, key)
        for run, level, key in manifest_levels(dataset)
        if level.index == run.manifest.saturated_at
    }
