"""The requests every per-level figure is computed from: a level's measured requests that were
answered (``metrics`` and every table that groups records by level ask for them)."""

from __future__ import annotations

from typing import Any, Protocol

import numpy as np
import pandas as pd


class Settings(Protocol):
    """What of ``metrics.Settings`` the selection reads (no import of metrics, which imports
    this module)."""

    @property
    def itl_null_as_zero(self) -> bool: ...


def measured_ok(records: pd.DataFrame, settings: Settings) -> pd.DataFrame:
    """The requests every metric is computed from, with the compatibility switch applied: a
    copy of their rows (a gigabyte at 10,000,000 records, so none is kept), for the few tables
    that want whole rows of small inputs; figures over the records read them by position
    (``measured_ok_positions``, ``FloatColumns``)."""
    return measured_rows(records, np.flatnonzero(measured_answered(records)), settings)


def measured_answered(records: pd.DataFrame) -> np.ndarray:
    """Per record: a measured request that was answered (one of ``measured_ok``'s)."""
    return records["measure"].to_numpy() & records["ok"].to_numpy()


def measured_rows(records: pd.DataFrame, index: np.ndarray, settings: Settings) -> pd.DataFrame:
    """The records at ``index`` (e.g. a group of ``measured_ok_positions``) as ``measured_ok``
    gives them: a copy of those rows alone, with the compatibility switch applied."""
    frame = records.iloc[index]
    if settings.itl_null_as_zero:
        frame = frame.assign(itl=frame["itl"].fillna(0.0))
    return frame


def measured_ok_positions(records: pd.DataFrame, by: list[str]) -> dict[tuple, np.ndarray]:
    """Per group of ``by`` that has any, the positions in ``records`` of its measured requests
    that were answered: the groups of ``measured_ok``'s rows without copying the rows (a
    gigabyte at 10,000,000 records); read their columns with ``FloatColumns(records)``."""
    return group_positions(records, by, measured_answered(records))


def measured_ok_of(records: pd.DataFrame, groups: dict[tuple, np.ndarray]) -> dict:
    """``measured_ok_positions`` of groups already made (positions in ``records``)."""
    chosen = measured_answered(records)
    return {key: index[chosen[index]] for key, index in groups.items() if chosen[index].any()}


GROUPED_AT_ONCE = 1 << 20  # records ``group_positions`` groups at a time


def group_positions(
    records: pd.DataFrame, by: list[str], among: np.ndarray | None = None
) -> dict[Any, np.ndarray]:
    """``records.groupby(by, observed=True).indices``: the same groups in the same order, each
    with the positions of its records (of those ``among`` marks, when given; a group without
    any is left out). Grouped a million records at a time: pandas' grouping of ten million at
    once held some 300 MB of temporaries, beside the 80 MB of positions."""
    keys = records[by]  # the grouping columns alone (copy-on-write: no copy)
    # positions in 32 bits where they fit: 40 MB at 10,000,000 records, not 80
    kind = np.int32 if len(keys) < np.iinfo(np.int32).max else np.int64
    pieces: dict[tuple, list[np.ndarray]] = {}
    for start in range(0, len(keys), GROUPED_AT_ONCE):
        part = keys.iloc[start : start + GROUPED_AT_ONCE].groupby(by, observed=True).indices
        for key, index in part.items():
            if among is not None:
                index = index[among[start + index]]
            if len(index):
                pieces.setdefault(key, []).append((index + start).astype(kind))
    # pandas orders the groups (a categorical's by its categories): one record of each tells
    first = [index[0][0] for index in pieces.values()]
    order = keys.iloc[first].groupby(by, observed=True).indices
    return {key: np.concatenate(pieces.pop(key)) for key in order}


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
