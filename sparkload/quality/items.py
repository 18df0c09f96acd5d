"""What a probe asks: one ``Item`` per question, an ``ItemSet`` per dataset file or built-in probe.

Items are plain data (an id, the prompt, the expected answer and the name of the rule that
matches a reply against it), so a set can be built once and sent by whoever sends requests;
``graders.grade`` is the one place that reads a reply.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from sparkload.workloads.contract import PlannedRequest

# How a reply is matched against an item's expected answer (``graders``' rules).
MATCH_NUMERIC = "numeric"  # the final number (GSM8K's rule), within a tolerance
MATCH_CHOICE = "choice"  # the letter of a multiple-choice answer
MATCH_EXACT = "exact"  # the whole reply, normalized
MATCH_REGEX = "regex"  # a regular expression found in the reply
MATCH_CONTAINS = "contains"  # the expected key, as a whole word, anywhere in the reply
MATCH_TOOL_CALLS = "tool-calls"  # the reply's tool calls against BFCL's possible answers
GENERIC_MATCHES = (MATCH_EXACT, MATCH_NUMERIC, MATCH_REGEX)  # what a generic file may ask

# What an item set is (``QualityResult.kind``).
KIND_GSM8K = "gsm8k"
KIND_CHOICE = "multiple-choice"
KIND_GENERIC = "generic"
KIND_BFCL = "bfcl"
KIND_ARITHMETIC = "arithmetic"
KIND_RETRIEVAL = "retrieval"
DATASET_KINDS = (KIND_GSM8K, KIND_CHOICE, KIND_GENERIC, KIND_BFCL)
PROBES = (KIND_ARITHMETIC, KIND_RETRIEVAL)

# The header that names the item a probe's request asks (its id): a real server ignores it;
# the built-in simulator's --accuracy reads it (``sim/accuracy.py``, its own copy of the name).
ITEM_HEADER = "X-Sparkload-Item"

TOOL_CHOICE = "auto"  # a tool-call item's: the model decides whether to call (BFCL's FC mode)
NUMERIC_TOLERANCE = 1e-6  # "24" and "24.0" are the same answer (aiperf's GSM8K grader's 1e-6)

# How a numeric answer is asked for: the GSM8K marker the strict rule reads first.
FINAL_ANSWER_INSTRUCTION = (
    "Work it out step by step, then give the final answer as a number on its own last line, "
    "in the form '#### N'."
)


@dataclass(frozen=True)
class ToolAnswer:
    """What a tool-call item's reply is graded against (BFCL's possible answers, ``bfcl``).

    ``functions``: each offered function's parameters as the item gave them (BFCL's own type
    names, which the grader checks values against); ``calls``: the calls wanted, each
    ``(function, {argument: allowed values})``, an allowed ``""`` meaning the argument may be
    left out (none: the reply must call nothing); ``names``: the name each function was sent
    under, where a grammar backend's rules made it differ (a reply may use either)."""

    functions: dict[str, dict[str, Any]]
    calls: tuple[tuple[str, dict[str, list[Any]]], ...]
    names: dict[str, str] = field(default_factory=dict)  # sent name -> the item's name
    any_call: bool = False  # BFCL's relevance items: right when anything is called


@dataclass(frozen=True)
class Item:
    """One question with an exact answer.

    ``expected`` is the gold answer as the rule reads it: a number's text for ``numeric``, a
    letter for ``choice``, a pattern for ``regex``, the key for ``contains``. ``letters`` are a
    multiple-choice item's options (``"ABCD"``) and ``choices`` their texts; ``details`` what a
    built-in probe made of the item (a retrieval item's depth), kept with its outputs."""

    id: str
    prompt: str
    expected: str
    match: str
    tolerance: float = NUMERIC_TOLERANCE
    letters: str = ""
    choices: tuple[str, ...] = ()
    details: dict[str, Any] = field(default_factory=dict)
    # a tool-call item (``MATCH_TOOL_CALLS``): its messages and tools as sent, its answer, and
    # the category its accuracy is also told by (BFCL's: simple, multiple, parallel, ...)
    messages: tuple[dict[str, Any], ...] | None = None
    tools: tuple[dict[str, Any], ...] | None = None
    answer: ToolAnswer | None = None
    category: str = ""


@dataclass(frozen=True)
class ItemSet:
    """A dataset file or a built-in probe: its items and what the results say of it."""

    name: str  # the file's name, or the probe's
    kind: str  # KIND_*
    grading: str  # the rule, in one line (the report and quality.json say it)
    source: str  # the file's path, or "built-in"
    items: tuple[Item, ...]
    parameters: dict[str, Any] = field(default_factory=dict)  # a probe's seed, steps, ...
    sha256: str | None = None

    def planned(self, index: int, max_tokens: int) -> PlannedRequest:
        """Item ``index`` as a request to send: its prompt as one user message (a tool-call
        item's messages, with its tools and ``tool_choice`` auto), the reply wanted back, and
        the record's ``extra`` naming the set and the item (what joins a record to its grade)."""
        item = self.items[index]
        return PlannedRequest(
            item.prompt,
            max_tokens,
            prompt_index=index,
            messages=item.messages,
            extra={"probe": self.name, "item": item.id},
            wants_reply=True,
            tools=item.tools,
            tool_choice=None if item.tools is None else TOOL_CHOICE,
        )

    def limited(self, limit: int | None) -> ItemSet:
        """The first ``limit`` items (all: None)."""
        if limit is None or limit >= len(self.items):
            return self
        return ItemSet(
            self.name,
            self.kind,
            self.grading,
            self.source,
            self.items[:limit],
            {**self.parameters, "limit": limit},
            self.sha256,
        )
