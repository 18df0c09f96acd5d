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


def measured_ok_positions(records: pd.DataFrame, by: list[str]) -> dict[tuple, np.ndarray]:
    """Per group of ``by`` that has any, the positions in ``records`` of its measured requests
    that were answered: the groups of ``measured_ok``'s rows without copying the rows (a
    gigabyte at 10,000,000 records); read their columns with ``FloatColumns(records)``."""
    return measured_ok_of(records, records.groupby(by, observed=True).indices)


def measured_ok_of(records: pd.DataFrame, groups: dict[tuple, np.ndarray]) -> dict:
    """``measured_ok_positions`` of groups already made (positions in ``records``)."""
    chosen = records["measure"].to_numpy() & records["ok"].to_numpy()
    return {key: index[chosen[index]] for key, index in groups.items() if chosen[index].any()}


class FloatColumns(dict):
    """A frame's columns as float arrays, each made when first asked for, with the
    compatibility switch applied (``itl_null_as_zero``, as ``measured_ok`` does). A column no
    record has a value in (sparse, ``reading/pooled.py``) reads as NaN without memory per
    record: a plain run's frame holds some forty, 3.2 GB at 10,000,000 records made dense."""

    def __init__(self, frame: pd.DataFrame, itl_null_as_zero: bool = False) -> None:
        super().__init__()
        self.frame = frame
        self.itl_null_as_zero = itl_null_as_zero

    def __missing__(self, name: str) -> np.ndarray:
        column = self.frame[name]
        if isinstance(column.dtype, pd.SparseDtype) and column.array.npoints == 0:
            values = np.broadcast_to(np.float64(np.nan), len(column))  # NaN read where indexed
        else:
            values = column.to_numpy(np.float64)
        if name == "itl" and self.itl_null_as_zero:
            values = np.nan_to_num(values, nan=0.0)
        self[name] = values
        return values
