"""Agents (``--workload agent``, ``--agent-trace``): TTFT, TTFO, reasoning share, tool-call
argument time and validity by step kind and by turn, and TTFO against context length; with
sub-agents, the time spent in them and their cache reuse; with compaction, the tokens around
it."""

from __future__ import annotations

import pandas as pd

from analysis.document import Block, Section
from analysis.figures.metrics import Settings
from analysis.sections import Context, image
from analysis.views import agents, compaction, conversations, subagents

TITLE = "Agents"


def build(context: Context) -> Section | None:
    steps = agents.step_records(context.dataset.records)
    if steps.empty:
        return None
    settings = context.settings
    labels = conversations.labels(steps)
    by_context: list[Block] = []
    for label in labels:
        frame = agents.by_context(steps, label, settings)
        chart = agents.context_chart(frame, label)
        by_context += [
            agents.table(frame, label, "by_context", "TTFO by context length (prompt tokens)"),
            image(chart.folder, chart.key, chart.title),
        ]
    return Section(
        TITLE,
        [
            "Agent sessions (`--workload agent`, `--agent-trace`): every step sends the whole "
            "context, tools included; a tool step asks for a call, the answer step for the text "
            "that ends the user turn. Measured steps of closed-loop levels; failures are counted "
            "and left out of the figures. TTFO (time to first output token: content or tool "
            "call, reasoning excluded) is a thinking model's time to answer, beside TTFT (the "
            "first token of any kind). Reasoning share = Σ reasoning tokens / Σ output tokens; "
            "tool args = send → the last call's arguments complete, of requests that called "
            "tools; valid JSON share = those whose every call's arguments parse as a JSON "
            "object, of those whose reply finished; truncated calls = requests whose calls "
            "max_tokens cut (finish `length`: never valid, counted apart); no answer = "
            "reasoned until max_tokens (finish `length`) without a first output token (not in "
            "TTFO; a reply that stopped of itself is not one).",
        ],
        [
            Section(
                "By step kind",
                [
                    agents.table(
                        agents.by_step(steps, label, settings), label, "by_step", "by step"
                    )
                    for label in labels
                ],
            ),
            Section(
                "By turn",
                [
                    "Per user turn and the step's place in it (a replay: per recorded turn).",
                    *(
                        agents.table(
                            agents.by_turn(steps, label, settings), label, "by_turn", "by turn"
                        )
                        for label in labels
                    ),
                ],
            ),
            Section(
                "TTFO against context length",
                [
                    "Steps grouped by their prompt tokens in power-of-two buckets (from 512 to "
                    "1,023, ...), whichever session and step they belong to.",
                    *by_context,
                ],
            ),
            *_subagents(steps, settings),
            *_compaction(steps),
        ],
    )


def _subagents(steps: pd.DataFrame, settings: Settings) -> list[Section]:
    """The sub-agents subsection, when some label's agents spawned sub-agents."""
    rows = subagents.subagent_records(steps)
    if rows.empty:
        return []
    blocks: list[Block] = [
        "A session is a top-level agent session with its sub-agents. Time in sub-agents: per "
        "session, its wall time (first send to last reply) and the part spent in its "
        "sub-agents (each one's first send to last reply, summed), as mean seconds and the "
        "share of the wall time over the sessions (0 for one that spawned none); sub-agent "
        "requests' share of all requests. By agent: the top-level agents' requests beside the "
        "fresh and forked sub-agents'; first request cached share = cached / prompt tokens of "
        "each sub-agent's first request (mean over sub-agents), beside the same of its parent's "
        "spawning request (the parent's request just before it): a fork resends the parent's "
        "history and should be served from the cache as much as its parent was."
    ]
    for label in conversations.labels(rows):
        blocks += [
            subagents.table(
                subagents.time_in_subagents(rows, label, settings),
                label,
                "subagents",
                "time in sub-agents",
            ),
            subagents.table(
                subagents.by_agent(rows, label, settings),
                label,
                "subagent_requests",
                "top-level and sub-agent requests",
            ),
        ]
    return [Section("Sub-agents", blocks)]


def _compaction(steps: pd.DataFrame) -> list[Section]:
    """The compaction subsection, when some label's agents compacted their context."""
    rows = compaction.compaction_records(steps)
    if rows.empty:
        return []
    blocks: list[Block] = [
        "Around each compaction (the first request after it, whose prompt is the summary "
        "in place of the history): the mean prompt and cached tokens of the request before "
        "it in its agent session, of the compacted request and of the one after. Cached "
        "tokens fall with the compacted prompt (only the system prompt and tools are still "
        "cached) and recover on the next request, which resends the summary."
    ]
    for label in conversations.labels(rows):
        chart = compaction.chart(rows, label)
        blocks += [
            compaction.table(compaction.around(rows, label), label),
            image(chart.folder, chart.key, chart.title),
        ]
    return [Section("Compaction", blocks)]
