"""An embeddings run's figures per level (``--api embeddings``): inputs and input tokens per
second.

Over a level's ok measured requests (each latency is the request's one time: no TTFT, ITL or
output, ``analysis/figures/metrics.py`` leaves those empty):
  inputs_sum           inputs the level's requests carried (``--batch-size`` a request)
  inputs_per_s         inputs_sum / level wall time
  input_tokens_per_s   Σ prompt tokens (the server's usage) / level wall time
Only where some record carries ``inputs`` (``has_inputs``): another run's summary keeps its
columns.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

COLUMNS = ["inputs_sum", "inputs_per_s", "input_tokens_per_s"]
_SUMS = ("inputs_sum", "prompt_tokens_sum")  # per level, beside the metrics' own


def has_inputs(records: pd.DataFrame) -> bool:
    """Whether some record counts its inputs (an embeddings run's)."""
    return "inputs" in records and bool(records["inputs"].notna().any())


def input_sums(inputs: np.ndarray, prompt: np.ndarray) -> dict:
    """One level's inputs and prompt tokens (NaN where no request reported any)."""
    return {
        name: float(np.nansum(values)) if np.isfinite(values).any() else np.nan
        for name, values in zip(_SUMS, (inputs, prompt), strict=True)
    }


def add_input_rates(levels: pd.DataFrame) -> pd.DataFrame:
    """The per-level rates over the level wall time (``wall_s``)."""
    out = levels.copy()
    for name in _SUMS:  # a level without an ok request has no sums
        if name not in out:
            out[name] = np.nan
    out["inputs_per_s"] = out["inputs_sum"] / out["wall_s"]
    out["input_tokens_per_s"] = out["prompt_tokens_sum"] / out["wall_s"]
    return out
