"""Compaction (``--compact-at``, ``--compact-to``): the prompt an agent sends after compacting
its context, and the cached tokens falling with it and recovering.

From the agent steps (``agents.step_records``: measured requests of closed-loop levels) of
labels where some request was compacted (``extra.compacted``: the first request after a
compaction), per label and concurrency:

* **Around compactions**: compactions, the prompt tokens that set them off (mean), and the
  mean prompt and cached tokens of the request before, the compacted request and the one
  after in its agent session (``agent_session``, in ``turn`` order; one at either end of the
  session, or not measured, is left out of its mean).
* **Chart**: prompt and cached tokens by request number in the agent session for the first
  few sessions that compacted (by first send), the compacted requests marked.
"""

from __future__ import annotations

import pandas as pd

from analysis.views.charts import LINEAR_AXIS, PALETTE, Chart, Series
from analysis.views.tables import Table, slug

CHART = "compaction_tokens"
CHART_SESSIONS = 3
_AGENT = ["run", "level", "agent_session"]
_PLACES = ("before", "compacted", "after")
FORMATS = {
    "Compacted from mean": "{:.0f}",
    **{f"{k} tokens {p}": "{:.0f}" for k in ("Prompt", "Cached") for p in _PLACES},
}


def compaction_records(steps: pd.DataFrame) -> pd.DataFrame:
    """The agent steps of the labels where some request was compacted (empty when none)."""
    if steps.empty or "extra_compacted" not in steps:
        return steps.iloc[0:0]
    compacted = steps.loc[steps["extra_compacted"].notna(), "label"].unique()
    return steps[steps["label"].isin(compacted)]


def _numbered(rows: pd.DataFrame) -> pd.DataFrame:
    """The rows in session order, each with its request number in its agent session (1, 2, ...)
    and the prompt and cached tokens of its agent session's requests before and after it."""
    rows = rows.sort_values([*_AGENT, "turn"])
    agent = rows.groupby(_AGENT, observed=True, sort=False)
    return rows.assign(
        number=agent.cumcount() + 1,
        **{
            f"{name} {place}": agent[column].shift(step)
            for place, step in (("before", 1), ("after", -1))
            for name, column in (("prompt", "prompt_tokens"), ("cached", "cached_tokens"))
        },
    )


def around(steps: pd.DataFrame, label: str) -> pd.DataFrame:
    """One row per concurrency of ``label``: the module docstring's around compactions."""
    rows = _numbered(steps[steps["label"] == label])
    points = rows[rows["extra_compacted"].notna()]
    out = [
        {
            "Concurrency": int(level),
            "Compactions": len(group),
            "Compacted from mean": group["extra_compacted_from"].mean(),
            **{
                f"{name.capitalize()} tokens {place}": group[
                    f"{name}_tokens" if place == "compacted" else f"{name} {place}"
                ].mean()
                for place in _PLACES
                for name in ("prompt", "cached")
            },
        }
        for level, group in points.groupby("level", sort=True)
    ]
    return pd.DataFrame(out)


def table(frame: pd.DataFrame, label: str) -> Table:
    return Table(f"{slug(label)}_compaction", f"{label}: around compactions", frame, FORMATS)


def chart(steps: pd.DataFrame, label: str, note: str = "") -> Chart:
    """Prompt (solid) and cached (dashed) tokens by request number in the agent session, one
    colour per session, of ``label``'s first ``CHART_SESSIONS`` sessions that compacted; the
    compacted requests' prompts marked with a star."""
    rows = _numbered(steps[steps["label"] == label])
    compacted = rows[rows["extra_compacted"].notna()]
    starts = rows.groupby(_AGENT, observed=True)["start_time"].min()
    shown = starts.loc[compacted.set_index(_AGENT).index.unique()].sort_values()
    series: list[Series] = []
    for i, key in enumerate(shown.index[:CHART_SESSIONS]):
        session = rows.set_index(_AGENT).loc[key]
        x = session["number"].to_numpy(float)
        name, colour = f"C={key[1]} session {i + 1}", PALETTE[i % len(PALETTE)]
        series += [
            Series(f"{name} prompt", x, session["prompt_tokens"].to_numpy(float), colour=colour),
            Series(
                f"{name} cached",
                x,
                session["cached_tokens"].to_numpy(float),
                style="dash",
                colour=colour,
            ),
        ]
    marked = compacted.set_index(_AGENT).loc[list(shown.index[:CHART_SESSIONS])]
    series.append(
        Series(
            "compacted",
            marked["number"].to_numpy(float),
            marked["prompt_tokens"].to_numpy(float),
            style="none",
            marker="star",
            colour="#000000",
        )
    )
    return Chart(
        slug(label),
        CHART,
        f"{label}: prompt and cached tokens around compactions",
        "Tokens",
        series,
        f"solid: prompt, dashed: cached tokens{note}",
        "Request number in the agent session",
        LINEAR_AXIS,
    )
