"""How predictable a request's output is to a drafter, judged from the request alone.

Draft acceptance depends on the text being written, not on the server: the measurement notes
see 31.7-36.9 % at k=7 when a module is written from a one-line spec ("fresh") and 98.7 % when
a ~2,000-token file is echoed back with additions ("edit-heavy"). The simulator cannot read the
answer, but the request shows which case it is: how much source material the prompt carries
compared with the output it asks for.

* The first ``INSTRUCTION_TOKENS`` of a prompt are taken as instruction (a chat turn, a one-line
  spec, a template): nothing a drafter can copy. The rest is source material.
* A request is fully copy-driven once its source covers ``COPY_COVERAGE`` of the requested
  output (fit: the notes' edit at 3,000 output tokens from a ~1,830-token prompt still accepts
  98.7 %, so the additions in the file's own style are as predictable as the copied lines);
  below that, the share falls linearly to 0.

The share is the probability that a verify pass copies (uses the build's copy curve) rather
than writes new text (the novel curve). The sparkload workloads land at the ends: fresh
(~90-token prompt, 400 out) and chat (~128-token prompt) 0; edit (~1,830-token prompt, 1,500
or 3,000 out) 1.

What is asked also matters: code and extraction are predictable, creative writing is not (the
idea of SpecBench and SPEED-Bench). ``--category-acceptance CATEGORY=RATE,...`` sets a
per-draft acceptance rate per request category: a request whose ``X-Sparkload-Category``
header (sent by sparkload for a dataset line with a ``category``; a real server ignores an
unknown header) names a listed category has each of its k drafts accepted in turn at that
rate, in place of the profile's curves. Any other request keeps the profile's, so without the
option the pooled acceptance is the profile's.
"""

from __future__ import annotations

from dataclasses import dataclass

CATEGORY_HEADER = "X-Sparkload-Category"
INSTRUCTION_TOKENS = 256
COPY_COVERAGE = 0.5
METHODS = ("none", "mtp", "dspark")


def copy_share(prompt_tokens: int, max_tokens: int) -> float:
    """Share of verify passes whose output already stands in the prompt (0..1)."""
    source = max(0, prompt_tokens - INSTRUCTION_TOKENS)
    return min(1.0, source / (COPY_COVERAGE * max(1, max_tokens)))


@dataclass(frozen=True)
class SpecChoice:
    """``--spec``: a drafting method and its depth k (k = 0 for ``none``)."""

    method: str
    k: int = 0

    def __str__(self) -> str:
        return self.method if self.method == "none" else f"{self.method}:{self.k}"


def parse_spec(text: str) -> SpecChoice:
    """``none``, ``mtp:K`` or ``dspark:K`` (K a positive integer); ``ValueError`` otherwise."""
    method, _, depth = text.strip().lower().partition(":")
    if method == "none" and not depth:
        return SpecChoice("none")
    if method not in METHODS[1:] or not depth.isdigit() or int(depth) < 1:
        raise ValueError(f"{text!r} is not none, mtp:K or dspark:K with K a positive integer")
    return SpecChoice(method, int(depth))


def parse_category_acceptance(text: str) -> dict[str, float]:
    """``CATEGORY=RATE,...`` (each rate from 0 to 1) → category → rate; ``ValueError`` of one
    line otherwise."""
    rates: dict[str, float] = {}
    for part in (p.strip() for p in text.split(",")):
        category, sep, rate = part.partition("=")
        try:
            value = float(rate)
        except ValueError:
            value = -1.0
        if not sep or not category.strip() or not 0.0 <= value <= 1.0:
            raise ValueError(f"{part!r} is not CATEGORY=RATE with RATE from 0 to 1")
        rates[category.strip()] = value
    return rates
