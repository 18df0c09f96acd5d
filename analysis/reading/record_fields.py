"""Which of a record's fields the analysis reads, and how a JSON value becomes a column's
value: the one list both readers of records (``json_columns``, ``arrow_columns``) follow, so a
run reads the same whatever version wrote it."""

from __future__ import annotations

import numpy as np

from analysis.reading import per_request

# fmt: off
# Every record's numeric fields; older records lack the later ones (NaN): ttfo (issue 26); turn
# and turns (a conversation's requests: the turn, 1-based, and the turns it was planned with);
# images and image_bytes (a request's images: how many, their bytes), inputs (an embeddings
# request's; issue 43), depth (an agent's: 0 top-level, 1 its sub-agents, ...; issue 44).
NUMERIC_FIELDS = (
    "level", "level_index", "start_time", "ttft", "t_last_token", "itl", "tps", "latency",
    "decode_tps", "output_tokens", "chunk_gap_mean", "prompt_tokens", "cached_tokens",
    "queue_wait", "turn", "turns", "scheduled_time", "ttfo", "images", "image_bytes", "inputs",
    "depth", "connect_time",
)
# Every record's text fields, kept as categoricals ("" where a record has none): an agent's step
# kind, a dataset line's category, a structured reply's verdict and parse error's kind, the
# finish reason ("" for a failure), the images' size "WxH", an agent's own session and the one
# that spawned it (a sub-agent's), the model or adapter asked, the traffic class, the phase
TEXT_FIELDS = (
    "endpoint", "session_id", "step", "category", "structured", "finish_reason",
    "structured_error", "image_size", "agent_session", "parent_session", "model", "tenant",
    "phase",
)
# A thinking model's and an agent's fields (RequestRecord leaves them out where not observed):
# a batch of records without reasoning or tool calls costs one pass for all of them;
# tool_args_valid's true/false read as 1.0/0.0.
THINKING_FIELDS = (
    "t_last_reasoning", "reasoning_tokens", "answer_tokens", "reasoning_tps", "answer_tps",
    "tool_calls", "tool_args_done", "tool_args_valid",
)
# Workload fields of ``RequestRecord.extra`` the workload tables read, kept as ``extra_<name>``;
# user_turn and step_index: an agent's step, its user turn and its place in it; compacted and
# compacted_from: the first request after a compaction, the session's count and the prompt
# tokens that set it off.
EXTRA_FIELDS = (
    "target_tokens", "prefill_s", "identical", "prefix", "prefix_tokens",
    "expected_cached_tokens", "user_turn", "step_index", "compacted", "compacted_from",
)
EXTRA_TEXT_FIELDS = ("subagent",)  # kept as categoricals: a sub-agent's start, fresh or fork
# fmt: on
EXTRA_DURATIONS = ("prefill_s",)  # seconds, scaled like DURATION_FIELDS
TEXT_COLUMNS = (*TEXT_FIELDS, *(f"extra_{name}" for name in EXTRA_TEXT_FIELDS))
# A batch's columns as both readers give them, in this order (the frame's, after run and label)
COLUMNS = tuple(
    dict.fromkeys(
        (
            *NUMERIC_FIELDS, *THINKING_FIELDS, *(f"extra_{name}" for name in EXTRA_FIELDS),
            *per_request.FIELDS, "measure", "ok", "error_kind", "reasoning_counted_by",
            *TEXT_COLUMNS,
        )
    )
)  # fmt: skip


def floats(values: list) -> np.ndarray:
    """Floats with None → NaN; anything non-numeric (a corrupt field) also becomes NaN."""
    try:
        return np.array(values, dtype=np.float64)
    except (TypeError, ValueError):
        return np.array(
            [
                v if isinstance(v, (int, float)) and not isinstance(v, bool) else None
                for v in values
            ],
            dtype=np.float64,
        )


def flags(values: list) -> np.ndarray:
    """True/False as 1.0/0.0; anything else (missing, corrupt) NaN."""
    return np.array(
        [1.0 if v is True else 0.0 if v is False else np.nan for v in values], dtype=np.float64
    )


def text(value: object) -> str:
    """A text field's value, "" for anything else."""
    return value if isinstance(value, str) else ""
