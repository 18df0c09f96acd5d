"""What a reply's end says of it, per record: one definition each, for every table that counts
them (the summary, the agent tables, SLO judgements; the live table counts ``no_answer`` the
same way from the records it holds).

- ``no_answer``: it reasoned until max_tokens (finish ``length``) without a first output token.
- ``truncated_calls``: its tool calls were cut by max_tokens (finish ``length``): never valid.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from sparkload.records import FINISH_LENGTH

NO_ANSWER_FIELDS = ("ttfo", "reasoning_tokens", "finish_reason")  # what ``no_answer`` reads


def no_answer(frame: pd.DataFrame) -> np.ndarray:
    """Per record: it reasoned until max_tokens (finish ``length``) without a first output
    token. A reply that stopped of itself without one (finish ``stop``: the model closed its
    reasoning and ended) did answer, if with nothing: it is not counted. Older records,
    without the fields, never count."""
    if not set(NO_ANSWER_FIELDS) <= set(frame.columns):
        return np.zeros(len(frame), bool)
    return (
        np.isnan(frame["ttfo"].to_numpy())
        & (frame["reasoning_tokens"].to_numpy() > 0)
        & (frame["finish_reason"].astype(str).to_numpy() == FINISH_LENGTH)
    )


def truncated_calls(frame: pd.DataFrame) -> np.ndarray:
    """Per record: its reply had tool calls and ended at max_tokens (finish ``length``), so its
    calls' arguments are cut: truncated, never valid, whatever they parse as (vLLM ends such a
    forced call with ``"arguments": "{}"``; older records say it is valid)."""
    if "tool_calls" not in frame or "finish_reason" not in frame:
        return np.zeros(len(frame), bool)
    calls = frame["tool_calls"].to_numpy(float)
    cut = frame["finish_reason"].astype(str).to_numpy() == FINISH_LENGTH
    return (np.nan_to_num(calls) > 0) & cut
