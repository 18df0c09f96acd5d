"""The records' server figures and categories as columns (``load``'s reader calls it per batch).

A record carries the server's own figures only where the server sent them (vLLM's per-request
metrics: ``RequestRecord.server_queue`` … ``spec_drafts``) and a category only where its prompt
had one; a batch with none of them costs one pass. The accepted-drafts histogram is a list per
record (an object column: None where none, or where it is not a list of counts).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

# fmt: off
SERVER_FIELDS = (
    "server_queue", "server_ttft", "server_generation", "server_itl", "server_tps",
    "acceptance_length", "acceptance_rate", "spec_steps", "spec_accepted", "spec_drafts",
)
# fmt: on
HISTOGRAM = "spec_histogram"
CATEGORY = "category"
FIELDS = (*SERVER_FIELDS, HISTOGRAM, CATEGORY)
_ANY = frozenset(FIELDS)


def columns(records: list[dict], floats: Callable[[list], np.ndarray]) -> dict[str, np.ndarray]:
    """``FIELDS`` of a batch of record dicts: numbers as floats (``floats``: the reader's
    conversion, NaN where missing), the histogram as an object column, the category as text
    ("" where none)."""
    n = len(records)
    if not any(_ANY.intersection(r) for r in records):
        out = {name: np.full(n, np.nan) for name in SERVER_FIELDS}
        out[HISTOGRAM] = np.full(n, None, dtype=object)
        out[CATEGORY] = np.full(n, "", dtype=object)
        return out
    out = {name: floats([r.get(name) for r in records]) for name in SERVER_FIELDS}
    histograms = np.empty(n, dtype=object)
    histograms[:] = [histogram(r.get(HISTOGRAM)) for r in records]
    out[HISTOGRAM] = histograms
    out[CATEGORY] = np.array(
        [c if isinstance(c := r.get(CATEGORY), str) else "" for r in records], dtype=object
    )
    return out


def histogram(value: object) -> list[int] | None:
    """A record's accepted-drafts histogram: a non-empty list of counts, else None."""
    if not isinstance(value, list) or not value:
        return None
    if all(isinstance(v, int) and not isinstance(v, bool) and v >= 0 for v in value):
        return value
    return None
