"""Output drift: a set share of greedy replies changed when they run batched beside others.

A greedy (temperature 0) reply of the simulator is the same text for the same prompt and
length, every time (``sse.token_text``). ``--output-drift P`` changes a share P of them, and
only those admitted while another request was running or waiting: alone (concurrency 1) a reply
never changes, as a batch-invariant server's would not; batched, P of them do, from one token
on, as a batched kernel's different reduction order can tip one greedy choice. These are the
simulator's settings, to test the fidelity path end to end, never a claim about a model.

Which replies: every batched greedy request is counted, and request k (from 0) is changed when
``floor((k + 1) P) > floor(k P)``, so the share is P within one request of every run, not a draw
that 160 requests hold only to +- 5 points. From which token: a hash of the prompt and k picks
the answer token, anywhere from the first to the last (a one-token reply changes at its
first); every token from there on is a different word.
"""

from __future__ import annotations

import hashlib
import math
from dataclasses import dataclass, field


def greedy(body: dict) -> bool:
    """The body asks for greedy decoding: temperature 0 (vLLM's, when a body says none, is not)."""
    temperature = body.get("temperature")
    return (
        isinstance(temperature, (int, float))
        and not isinstance(temperature, bool)
        and (temperature == 0)
    )


@dataclass
class OutputDrift:
    """Which greedy replies change, and from which answer token (``plan``)."""

    share: float  # 0..1 of the batched greedy replies
    batched: int = field(default=0, init=False)  # batched greedy requests seen so far

    def plan(self, body: dict, prompt: str, answer_tokens: int, others: int) -> int | None:
        """The answer token from which this reply changes, or None (unchanged): ``others`` is
        how many requests were running or waiting when it arrived, ``answer_tokens`` its
        answer's length."""
        if self.share <= 0 or others < 1 or not greedy(body):
            return None
        k = self.batched
        self.batched += 1
        if math.floor((k + 1) * self.share) <= math.floor(k * self.share):
            return None
        digest = hashlib.sha256(f"{k}\n{prompt}".encode()).digest()
        return int.from_bytes(digest[:8], "big") % max(answer_tokens, 1)
