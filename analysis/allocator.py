"""Freed memory handed back to the system, where the analysis holds much of it still.

The records arrive in batches of some 65,000 (a Parquet part's row group), and their arrays
(half a megabyte each) come from the C allocator's heap; the joined columns (80 MB each at
10,000,000 records) are mapped apart. As each column is joined its batches' pieces are freed,
but they are scattered through the heap between pieces still held, so glibc keeps the pages:
the frame being built and every batch read stayed resident together, 2.4 GB at 10,000,000
records where the frame is 1.2 GB. ``malloc_trim`` returns the free pages inside the heap too.
The report's stages leave their temporaries scattered the same way (the per-level arrays of the
statistics, the sections' tables): 380 MB over the frame after building the report, back to
nothing once trimmed, so the report trims after each stage.
Elsewhere than glibc (musl, macOS) there is nothing to call and nothing is done.
"""

from __future__ import annotations

import ctypes
import ctypes.util


def _malloc_trim():
    try:
        return ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6").malloc_trim
    except (OSError, AttributeError):
        return None


_TRIM = _malloc_trim()


def give_back() -> None:
    """Return the heap's free pages to the system (glibc; a no-op elsewhere)."""
    if _TRIM is not None:
        _TRIM(0)
