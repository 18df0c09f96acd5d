"""The workload names and each one's own output length.

Plain constants, read by the option table (``sparkload.config``: ``--workload``'s choices, the
``--max-tokens`` help) and by the workloads alike; importing them loads no workload.
"""

from __future__ import annotations

CHAT, FRESH, EDIT, PREFILL = "chat", "fresh", "edit", "prefill"
CONVERSATION = "conversation"
NAMES = (CHAT, FRESH, EDIT, PREFILL, CONVERSATION)
TRACE = "trace"  # chosen by --trace, not by --workload
# each workload's own length (a conversation's: per turn)
OUTPUT_TOKENS = {CHAT: 128, FRESH: 400, EDIT: 3000, PREFILL: 1, CONVERSATION: 128}
HISTORY_MODEL, HISTORY_DATASET = "model", "dataset"  # --history: whose replies a turn carries
HISTORIES = (HISTORY_MODEL, HISTORY_DATASET)
