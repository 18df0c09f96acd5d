"""Prompt text for a trace's blocks: one fixed 512-token text per block id, made of one-token words.

A Mooncake trace names each 512-token block of a prompt by a hash id, equal where prompts share
the block and everything before it. A line's prompt is the texts of its blocks in order, the last
one cut to the line's length: lines with equal leading ids send identical leading text, so a
server's prefix cache (vLLM's, the simulator's) sees the trace's shared prefixes.

The text is built from units: a space and a common three-letter word (``" the"``, ``" red"``),
which is 4 characters (one token by the simulator's count, 512 units = one of its 512-token
blocks exactly) and one token in byte-level BPE tokenizers, where a word with its leading space
is one piece and pieces never cross a space (checked with GPT-2's, cl100k_base's and
o200k_base's ranks: every unit one token, 512 units 512 tokens). So a block is 512 units, a
length of n tokens is n units, and nothing has to be counted per block: the master counts one
block once to say how exact that is for the target (``sparkload.workloads.trace``). The words
come from a seeded generator per block id; a run's salt is in the seed, so blocks are cold in
each run (and each repetition of it), as the trace's first request of a prefix was.
"""

from __future__ import annotations

import random
from functools import lru_cache

GENERATOR = "sparkload.workloads.blocktext"  # how manifests name it
_WORDS = (
    "the and for are but not you all any can had her was one our out day get has him his how "
    "man new now old see two way who boy did its let put say she too use big end far few got "
    "run set top yes yet ask bad box car cut eye job law lot low map may oil red sea sun war"
)
UNITS = tuple(" " + word for word in _WORDS.split(" "))
assert all(len(unit) == 4 for unit in UNITS)


@lru_cache(maxsize=4096)
def block_text(key: str, units: int) -> str:
    """``units`` seeded units of the block named ``key`` (a prefix of its full text)."""
    return "".join(random.Random(key).choices(UNITS, k=units))


def prompt_text(
    hash_ids: tuple[int, ...], tokens: int, block_tokens: int, salt: str, own: str
) -> str:
    """``tokens`` units: block i is block ``hash_ids[i]``'s text (the last cut short); a prompt
    longer than its blocks goes on with blocks of its own (``own``: unique to the line)."""
    parts: list[str] = []
    left = tokens
    for i in range(-(-tokens // block_tokens)):
        key = f"{salt}:{hash_ids[i]}" if i < len(hash_ids) else f"{salt}:{own}:{i}"
        take = min(left, block_tokens)
        full = block_text(key, block_tokens)
        parts.append(full if take == block_tokens else full[: take * 4])
        left -= take
    return "".join(parts)
