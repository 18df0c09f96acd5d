"""Columns the loader derives from the records' own, once per run (``load.py`` calls them on
a run's column arrays, in simulated time): what every table reads in place of the raw field."""

from __future__ import annotations

import numpy as np


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
