"""Agents (``--workload agent``, ``--agent-trace``): what each kind of step costs, turn by turn,
and how the time to answer grows with the context.

From the records of agent steps (those with a ``step``), measured requests of closed-loop
levels only, per label and concurrency:

* **By step kind** (``tool_call`` / ``answer``): requests, failures, TTFT and TTFO mean/p50/p90
  (ms), the reasoning share (Σ reasoning tokens / Σ output tokens of the requests that report
  both, token-weighted as the summary's ``reasoning_pct``), the tool-call argument time p50/p90
  (send → the last call's arguments complete), the share of requests with tool calls whose
  arguments all parse as JSON objects (of those whose reply finished), the requests whose calls
  were truncated at max_tokens (finish ``length``, ``replies.truncated_calls``: counted apart,
  never valid), and the no-answer count (reasoned until max_tokens,
  finish ``length``, without a first output token: not in TTFO; ``replies.no_answer``).
* **By turn**: the same per user turn and step index within it (a replay's records have no
  user turn of their own: each recorded turn is its own, step index empty), with the mean
  prompt tokens, so the context's growth step by step is beside its cost.
* **By context length**: the same per power-of-two bucket of prompt tokens
  (``conversations.context_bucket``), whichever session and step the request was: TTFO's
  growth with the context an agent carries.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from analysis.figures import percentiles, replies
from analysis.figures.metrics import Settings
from analysis.reading import text_columns
from analysis.views import conversations
from analysis.views.charts import Chart
from analysis.views.tables import Table, slug

CHART = "ttfo_vs_context"
_MS = "{:.1f}"
FORMATS = {
    **{f"{m} ms {s}": _MS for m in ("TTFT", "TTFO") for s in ("mean", "p50", "p90")},
    "Reasoning share": "{:.1%}",
    "Tool args ms p50": _MS,
    "Tool args ms p90": _MS,
    "Valid JSON share": "{:.1%}",
    "Prompt tokens mean": "{:.0f}",
}


def step_records(records: pd.DataFrame) -> pd.DataFrame:
    """Measured closed-loop records of agent steps (empty when there are none: not an agent
    run, or records from before steps were recorded)."""
    turns = conversations.turned_records(records)
    if turns.empty or "step" not in turns:
        return turns.iloc[0:0]
    return turns[~text_columns.equals(turns["step"], "")]


def ms_figures(values: pd.Series, settings: Settings, stem: str) -> dict[str, float]:
    """Mean, p50 and p90 in ms of a duration column (seconds; missing values left out)."""
    ordered = np.sort(values.dropna().to_numpy(float)) * 1000.0
    method = settings.percentile_method
    return {
        f"{stem} ms mean": ordered.mean() if len(ordered) else np.nan,
        f"{stem} ms p50": percentiles.quantile(ordered, 0.5, method),
        f"{stem} ms p90": percentiles.quantile(ordered, 0.9, method),
    }


def _share(part: pd.Series, whole: pd.Series) -> float:
    """Σ part / Σ whole over the rows that report both (NaN when there are none)."""
    both = part.notna() & whole.notna()
    total = whole[both].sum()
    return float(part[both].sum() / total) if total > 0 else np.nan


def figures(group: pd.DataFrame, settings: Settings) -> dict:
    """A group's counts and figures (the module docstring's) over its successful requests."""
    ok = group[group["ok"].to_numpy()]
    calls = ok[ok["tool_calls"].fillna(0).to_numpy() > 0]
    args = ms_figures(calls["tool_args_done"], settings, "Tool args")
    cut = replies.truncated_calls(calls)
    valid = calls["tool_args_valid"][~cut].dropna()
    return {
        "n": len(ok),
        "Failures": len(group) - len(ok),
        **ms_figures(ok["ttft"], settings, "TTFT"),
        **ms_figures(ok["ttfo"], settings, "TTFO"),
        "Reasoning share": _share(ok["reasoning_tokens"], ok["output_tokens"]),
        "Tool-call requests": len(calls),
        "Tool args ms p50": args["Tool args ms p50"],
        "Tool args ms p90": args["Tool args ms p90"],
        "Valid JSON share": valid.mean() if len(valid) else np.nan,
        "Truncated calls": int(cut.sum()),
        "No answer": int(replies.no_answer(ok).sum()),
        "Prompt tokens mean": ok["prompt_tokens"].mean(),
    }


def _grouped(steps: pd.DataFrame, keys: dict[str, str], settings: Settings) -> pd.DataFrame:
    """One row per (concurrency, ``keys``): heading → the records' column to group by."""
    columns = ["level", *keys.values()]
    rows = [
        {
            "Concurrency": int(values[0]),
            **{h: _value(v) for h, v in zip(keys, values[1:], strict=True)},
            **figures(group, settings),
        }
        for values, group in steps.groupby(columns, sort=True, dropna=False, observed=True)
    ]
    return pd.DataFrame(rows)


def _value(value: object) -> object:
    """A group key as shown: whole numbers as ints, a missing one (NaN) empty."""
    if isinstance(value, float):
        return int(value) if np.isfinite(value) else pd.NA
    return str(value)


def by_step(steps: pd.DataFrame, label: str, settings: Settings) -> pd.DataFrame:
    """One row per (concurrency, step kind) of ``label``."""
    rows = steps[steps["label"] == label]
    return _grouped(rows.assign(kind=rows["step"].astype(str)), {"Step": "kind"}, settings)


def by_turn(steps: pd.DataFrame, label: str, settings: Settings) -> pd.DataFrame:
    """One row per (concurrency, user turn, step index) of ``label``; a replay's turn is the
    recorded turn (``turn``) and its step index empty."""
    rows = steps[steps["label"] == label]
    user_turn = rows["extra_user_turn"].astype(float).fillna(rows["turn"])  # never sparse
    rows = rows.assign(user_turn=user_turn, kind=rows["step"].astype(str))
    keys = {"User turn": "user_turn", "Step index": "extra_step_index", "Step": "kind"}
    return _grouped(rows, keys, settings)


def by_context(steps: pd.DataFrame, label: str, settings: Settings) -> pd.DataFrame:
    """One row per (concurrency, prompt-token bucket) of ``label``."""
    rows = steps[steps["label"] == label]
    rows = rows.assign(bucket=conversations.context_bucket(rows["prompt_tokens"].to_numpy()))
    frame = _grouped(rows, {"Prompt tokens from": "bucket"}, settings)
    if not frame.empty:
        frame.insert(2, "to", frame["Prompt tokens from"] * 2 - 1)
    return frame


def table(frame: pd.DataFrame, label: str, key: str, title: str) -> Table:
    return Table(f"{slug(label)}_{key}", f"{label}: {title}", frame, FORMATS)


def context_chart(frame: pd.DataFrame, label: str, note: str = "") -> Chart:
    """Mean TTFO per prompt-token bucket of ``label``, one line per concurrency."""
    return conversations.bucket_chart(frame, label, CHART, "TTFO", "agent steps", note)
