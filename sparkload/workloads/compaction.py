"""Context compaction of a synthetic agent session (``--compact-at``, ``--compact-to``).

A coding agent whose context nears its window replaces the history with a summary of it and
goes on from there (Claude Code's auto-compact, OpenHands' condenser): the next request is
short, misses the prefix cache past the system prompt, and its successors grow and hit the
cache again. Here a session whose request's prompt passed ``--compact-at`` tokens (the server's
count, from the usage) sends next its system prompt and one user message: the session's id line
and a summary of text sized so the prompt is about ``--compact-to`` tokens.

The summary's size: the prompt less the summary is the session's *frame* (system prompt, tools,
chat template), measured on the session's first request as its prompt tokens less its user
message by the 4-characters estimate; the summary is made of ``blocktext`` units, one token each
on the simulator and on byte-level BPE tokenizers, so the prompt after compaction is
``--compact-to`` within the estimate's error on that first message.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from sparkload.errors import ConfigError
from sparkload.sim.textlength import estimate_tokens
from sparkload.workloads.blocktext import block_text

MIN_SUMMARY = 16  # tokens of a summary at least, whatever the frame
BLOCK = 512  # units a block_text key holds
SUMMARY_LEAD = "Summary of the work so far:"


@dataclass(frozen=True)
class Compaction:
    at: int  # compact once a prompt passed this many tokens
    to: int  # the prompt's tokens after

    @classmethod
    def from_options(cls, at: int | None, to: int | None) -> Compaction | None:
        """The rule, or None without ``--compact-at``; a ConfigError of one line when the
        sizes cannot work."""
        if at is None:
            if to is not None:
                raise ConfigError("--compact-to sizes a compaction: give --compact-at TOKENS too")
            return None
        target = to if to is not None else max(1, at // 4)
        if target >= at:
            raise ConfigError(
                f"--compact-to {target} must be below --compact-at {at} (a compaction shrinks "
                "the context)"
            )
        return cls(at, target)

    def check_fits(self, frame_text: str) -> None:
        """A ConfigError of one line when ``--compact-to`` leaves no room for a summary after
        the frame every request carries (``frame_text``: its system prompt and tools)."""
        frame = estimate_tokens(frame_text)
        if self.to < frame + MIN_SUMMARY:
            raise ConfigError(
                f"--compact-to {self.to} leaves no room for a summary: every request carries "
                f"about {frame} tokens of system prompt and tools; give {frame + 4 * MIN_SUMMARY}"
                " or more"
            )

    def due(self, prompt_tokens: int | None) -> bool:
        return prompt_tokens is not None and prompt_tokens > self.at

    def compacted(
        self, context: list[dict[str, Any]], frame: int, id_line: str, key: str
    ) -> list[dict[str, Any]]:
        """The context after compaction: its system prompt (if it has one) and the summary,
        sized to bring the prompt to ``to`` (``key``: the session and its compaction)."""
        lead = id_line + SUMMARY_LEAD
        tokens = max(MIN_SUMMARY, self.to - frame - estimate_tokens(lead))
        head = [m for m in context[:1] if m["role"] == "system"]
        return [*head, {"role": "user", "content": lead + summary_text(key, tokens)}]

    def describe(self) -> dict[str, int]:
        return {"compact_at": self.at, "compact_to": self.to}


def frame_tokens(prompt_tokens: int, first_user_text: str) -> int:
    """A session's frame: its first request's prompt less its user message (estimated)."""
    return max(0, prompt_tokens - estimate_tokens(first_user_text))


def summary_text(key: str, tokens: int) -> str:
    """``tokens`` units of summary text, unique to ``key`` (the session and its compaction)."""
    blocks = [
        block_text(f"{key}:{i}", min(BLOCK, tokens - i * BLOCK)) for i in range(-(-tokens // BLOCK))
    ]
    return "".join(blocks)
