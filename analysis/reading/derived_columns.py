"""Columns the loader derives from the records' own (``load.py`` calls them on a run's column
arrays, in simulated time, batch by batch): what every table reads in place of the raw field."""

from __future__ import annotations

import numpy as np

from analysis.reading import pooled


def measured_itl(columns: dict[str, np.ndarray]) -> np.ndarray:
    """The records' ITL, undefined (NaN) where no time passed between the first token and the
    last: records written before ``RequestRecord.derive`` left it undefined there say 0.0 for a
    reply that came as one chunk, a gap that was never measured."""
    no_gap = columns["t_last_token"] <= columns["ttft"]  # NaN compares False: kept
    return np.where(no_gap, np.nan, columns["itl"])


def expected_cached(columns: dict[str, np.ndarray]) -> np.ndarray:
    """Per record, the prompt tokens a prefix cache that keeps everything would serve (NaN where
    prompts share nothing by design): a trace line's own figure (its leading blocks an earlier
    line sent whole), or, with shared prefixes, the prefix's tokens for every request after the
    first of its prefix in the run (by send time, warm-ups included)."""
    expected = np.array(columns["extra_expected_cached_tokens"], dtype=np.float64)  # maybe sparse
    prefix = columns["extra_prefix"]
    shared = np.flatnonzero(np.isfinite(prefix))
    if len(shared):
        order = shared[np.argsort(columns["start_time"][shared], kind="stable")]
        _, first = np.unique(prefix[order], return_index=True)
        expected[shared] = columns["extra_prefix_tokens"][shared]
        expected[order[first]] = 0.0
    return expected


_PREFIX_COLUMNS = ("extra_expected_cached_tokens", "extra_prefix", "extra_prefix_tokens")


def add_expected_cached(batches: list[dict[str, np.ndarray]]) -> None:
    """In place: each batch's ``expected_cached_tokens`` (``expected_cached``), the first of a
    prefix found over the whole run, so from the run's columns joined (only those it reads)."""
    if not any(pooled.has_values(b[name]) for b in batches for name in _PREFIX_COLUMNS[:2]):
        for columns in batches:  # no prefix, no figure of a trace's: none expected (sparse)
            columns["expected_cached_tokens"] = pooled.absent(len(columns["start_time"]))
        return
    names = (*_PREFIX_COLUMNS, "start_time")
    run = {
        name: np.concatenate([np.asarray(b[name], np.float64) for b in batches]) for name in names
    }
    expected = expected_cached(run)
    ends = np.cumsum([len(b["start_time"]) for b in batches])
    for columns, part in zip(batches, np.split(expected, ends[:-1]), strict=True):
        columns["expected_cached_tokens"] = part
