"""``--accuracy P``: the simulator answers the built-in accuracy probes, right for a share P.

These are the simulator's settings, not a claim about any model: with ``--accuracy 0.8`` a
probe run against the simulator should read about 80 %, which is what the tests and the
matrix's speed-accuracy chart check the grading, tally and report against.

The simulator imports nothing of the load side, so it reads the probes' prompts by their text
(the wording of ``sparkload/quality/probes.py``, held to it by a test):

- **arithmetic**: "... starts the week with N <unit>." then one "Then ..." sentence per
  operation (more arrive, boxes of so many each arrive, taken away, doubles / triples / becomes
  four times as large, shared equally among S and one share kept): the answer is computed
  from the sentences, and the reply is ``#### N``;
- **retrieval**: "Note: the access code for the <thing> is <key>." somewhere in the context and
  the question "What is the access code for the <thing>?": the reply gives the key.

Whether an item is answered right is a function of ``--seed`` and the item alone, so the same
item gets the same answer at every concurrency and in every run. sparkload names the item it
sends in a header (``ITEM_HEADER``, ``arithmetic-17``; a real server ignores it): item n is
right when ``floor(n·P + φ)`` steps up from item n − 1 (φ in [0, 1) from the seed), so any run
of N consecutive items has round(N·P) right, give or take one: P is hit closely at every
level's items, not only within the binomial spread. A request without the header (another
client) is right when a hash of the seed and its prompt, mapped to [0, 1), is below P: over n
items P within the binomial spread, about ±2·sqrt(P(1 − P)/n). A wrong answer is
another number (the result plus 1 to 9) or another seven-digit code. Any other prompt (a
dataset file's question, the workloads' prompts) gets the usual filler: the simulator cannot
know a dataset's answers, so a dataset probe against it scores 0. Without ``--accuracy`` the
simulator answers nothing (filler for every prompt, today's behaviour: a probe scores 0).

The reply's text is laid out over the engine's tokens as a structured reply's is
(``structured.PlannedJson``): the engine decides the count, tokens past the text are spaces.
"""

from __future__ import annotations

import hashlib
import math
import re

from sparkload.sim.structured import PlannedJson

_START = re.compile(r"starts the week with (\d+) ")
_THEN = re.compile(r"Then ([^.]*)\.")
_MORE = re.compile(r"^(\d+) more \S.* arrive$")
_BOXES = re.compile(r"^(\d+) boxes of (\d+) .* each arrive$")
_TAKEN = re.compile(r"^(\d+) .* are taken away$")
_TIMES = re.compile(r"^the number of .* (doubles|triples|becomes four times as large)$")
_SHARED = re.compile(r"^the .* are shared equally among (\d+) ")
_FACTORS = {"doubles": 2, "triples": 3, "becomes four times as large": 4}
_QUESTION = re.compile(r"How many [^?]* at the end\?")
_NOTE = re.compile(r"Note: the access code for the ([a-z ]+) is (\d{7})\.")
_ASKED = re.compile(r"What is the access code for the ([a-z ]+)\?")


def arithmetic_answer(prompt: str) -> int | None:
    """The arithmetic probe's answer to ``prompt`` (None: not one of its problems)."""
    start = _START.search(prompt)
    if start is None or _QUESTION.search(prompt) is None:
        return None
    total = int(start.group(1))
    for sentence in _THEN.findall(prompt[start.end() :]):
        if found := _MORE.match(sentence):
            total += int(found.group(1))
        elif found := _BOXES.match(sentence):
            total += int(found.group(1)) * int(found.group(2))
        elif found := _TAKEN.match(sentence):
            total -= int(found.group(1))
        elif found := _TIMES.match(sentence):
            total *= _FACTORS[found.group(1)]
        elif found := _SHARED.match(sentence):
            total //= int(found.group(1))
        else:
            return None  # a sentence the probe never writes: not its problem
    return total


def retrieval_key(prompt: str) -> str | None:
    """The key the retrieval probe asks for in ``prompt`` (None: not one of its items)."""
    asked = _ASKED.search(prompt)
    if asked is None:
        return None
    for thing, key in _NOTE.findall(prompt):
        if thing == asked.group(1):
            return key
    return None


ITEM_HEADER = "X-Sparkload-Item"  # the load side's ``quality.items.ITEM_HEADER`` (a test)
_NUMBERED = re.compile(r"(\d+)$")


def draw(seed: int, prompt: str) -> float:
    """The item's number in [0, 1): a function of the seed and the prompt alone."""
    digest = hashlib.sha256(f"{seed}\0{prompt}".encode()).digest()
    return int.from_bytes(digest[:8], "big") / 2**64


class AccuracyReplier:
    """Plans the reply to a probe's prompt: right for a share ``accuracy`` of items (None: the
    simulator answers no probe)."""

    def __init__(self, accuracy: float | None, seed: int = 0) -> None:
        self.accuracy = accuracy
        self.seed = seed

    def right(self, prompt: str, item: str | None) -> tuple[bool, float]:
        """Whether the item is answered right, and its draw (which wrong answer it gets)."""
        assert self.accuracy is not None
        u = draw(self.seed, prompt)
        numbered = _NUMBERED.search(item or "")
        if numbered is None:
            return u < self.accuracy, u
        n, phase = int(numbered.group(1)), draw(self.seed, "")
        steps = math.floor(n * self.accuracy + phase) - math.floor((n - 1) * self.accuracy + phase)
        return steps >= 1, u

    def plan(self, prompt: str, item: str | None = None) -> PlannedJson | None:
        """The reply's text (None: not a probe's prompt, or no ``--accuracy``: filler);
        ``item``: the request's ``ITEM_HEADER``."""
        if self.accuracy is None:
            return None
        number = arithmetic_answer(prompt)
        key = retrieval_key(prompt) if number is None else None
        if number is None and key is None:
            return None
        right, u = self.right(prompt, item)
        off = 1 + int(u * 1e6) % 9  # how far a wrong answer is from the right one
        if number is not None:
            return PlannedJson(f"#### {number if right else number + off}")
        assert key is not None
        said = key if right else str((int(key) - 1_000_000 + off) % 9_000_000 + 1_000_000)
        return PlannedJson(f"The access code is {said}.")
