"""Agents (``--workload agent``, ``--agent-trace``): TTFT, TTFO, reasoning share, tool-call
argument time and validity by step kind and by turn, and TTFO against context length."""

from __future__ import annotations

from analysis.document import Block, Section
from analysis.sections import Context, image
from analysis.views import agents, conversations

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
        ],
    )
