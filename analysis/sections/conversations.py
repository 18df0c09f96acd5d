"""Conversations (``--workload conversation``): TTFT, prompt and cached tokens by turn, and TTFT
against context length."""

from __future__ import annotations

from analysis.document import Block, Section
from analysis.sections import Context, image
from analysis.views import conversations

TITLE = "Conversations"


def build(context: Context) -> Section | None:
    turns = conversations.turn_records(context.dataset.records)
    if turns.empty:
        return None
    settings = context.settings
    labels = conversations.labels(turns)
    by_turn: list[Block] = [
        conversations.turn_table(conversations.by_turn(turns, label, settings), label)
        for label in labels
    ]
    by_context: list[Block] = []
    for label in labels:
        frame = conversations.by_context(turns, label, settings)
        chart = conversations.context_chart(frame, label)
        by_context += [
            conversations.context_table(frame, label),
            image(chart.folder, chart.key, chart.title),
        ]
    return Section(
        TITLE,
        [
            "Multi-turn conversations (`--workload conversation`): every turn sends the whole "
            "history, so its prompt is the turn before it, the reply and one new user message, "
            "and a prefix cache can serve all but the new part. Measured turns of closed-loop "
            "levels; failures are counted and left out of the figures. Cached share = Σ cached "
            "tokens / Σ prompt tokens, as the server reported them (usage "
            "`prompt_tokens_details.cached_tokens`; a server that reports none leaves it empty).",
        ],
        [
            Section("By turn", by_turn),
            Section(
                "TTFT against context length",
                [
                    "Turns grouped by their prompt tokens in power-of-two buckets (from 512 to "
                    "1,023, ...), whichever conversation and turn they belong to.",
                    *by_context,
                ],
            ),
        ],
    )
