"""The built-in probes: items generated from a seed, with exact answers, that need no download.

- **arithmetic**: multi-step word problems on whole numbers (a stock that goes up and down:
  deliveries, boxes of so many each, things taken away, doubled, shared out), ``steps``
  operations each, graded by the final number as GSM8K is. Every intermediate value is a
  whole number below 100,000, so the answer is exact.
- **retrieval**: a key (a seven-digit access code) planted at ``depth`` (0: the start, 1: the
  end) of a context of ``context_tokens`` tokens of the workloads' seeded filler prose
  (``workloads.filler``), the tokens counted and the filler fitted as ``--input-tokens``
  fits prompts (``workloads.fitting``); the key goes in at the sentence end nearest to the
  asked depth. Graded by whether the reply gives the key. Long-context retrieval is what a
  quantized KV cache or a 4-bit model loses first.

Item ``i`` of a probe depends only on the seed, the probe's parameters and ``i``, never on how
many items are asked for: 20 items are the first 20 of 50, and a probe can make one item alone
(``arithmetic_item``, ``retrieval_item``).
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from sparkload.errors import ConfigError
from sparkload.quality.items import (
    FINAL_ANSWER_INSTRUCTION,
    KIND_ARITHMETIC,
    KIND_RETRIEVAL,
    MATCH_CONTAINS,
    MATCH_NUMERIC,
    Item,
    ItemSet,
)
from sparkload.workloads.fitting import Counter, fit

SOURCE = "built-in"
MAX_STEPS = 20
MAX_VALUE = 100_000  # every intermediate value stays below it
MIN_CONTEXT_TOKENS = 32
DEFAULT_STEPS = 4
DEFAULT_CONTEXT_TOKENS = 2000
DEFAULT_DEPTH = 0.5


@dataclass(frozen=True)
class _Scene:
    opening: str  # "A depot"
    named: str  # "the depot"
    unit: str  # "crates"
    groups: str  # "lorries": what a stock is shared among


_SCENES = (
    _Scene("A depot", "the depot", "crates", "lorries"),
    _Scene("A library", "the library", "books", "reading rooms"),
    _Scene("A farm stall", "the stall", "apples", "baskets"),
    _Scene("A workshop", "the workshop", "bolts", "tool boxes"),
    _Scene("A bakery", "the bakery", "rolls", "trays"),
    _Scene("A school", "the school", "pencils", "classes"),
    _Scene("A harbour shed", "the shed", "ropes", "boats"),
    _Scene("A seed bank", "the seed bank", "packets", "drawers"),
)
_TIMES = {2: "doubles", 3: "triples", 4: "becomes four times as large"}
GRADING = {
    KIND_ARITHMETIC: "final number of the reply (#### N first, else the last number), as GSM8K",
    KIND_RETRIEVAL: "the planted key, as a whole word anywhere in the reply (RULER's string match)",
}


def arithmetic(count: int, seed: int = 0, steps: int = DEFAULT_STEPS) -> ItemSet:
    """``count`` arithmetic word problems of ``steps`` operations each."""
    _check_count(count)
    if not 1 <= steps <= MAX_STEPS:
        raise ConfigError(f"--steps: give 1 to {MAX_STEPS} operations per problem, not {steps}")
    return ItemSet(
        KIND_ARITHMETIC,
        KIND_ARITHMETIC,
        GRADING[KIND_ARITHMETIC],
        SOURCE,
        tuple(arithmetic_item(i, seed, steps) for i in range(count)),
        {"seed": seed, "steps": steps},
    )


def arithmetic_item(index: int, seed: int, steps: int) -> Item:
    """Problem ``index`` of the arithmetic probe (a function of the seed and steps alone)."""
    rng = random.Random(f"arithmetic:{seed}:{steps}:{index}")
    scene = rng.choice(_SCENES)
    total = rng.randint(20, 200)
    sentences = [f"{scene.opening} starts the week with {total} {scene.unit}."]
    for _ in range(steps):
        sentence, total = _step(rng, scene, total)
        sentences.append(sentence)
    sentences.append(f"How many {scene.unit} does {scene.named} have at the end?")
    prompt = " ".join(sentences) + "\n\n" + FINAL_ANSWER_INSTRUCTION
    return Item(f"{KIND_ARITHMETIC}-{index + 1}", prompt, str(total), MATCH_NUMERIC)


def _step(rng: random.Random, scene: _Scene, total: int) -> tuple[str, int]:
    """One operation on the running total, as a sentence, and the new total."""
    divisors = [d for d in range(2, 10) if total % d == 0]
    possible = {
        "add": total + 99 < MAX_VALUE,
        "boxes": total + 9 * 24 < MAX_VALUE,
        "take": total > 1,  # so one of the five is always possible
        "times": total * 2 < MAX_VALUE,
        "share": bool(divisors),
    }
    kind = rng.choice([name for name, can in possible.items() if can])
    if kind == "add":
        more = rng.randint(5, 99)
        return f"Then {more} more {scene.unit} arrive.", total + more
    if kind == "boxes":
        boxes, each = rng.randint(2, 9), rng.randint(2, 24)
        return f"Then {boxes} boxes of {each} {scene.unit} each arrive.", total + boxes * each
    if kind == "take":
        taken = rng.randint(1, min(total - 1, 999))
        return f"Then {taken} {scene.unit} are taken away.", total - taken
    if kind == "times":
        factor = rng.choice([m for m in _TIMES if total * m < MAX_VALUE])
        return f"Then the number of {scene.unit} {_TIMES[factor]}.", total * factor
    share = rng.choice(divisors)
    return (
        f"Then the {scene.unit} are shared equally among {share} {scene.groups}, and "
        f"{scene.named} keeps one share.",
        total // share,
    )


_THINGS = (
    "blue supply cabinet",
    "radio room",
    "generator shed",
    "archive safe",
    "boat house",
    "seed vault",
    "map room",
    "fuel store",
    "north hut",
    "lab freezer",
)
RETRIEVAL_INTRO = "Below are a field team's notes. One of them gives an access code."


def retrieval(
    count: int,
    counter: Counter,
    seed: int = 0,
    context_tokens: int = DEFAULT_CONTEXT_TOKENS,
    depth: float = DEFAULT_DEPTH,
) -> ItemSet:
    """``count`` retrieval items: a key at ``depth`` of a context of ``context_tokens`` tokens
    by ``counter``."""
    _check_count(count)
    check_retrieval(context_tokens, depth)
    items = tuple(retrieval_item(i, counter, seed, context_tokens, depth) for i in range(count))
    counted = [int(item.details["context_tokens"]) for item in items]
    depths = [float(item.details["depth"]) for item in items]
    return ItemSet(
        KIND_RETRIEVAL,
        KIND_RETRIEVAL,
        GRADING[KIND_RETRIEVAL],
        SOURCE,
        items,
        {
            "seed": seed,
            "context_tokens": context_tokens,
            "depth": depth,
            "token_count": counter.method,
            "context_tokens_counted": [min(counted), max(counted)],
            "depth_counted": [min(depths), max(depths)],
        },
    )


def check_retrieval(context_tokens: int, depth: float) -> None:
    """A ConfigError for a context too short to hold the key, or a depth outside it."""
    if context_tokens < MIN_CONTEXT_TOKENS:
        raise ConfigError(
            f"--context-tokens: give {MIN_CONTEXT_TOKENS} or more, not {context_tokens}"
        )
    if not 0 <= depth <= 1:
        raise ConfigError(f"--depth: give a share of the context from 0 to 1, not {depth:g}")


def retrieval_item(
    index: int, counter: Counter, seed: int, context_tokens: int, depth: float
) -> Item:
    """Retrieval item ``index``: its key and filler depend on the seed and the index alone."""
    rng = random.Random(f"retrieval:{seed}:{index}")
    key = str(rng.randint(1_000_000, 9_999_999))
    thing = rng.choice(_THINGS)
    needle = f"Note: the access code for the {thing} is {key}."
    filler_seed = 7919 + 1_000_003 * seed + index  # apart from the synthetic prompts' seeds
    hay = max(context_tokens - counter.count(needle), 1)
    full, _ = fit(counter, hay, filler_seed)
    ahead = round(depth * hay)
    if ahead <= 0:
        before = ""
    elif ahead >= hay:
        before = full
    else:
        cut, _ = fit(counter, ahead, filler_seed)  # a prefix of the same filler
        before = full[: _nearest_sentence_end(full, min(len(cut), len(full)))]
    after = full[len(before) :].strip()
    context = " ".join(part for part in (before.strip(), needle, after) if part)
    counted = counter.count(context)
    question = f"What is the access code for the {thing}? Reply with the code only."
    return Item(
        f"{KIND_RETRIEVAL}-{index + 1}",
        f"{RETRIEVAL_INTRO}\n\n{context}\n\n{question}",
        key,
        MATCH_CONTAINS,
        details={
            "depth": round(counter.count(before) / counted, 4) if before.strip() else 0.0,
            "context_tokens": counted,
        },
    )


def _nearest_sentence_end(text: str, position: int) -> int:
    """The end (after its period) of the sentence end nearest to ``position`` in ``text`` (0:
    the start, when no sentence ends nearer)."""
    ends = [0, len(text)] if text.endswith(".") else [0]
    back = text.rfind(". ", 0, position + 1)
    ahead = text.find(". ", position)
    ends += [i + 1 for i in (back, ahead) if i >= 0]
    return min(ends, key=lambda end: abs(end - position))


def _check_count(count: int) -> None:
    if count < 1:
        raise ConfigError(f"--limit: give 1 or more items, not {count}")
