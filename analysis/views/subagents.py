"""Sub-agents (``--subagent-rate``): how much of a session's time its sub-agents take, what
their requests cost beside the top-level agent's, and how much of a sub-agent's first prompt
the cache serves, forked or fresh.

From the agent steps (``agents.step_records``: measured requests of closed-loop levels) of
labels whose records name a depth above 0, per label and concurrency. A *session* is a
top-level session (``session_id``: its sub-agents' requests included), an *agent session* one
agent's own requests (``agent_session``):

* **Time in sub-agents**: sessions, sub-agents spawned (fresh / forked), requests and the
  sub-agents' share of them; per session its wall time (first send → last reply of any of its
  requests) and the part of it spent in sub-agents (each depth-1 sub-agent's first send → last
  reply, summed: a session runs them one at a time, and deeper ones run inside them), as mean
  seconds and the part's share of the wall time, mean/p50/p90 over the sessions (0 for one
  that spawned none).
* **By agent**: the top-level agents' requests (depth 0) and the fresh and forked sub-agents'
  (any depth; ``sub-agent`` for those whose records do not say how they started): requests,
  failures, TTFT and TTFO mean/p50/p90 (ms); for the sub-agents, their first request's cached
  share (cached / prompt tokens, mean over the sub-agents) beside that of the parent's spawning
  request (the parent's last request before it: the tool step whose call the sub-agent
  answers), so a fork's reuse of its parent's history is beside its parent's.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from analysis.figures import percentiles
from analysis.figures.metrics import Settings
from analysis.views import agents
from analysis.views.tables import Table, slug

TOP, FRESH, FORK = "top-level", "fresh", "fork"  # an agent's kind; extra.subagent's values
SUB = "sub-agent"  # a sub-agent whose records do not say how it started
_SESSION = ["run", "level", "session_id"]
_SHARE = "{:.1%}"
FORMATS = {
    **agents.FORMATS,
    "Sub-agent share of requests": _SHARE,
    "Session s mean": "{:.2f}",
    "In sub-agents s mean": "{:.2f}",
    **{f"Time share {s}": _SHARE for s in ("mean", "p50", "p90")},
    "First request cached share": _SHARE,
    "Spawning request cached share": _SHARE,
}


def subagent_records(steps: pd.DataFrame) -> pd.DataFrame:
    """The agent steps of the labels that ran sub-agents (empty when none did)."""
    if steps.empty or "depth" not in steps:
        return steps.iloc[0:0]
    spawned = steps.loc[steps["depth"].to_numpy() > 0, "label"].unique()
    return steps[steps["label"].isin(spawned)]


def session_times(rows: pd.DataFrame) -> pd.DataFrame:
    """One row per session: its wall time (s), the part in sub-agents (s) and that share."""
    rows = rows.assign(end=rows["start_time"] + rows["latency"].fillna(0.0))
    span = {"first": ("start_time", "min"), "last": ("end", "max")}
    whole = rows.groupby(_SESSION, observed=True).agg(**span)
    subs = rows[rows["depth"].to_numpy() == 1]
    each = subs.groupby([*_SESSION, "agent_session"], observed=True).agg(**span)
    inside = (each["last"] - each["first"]).groupby(level=_SESSION).sum()
    wall = whole["last"] - whole["first"]
    inside = inside.reindex(wall.index, fill_value=0.0)
    return pd.DataFrame({"wall": wall, "inside": inside, "share": inside / wall.where(wall > 0)})


def time_in_subagents(steps: pd.DataFrame, label: str, settings: Settings) -> pd.DataFrame:
    """One row per concurrency of ``label``: the module docstring's time in sub-agents."""
    rows = steps[steps["label"] == label]
    method = settings.percentile_method
    out = []
    for level, group in rows.groupby("level", sort=True):
        sessions = session_times(group)
        subs = group[group["depth"].to_numpy() > 0]
        starts = subs.groupby("agent_session", observed=True)["extra_subagent"].first()
        share = np.sort(sessions["share"].dropna().to_numpy(float))
        out.append(
            {
                "Concurrency": int(level),
                "Sessions": len(sessions),
                "Sub-agents": len(starts),
                "Fresh": int((starts.astype(str) == FRESH).sum()),
                "Forked": int((starts.astype(str) == FORK).sum()),
                "Requests": len(group),
                "Sub-agent requests": len(subs),
                "Sub-agent share of requests": len(subs) / len(group),
                "Session s mean": sessions["wall"].mean(),
                "In sub-agents s mean": sessions["inside"].mean(),
                "Time share mean": share.mean() if len(share) else np.nan,
                "Time share p50": percentiles.quantile(share, 0.5, method),
                "Time share p90": percentiles.quantile(share, 0.9, method),
            }
        )
    return pd.DataFrame(out)


def _cached_share(rows: pd.DataFrame) -> pd.Series:
    """Each request's cached / prompt tokens (NaN where either is unknown or no prompt)."""
    prompt = rows["prompt_tokens"].where(rows["prompt_tokens"] > 0)
    return rows["cached_tokens"] / prompt


def spawns(rows: pd.DataFrame) -> pd.DataFrame:
    """One row per sub-agent: its level, kind, its first request's cached share (``first``)
    and its parent's spawning request's (``spawning``; NaN when that one is not measured)."""
    keys = ["run", "level", "session_id", "parent_session"]
    rows = rows.assign(share=_cached_share(rows), session_id=rows["session_id"].astype(str))
    subs = rows[rows["depth"].to_numpy() > 0].sort_values("turn")
    first = subs.groupby(["run", "level", "agent_session"], observed=True).head(1)
    first = first.assign(
        parent_session=first["parent_session"].astype(str),
        agent=first["extra_subagent"].astype(str).replace("", SUB),
        first=first["share"],
    )[[*keys, "turn", "agent", "first"]]
    parents = rows.assign(parent_session=rows["agent_session"].astype(str), spawning=rows["share"])
    parents = parents[[*keys, "turn", "spawning"]].sort_values("turn")
    return pd.merge_asof(first, parents, on="turn", by=keys, allow_exact_matches=False)


def by_agent(steps: pd.DataFrame, label: str, settings: Settings) -> pd.DataFrame:
    """One row per (concurrency, agent kind: top-level, fresh, fork) of ``label``."""
    rows = steps[steps["label"] == label]
    start = rows["extra_subagent"].astype(str).replace("", SUB)
    kind = np.where(rows["depth"].to_numpy() > 0, start, TOP)
    rows = rows.assign(agent=pd.Categorical(kind, categories=[TOP, FRESH, FORK, SUB]))
    started = spawns(rows)
    out = []
    for (level, agent), group in rows.groupby(["level", "agent"], sort=True, observed=True):
        ok = group[group["ok"].to_numpy()]
        own = started[(started["level"] == level) & (started["agent"] == agent)]
        out.append(
            {
                "Concurrency": int(level),
                "Agent": str(agent),
                "n": len(ok),
                "Failures": len(group) - len(ok),
                **agents.ms_figures(ok["ttft"], settings, "TTFT"),
                **agents.ms_figures(ok["ttfo"], settings, "TTFO"),
                "Sub-agents": len(own) if agent != TOP else pd.NA,
                "First request cached share": own["first"].mean(),
                "Spawning request cached share": own["spawning"].mean(),
            }
        )
    return pd.DataFrame(out)


def table(frame: pd.DataFrame, label: str, key: str, title: str) -> Table:
    return Table(f"{slug(label)}_{key}", f"{label}: {title}", frame, FORMATS)
