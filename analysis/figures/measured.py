"""The requests every per-level figure is computed from: a level's measured requests that were
answered (``metrics`` and every table that groups records by level ask for them)."""

from __future__ import annotations

import weakref
from typing import Protocol

import numpy as np
import pandas as pd


class Settings(Protocol):
    """What of ``metrics.Settings`` the selection reads (no import of metrics, which imports
    this module)."""

    @property
    def itl_null_as_zero(self) -> bool: ...


def measured_ok(records: pd.DataFrame, settings: Settings) -> pd.DataFrame:
    """The requests every metric is computed from, with the compatibility switch applied.

    A dozen tables ask for those of the same records; the last answer is kept while those
    records live (at 10,000,000 records each selection copied a gigabyte of columns)."""
    last = _MEASURED_OK.get("last")
    if last is not None and last[0]() is records and last[1] == settings:
        return last[2]
    frame = records[records["measure"].to_numpy() & records["ok"].to_numpy()]
    if settings.itl_null_as_zero:
        frame = frame.assign(itl=frame["itl"].fillna(0.0))
    _MEASURED_OK["last"] = (weakref.ref(records), settings, frame)
    return frame


_MEASURED_OK: dict[str, tuple] = {}  # "last": (the records, weakly; the settings; their rows)


class FloatColumns(dict):
    """A frame's columns as float arrays, each made when first asked for: a plain run's frame
    holds some forty sparse all-NaN columns (``reading/pooled.py``), 3.2 GB at 10,000,000
    records had they all been made dense at once."""

    def __init__(self, frame: pd.DataFrame) -> None:
        super().__init__()
        self.frame = frame

    def __missing__(self, name: str) -> np.ndarray:
        values = self[name] = self.frame[name].to_numpy(np.float64)
        return values
