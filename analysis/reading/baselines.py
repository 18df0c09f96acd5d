"""``--tenant-baselines``' levels (each traffic class alone before the mix) set apart from the
run's levels, so that no table of the run counts them as a level of the ladder; the Tenants
section sets them beside the mix (``analysis/figures/tenants.py``)."""

from __future__ import annotations

import pandas as pd

from analysis.reading import text_columns
from sparkload.records import PHASE_BASELINE


def split(records: pd.DataFrame) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(the run's records, the baselines' records): every record of a level that holds a
    baseline record, its warm-up included, goes with the baselines."""
    if "phase" not in records or records.empty:
        return records, records.iloc[0:0]
    marked = text_columns.equals(records["phase"], PHASE_BASELINE)
    if not marked.any():
        return records, records.iloc[0:0]
    levels = set(
        zip(
            records["run"].to_numpy()[marked],
            records["level_index"].to_numpy()[marked],
            strict=True,
        )
    )
    apart = pd.Series(
        [key in levels for key in zip(records["run"], records["level_index"], strict=True)],
        index=records.index,
    )
    return records[~apart].reset_index(drop=True), records[apart].reset_index(drop=True)
