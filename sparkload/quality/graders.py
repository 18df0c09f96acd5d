"""Grading one reply against one item: what the reply answered, and whether that is right.

``grade(item, reply)`` dispatches on the item's match rule. Every rule is a pure function of
the reply's text; each says below whose rule it follows.

**Final number** (GSM8K, the arithmetic probe, a generic file's ``numeric``), as lighteval and
aiperf grade GSM8K:

1. the number after the first ``####`` (lighteval's ``gsm8k_normalizer``, the pattern
   ``#### (-?[0-9.,]+)`` of OpenAI's grade-school-math release, which lm-evaluation-harness's
   "strict-match" also reads), a ``$`` after the marker allowed;
2. else the last number in the reply (aiperf's fallback for chat models, which rarely write
   ``####``; lm-evaluation-harness's "flexible-extract" also takes the last match): "The answer
   is 42." and "42 apples" both read 42;
3. commas and ``$`` stripped, a sentence's final period never part of the number
   (lm-evaluation-harness's ``regexes_to_ignore``), compared as numbers within the item's
   tolerance (1e-6 by default, aiperf's: "24" and "24.0" agree).

**Multiple choice** (MMLU's layout), the letter the reply gives, among the item's letters:

1. the last "Answer: X" (OpenAI simple-evals' ``Answer\\s*:\\s*X``, widened to "the answer is
   X", "(X)", "**X**" and "$X$"; a lower-case x only where it cannot be a word: "answer: b",
   "answer is (c)", never "the answer is a bit");
2. else the reply's first line when it is a letter alone or opening an option: "B", "(B)",
   "B)", "B.", "B:", "b)", "**B**", "B) Paris" (lighteval's ``ExactMatches`` on the first line,
   as aiperf's multiple-choice grader reads MMLU, widened to those wrappings);
3. else the whole reply, when it is exactly one option's text (case and a final period aside);
4. else nothing is read, and the item is wrong: no letter is guessed from inside a sentence.

**Exact**: the reply equals the expected text once both are trimmed, runs of white space made
one space, case folded and one final period dropped (lm-evaluation-harness's ``exact_match``
with ``ignore_case``).

**Regex**: Python's ``re.search`` of the expected pattern in the reply; what it matched (its
first group, if it has one) is the extracted answer.

**Contains** (the retrieval probe): the key appears in the reply as a whole word (RULER's
needle-in-a-haystack string match, held to whole words so 1234567 is not found in 91234567);
else the extracted answer is the reply's last number, what it said instead.

**Tool calls** (a BFCL file): the reply's tool calls, not its text, by BFCL's AST checker's
rules (``toolcalls``); ``failure`` says why a wrong one is wrong.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from typing import NamedTuple

from sparkload.quality import toolcalls
from sparkload.quality.items import (
    MATCH_CHOICE,
    MATCH_CONTAINS,
    MATCH_EXACT,
    MATCH_NUMERIC,
    MATCH_REGEX,
    MATCH_TOOL_CALLS,
    Item,
)
from sparkload.transport.tally import ToolCall

EXTRACTED_CHARS = 200  # the most of a reply kept as an exact match's extracted answer

_NUMBER = r"-?\$?[0-9][0-9,]*(?:\.[0-9]+)?"
_MARKED = re.compile(r"####\s*\$?\s*(" + _NUMBER + ")")
_ANY_NUMBER = re.compile(_NUMBER)
# "Answer: X" and its wrappings; group 1: a bracketed letter, 2: a capital, 3: a small letter
# that cannot be a word (followed by ")", ".", ":" or the end)
_ANSWER = re.compile(
    r"(?i:\banswer\b)(?:\s+is)?\s*[:=]?\s*(?:\*\*|\$)?\s*"
    r"(?:[(\[]([A-Za-z])[)\]]|([A-Z])(?![A-Za-z0-9])|([a-z])(?=[).:]|\s*$))"
)
# a first line that is a letter alone or opening an option: "B", "(B)", "B)", "B.", "b) Paris"
_OPENING = re.compile(r"^(?:[(\[]([A-Za-z])[)\]]|([A-Za-z])(?:[).:](?:\s|$)|$))")


class Grade(NamedTuple):
    """What the reply answered (None: nothing the rule reads) and whether it is right."""

    extracted: str | None
    correct: bool


def grade(item: Item, reply: str, calls: Sequence[ToolCall] = ()) -> Grade:
    """Grade one reply to ``item`` by its match rule (``calls``: the reply's tool calls)."""
    if item.match == MATCH_TOOL_CALLS and item.answer is not None:
        made = toolcalls.said_calls(item.answer, calls)
        return Grade(toolcalls.extracted(made), toolcalls.failure(item.answer, made) is None)
    if item.match == MATCH_NUMERIC:
        return grade_number(reply, float(item.expected), item.tolerance)
    if item.match == MATCH_CHOICE:
        letter = choice_letter(reply, item.letters, item.choices)
        return Grade(letter, letter is not None and letter == item.expected)
    if item.match == MATCH_EXACT:
        said = normalized(reply)
        return Grade(said[:EXTRACTED_CHARS], said == normalized(item.expected))
    if item.match == MATCH_REGEX:
        return grade_regex(reply, item.expected)
    if item.match == MATCH_CONTAINS:
        return grade_contains(reply, item.expected)
    raise ValueError(f"no grading rule {item.match!r}")


def failure(item: Item, calls: Sequence[ToolCall]) -> str | None:
    """Why a tool-call item's reply is wrong (one of ``toolcalls.FAILURES``); None: it is
    right, or the item is not a tool-call item."""
    if item.answer is None:
        return None
    return toolcalls.failure(item.answer, toolcalls.said_calls(item.answer, calls))


def final_number(text: str) -> str | None:
    """The answer a GSM8K grader reads: the number after the first ``####``, else the last
    number, with ``$`` and commas stripped (None: the text holds no number)."""
    marked = _MARKED.search(text)
    found = marked.group(1) if marked else None
    if found is None:
        numbers = _ANY_NUMBER.findall(text)
        found = numbers[-1] if numbers else None
    return None if found is None else found.replace("$", "").replace(",", "")


def grade_number(reply: str, expected: float, tolerance: float) -> Grade:
    said = final_number(reply)
    if said is None:
        return Grade(None, False)
    try:
        value = float(said)
    except ValueError:  # "1,2,3" reads as "123"; a lone "-" cannot occur: a digit is required
        return Grade(said, False)
    return Grade(said, math.isclose(value, expected, rel_tol=0.0, abs_tol=tolerance))


def choice_letter(reply: str, letters: str, choices: tuple[str, ...] = ()) -> str | None:
    """The letter (upper case, one of ``letters``) a multiple-choice reply gives, else None."""
    allowed = set(letters.upper())
    answered = [(m.group(1) or m.group(2) or m.group(3)).upper() for m in _ANSWER.finditer(reply)]
    answered = [letter for letter in answered if letter in allowed]
    if answered:
        return answered[-1]
    lines = [line.strip().strip("*").strip() for line in reply.strip().splitlines()]
    first = next((line for line in lines if line), "")
    opening = _OPENING.match(first)
    if opening is not None:
        letter = (opening.group(1) or opening.group(2)).upper()
        if letter in allowed:
            return letter
    said = normalized(reply)
    matching = [
        letter for letter, text in zip(letters, choices, strict=False) if normalized(text) == said
    ]
    return matching[0] if len(matching) == 1 else None


def normalized(text: str) -> str:
    """Trimmed, white space made single spaces, case folded, one final period dropped."""
    text = " ".join(text.split()).casefold()
    return text[:-1].rstrip() if text.endswith(".") else text


def grade_regex(reply: str, pattern: str) -> Grade:
    found = re.search(pattern, reply)
    if found is None:
        return Grade(None, False)
    said = found.group(1) if found.re.groups and found.group(1) is not None else found.group(0)
    return Grade(said[:EXTRACTED_CHARS], True)


def grade_contains(reply: str, key: str) -> Grade:
    if re.search(r"(?<!\w)" + re.escape(key) + r"(?!\w)", reply):
        return Grade(key, True)
    return Grade(final_number(reply), False)
