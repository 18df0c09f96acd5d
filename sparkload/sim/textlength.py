"""How long a text is in tokens, without a tokenizer: ceil(characters / 4).

English prose averages about four characters per token. The simulator counts every prompt this
way (its usage, its prefix-cache blocks, its ``/tokenize``); the load side sizes its prefill
prompts and its no-tokenizer fallback with the same rule, so against the simulator they are
exact. Pure, no imports from the server: the load side reads it too.
"""

from __future__ import annotations

import math

CHARS_PER_TOKEN = 4


def estimate_tokens(text: str) -> int:
    return max(1, math.ceil(len(text) / CHARS_PER_TOKEN))
