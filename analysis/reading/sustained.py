"""``--sustain``'s level (a capacity search's found load held for a while) set apart from the
run's levels: it runs at a concurrency (or rate) a probe already ran, so counted with them it
would merge into that probe's row. The sustain figures and its verdict
(``analysis/figures/sustain.py``, ``--check-level`` of its index) read it alone."""

from __future__ import annotations

import pandas as pd

from sparkload.records import Manifest


def sustain_levels(manifests: list[Manifest]) -> set[tuple[int, int]]:
    """(run, level index) of every level its run's manifest marks as a sustain level."""
    return {
        (run_index, level.index)
        for run_index, manifest in enumerate(manifests)
        for level in manifest.levels
        if level.sustain is not None
    }


def split(records: pd.DataFrame, manifests: list[Manifest]) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(the runs' records, the sustain levels' records, their warm-ups included)."""
    marked = sustain_levels(manifests)
    if not marked or records.empty or "level_index" not in records:
        return records, records.iloc[0:0]
    keys = zip(records["run"], records["level_index"], strict=True)
    apart = pd.Series([key in marked for key in keys], index=records.index)
    return records[~apart].reset_index(drop=True), records[apart].reset_index(drop=True)
