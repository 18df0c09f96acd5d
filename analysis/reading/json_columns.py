"""A batch of record dicts (an earlier version's JSON lines file, or the pending lines of a
part never written) as the loader's column arrays: what ``arrow_columns`` gives for a record
batch, the same names, dtypes and missing values, so everything downstream reads one kind of
column whatever wrote the run."""

from __future__ import annotations

import numpy as np
import pandas as pd

from analysis.reading import per_request, pooled
from analysis.reading.record_fields import (
    EXTRA_FIELDS,
    NUMERIC_FIELDS,
    TEXT_COLUMNS,
    TEXT_FIELDS,
    THINKING_FIELDS,
    flags,
    floats,
    text,
)
from sparkload.records import PHASE_MEASURE, STATUS_OK


def columns(records: list[dict]) -> dict[str, np.ndarray | pd.Categorical]:
    """The batch's columns (``record_fields.COLUMNS``, but ``error_kind``: an object array, None
    where none): numbers as floats, texts as categoricals ("" where none); a batch without
    reasoning, tool calls or extras costs one pass for each."""
    n = len(records)
    out: dict[str, np.ndarray | pd.Categorical] = {
        name: floats([r.get(name) for r in records]) for name in NUMERIC_FIELDS
    }
    thinking = any("reasoning_tokens" in r or "tool_calls" in r for r in records)
    for name in THINKING_FIELDS:
        if not thinking:
            out[name] = np.full(n, np.nan)
        elif name == "tool_args_valid":
            out[name] = flags([r.get(name) for r in records])
        else:
            out[name] = floats([r.get(name) for r in records])
    out.update({f"extra_{name}": values for name, values in _extra_columns(records).items()})
    out.update(per_request.columns(records, floats))
    out["measure"] = np.array([r.get("phase") == PHASE_MEASURE for r in records], bool)
    out["ok"] = np.array([r.get("status") == STATUS_OK for r in records], bool)
    out["error_kind"] = np.array([r.get("error_kind") for r in records], dtype=object)
    out["reasoning_counted_by"] = pd.Categorical(  # "" where not counted, as the other texts
        [text(r.get("reasoning_counted_by")) for r in records] if thinking else [""] * n
    )
    # one string per record would cost ~75 bytes each at 1M records; codes cost 1
    for name in TEXT_COLUMNS:
        out[name] = pooled.one_text_shared(pd.Categorical(_texts(records, name)))
    return out


def _extra_columns(records: list[dict]) -> dict[str, np.ndarray]:
    """EXTRA_FIELDS of the records' ``extra``; a batch without extras costs one pass."""
    extras = [e if isinstance(e := r.get("extra"), dict) else None for r in records]
    if not any(extras):
        return {name: np.full(len(records), np.nan) for name in EXTRA_FIELDS}
    return {name: floats([e.get(name) if e else None for e in extras]) for name in EXTRA_FIELDS}


def _texts(records: list[dict], column: str) -> list[str]:
    """A text column's values: a record's field, or (``extra_<name>``) its ``extra``'s."""
    if column in TEXT_FIELDS:
        return [text(r.get(column)) for r in records]
    name = column.removeprefix("extra_")
    return [text(e.get(name)) if isinstance(e := r.get("extra"), dict) else "" for r in records]
