"""A TraceLab round as a request: prompt text synthesized to its recorded counts, lazily.

TraceLab records no text (``inputs.tracelab``), only how long each round's prompt was
(``input_tokens_total``), how much of it the provider's prompt cache served (``prefix_tokens``),
and how long the answer was. A replay sends text of those lengths with the recorded reuse:

- **Round r's prompt** is ``input_tokens_total`` units (``blocktext``'s: 4 characters, one token
  on the simulator and on byte-level BPE tokenizers). Its first ``prefix_tokens`` units are
  byte-identical to round r-1's prompt (at most all of it: a prefix the trace says is longer
  than the round before was served by the provider's cache from elsewhere), so a prefix cache
  can serve them; the rest is new text of its own, unique to the session's replay and the round.
- **A session's first round** starts with the *opening*: ``prefix_tokens`` units of a text
  shared by every session of its user and project (a coding agent's system prompt and tools,
  which the recorded cache served from an earlier session), then text of its own. A sub-agent's
  first round is a first round too: it starts fresh, sharing with its parent only the opening
  its own ``prefix_tokens`` ask for, none of the parent's history.
- **Lazy.** A prompt is a ``Prompt``: segments of (key, units), a handful of tuples whatever the
  token counts (a 100,000-token round is as small as a 10-token one); ``text`` makes the
  characters when the request is sent, from 512-unit blocks seeded by key (``blocktext``'s
  generator and cache), so equal segments give equal text in every process.
- **Another tokenizer.** Where the target counts a 512-unit block as other than 512 tokens
  (the master counts one, ``fitting.count_blocks``; vLLM's CPU test build's small vocabulary
  makes a unit 3 tokens), ``scale`` (units a token: 512 / the block's count) sizes every prompt
  and prefix in units, so the prompt's tokens are still the recorded count, to within that
  count's average, and the prefix stays byte-identical.
- **Keys** are the caller's: the opening's and each round's own, with the run's salt in them so
  every run (and every replay of a session) starts cold, as the recording's sessions did.
- **The answer** is asked at the recorded length: ``max_tokens = output_tokens``, which counts
  reasoning already (Codex reports ``reasoning_output_tokens`` as a part of ``output_tokens``,
  TraceLab's ``docs/prompt_cache_accounting.md``; Claude's ``output_tokens`` include thinking
  and its reasoning count is null), at least 1. A prompt is at least 1 unit.
- **A pause** (the recorded gap before a round) is replayed as recorded, or at most
  ``--max-think-time`` seconds.
"""

from __future__ import annotations

from sparkload.inputs.tracelab import LabRound
from sparkload.workloads.blocktext import block_text

BLOCK_UNITS = 512  # units per seeded block (blocktext's block: its cache holds whole blocks)
UNIT_CHARS = 4

Segment = tuple[str, int]  # (key, units): the first ``units`` units of the text named ``key``
Prompt = tuple[Segment, ...]


def units(prompt: Prompt) -> int:
    return sum(count for _, count in prompt)


def first_prompt(one: LabRound, opening: str, own: str, scale: float = 1.0) -> Prompt:
    """A session's first round: the opening's first ``prefix_tokens`` units, then its own."""
    total, prefix = _sizes(one, scale)
    return _own_after(((opening, prefix),), own, total)


def next_prompt(before: Prompt, one: LabRound, own: str, scale: float = 1.0) -> Prompt:
    """A later round: the round before's first ``prefix_tokens`` units, then its own."""
    total, prefix = _sizes(one, scale)
    return _own_after(_cut(before, prefix), own, total)


def _sizes(one: LabRound, scale: float) -> tuple[int, int]:
    """The round's units and its prefix's: its tokens times ``scale``, the target's units a
    token (1 where a unit is one token)."""
    total = max(1, round(one.input_tokens * scale))
    return total, min(round(one.prefix_tokens * scale), total)


def text(prompt: Prompt) -> str:
    """The prompt's characters: ``units(prompt) * 4`` of them."""
    return "".join(_segment_text(key, count) for key, count in prompt)


def max_tokens(one: LabRound) -> int:
    """The recorded answer's length (reasoning included), at least 1."""
    return max(1, one.output_tokens)


def pause(one: LabRound, cap: float | None) -> float:
    """The recorded pause before the round, at most ``cap`` seconds (None: as recorded)."""
    return one.pause if cap is None else min(one.pause, cap)


def _cut(prompt: Prompt, keep: int) -> Prompt:
    """The prompt's first ``keep`` units (all of it when it is shorter)."""
    out: list[Segment] = []
    for key, count in prompt:
        if keep <= 0:
            break
        out.append((key, min(count, keep)))
        keep -= count
    return tuple(out)


def _own_after(kept: Prompt, own: str, total: int) -> Prompt:
    """``kept`` (its empty segments dropped), then the round's own text up to ``total`` units."""
    head = tuple(segment for segment in kept if segment[1] > 0)
    rest = total - units(head)
    return (*head, (own, rest)) if rest > 0 else head


def _segment_text(key: str, count: int) -> str:
    parts = []
    for block in range(-(-count // BLOCK_UNITS)):
        take = min(BLOCK_UNITS, count - block * BLOCK_UNITS)
        full = block_text(f"{key}:{block}", BLOCK_UNITS)
        parts.append(full if take == BLOCK_UNITS else full[: take * UNIT_CHARS])
    return "".join(parts)
