"""Seeded filler text: survey-note prose from a small vocabulary, all generated here.

The prefill probe's prompts (``prefill.py``) and the ``--input-tokens`` synthetic prompts
(``sparkload.workloads.fitting`` fits prefixes of it to a token count) are made of it. It is
prefix-stable: the text of ``chars`` characters starts the text of more, for the same seed.
"""

from __future__ import annotations

import random

GENERATOR = "sparkload.workloads.filler.filler_text"  # how manifests name it (``prompts``)

# A small vocabulary of survey-note prose: plausible text for a tokenizer, all generated here.
_SUBJECTS = (
    "the north transect",
    "our second team",
    "the river gauge",
    "a shallow pond",
    "the ridge camp",
    "the weather mast",
    "an old stone wall",
    "the eastern meadow",
    "the sample crate",
    "a fallen larch",
    "the pump house",
    "the lower terrace",
)
_VERBS = (
    "showed",
    "recorded",
    "reached",
    "lost",
    "needed",
    "gained",
    "held",
    "crossed",
    "measured",
    "replaced",
    "flooded",
    "cleared",
)
_OBJECTS = (
    "fresh silt along the bank",
    "a steady reading all morning",
    "two extra sample bags",
    "the marker post by noon",
    "light frost on the panels",
    "a drop in water level",
    "loose gravel near the path",
    "new growth on the slope",
    "the spare battery pack",
    "a narrow gap in the fence",
    "three nesting pairs",
    "the calibration card",
)
_TAILS = (
    "before the rain started",
    "after lunch",
    "despite the wind",
    "as expected",
    "for the third day running",
    "while the light was good",
    "near the old survey pin",
    "according to the log",
    "without further trouble",
    "at the usual time",
)


def filler_text(chars: int, seed: int) -> str:
    """About ``chars`` characters of sentence-shaped prose from a seeded generator."""
    rng = random.Random(f"prefill:{seed}")
    parts: list[str] = []
    total = 0
    day = 1
    while total < chars:
        sentence = (
            f"Day {day}: {rng.choice(_SUBJECTS)} {rng.choice(_VERBS)} "
            f"{rng.choice(_OBJECTS)} {rng.choice(_TAILS)}, reading {rng.randint(2, 998)} "
            f"at station {rng.randint(1, 64)}."
        )
        day += rng.random() < 0.2
        parts.append(sentence)
        total += len(sentence) + 1
    return " ".join(parts)[: max(chars, 1)]
