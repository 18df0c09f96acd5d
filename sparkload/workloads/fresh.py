"""The fresh workload: write a module from a one-line spec (the single-Spark notes' hard case).

Each request sends a fixed instruction followed by one spec of ``prompts/fresh.txt``, in the
seeded prompt order, behind a cache-busting nonce, and asks for 400 output tokens, pinned, with
the notes' method (greedy, thinking off). Nothing in the prompt can be copied into the answer,
so speculative decoding's acceptance is low.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, ClassVar

from sparkload.inputs.prompts import load_prompts
from sparkload.paths import FRESH_SPECS
from sparkload.records import WORKLOAD_FRESH
from sparkload.workloads.contract import (
    PlannedRequest,
    Sampling,
    Slot,
    Synthetic,
    UserState,
    run_max_tokens,
)
from sparkload.workloads.promptset import NOTES_METHOD, PromptSetWorkload, pinned

if TYPE_CHECKING:
    from sparkload.config import RunOptions

FRESH_INSTRUCTION = (
    "Write a complete, working Python module for the specification below. Use type hints and "
    "docstrings, keep it self-contained (standard library only), and output only the code.\n\n"
    "Specification: "
)


@dataclass
class FreshWorkload(PromptSetWorkload):
    name: ClassVar[str] = WORKLOAD_FRESH

    @classmethod
    def from_options(cls, opts: RunOptions, synthetic: Synthetic | None = None) -> FreshWorkload:
        specs = load_prompts(FRESH_SPECS)
        return cls(
            prompts=tuple(FRESH_INSTRUCTION + spec for spec in specs.prompts),
            source=specs.describe(),
            max_tokens=run_max_tokens(WORKLOAD_FRESH, opts),
            sampling=Sampling(NOTES_METHOD, pinned(opts, by_default=True)),
            identical=opts.workload.identical_prompts,
            cache_bust=True,
        )

    def next_request(self, user: UserState, slot: Slot) -> PlannedRequest:
        index = self.drawn(user)
        return self.planned_request(self.prompts[index], index)
