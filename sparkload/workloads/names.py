"""The workload names and each one's own output length.

Plain constants, read by the option table (``sparkload.config``: ``--workload``'s choices, the
``--max-tokens`` help) and by the workloads alike; importing them loads no workload.
"""

from __future__ import annotations

CHAT, FRESH, EDIT, PREFILL = "chat", "fresh", "edit", "prefill"
NAMES = (CHAT, FRESH, EDIT, PREFILL)
TRACE = "trace"  # chosen by --trace, not by --workload
OUTPUT_TOKENS = {CHAT: 128, FRESH: 400, EDIT: 3000, PREFILL: 1}  # each workload's own length
