"""The prefill probe: prompts of ~8K / 32K / 100K tokens, one output token, one user.

Level i of the run is prompt size i: the workload runs its own ladder, one C=1 level per size
with ``--prefill-runs`` measured requests each, after the level's warm-up request (``settle``).
The text is generated once per size from the seeded filler (``filler.py``); each request
prepends its nonce and starts the text at a different sentence, so no two requests share content
or a prefix. The record keeps the size (``target_tokens``) and the prefill time (``prefill_s``).
"""

from __future__ import annotations

import random
import uuid
from dataclasses import dataclass
from typing import TYPE_CHECKING, ClassVar

from sparkload.config import OUTPUT_TOKENS, changed
from sparkload.errors import ConfigError
from sparkload.records import ERROR_EMPTY_OUTPUT, STATUS_OK, WORKLOAD_PREFILL, RequestRecord
from sparkload.sim.textlength import CHARS_PER_TOKEN
from sparkload.transport.tally import Reply
from sparkload.workloads.contract import (
    PlannedRequest,
    Sampling,
    Slot,
    Synthetic,
    UserState,
    refuse_input_tokens,
)
from sparkload.workloads.filler import GENERATOR, filler_text
from sparkload.workloads.promptset import PromptSetWorkload

if TYPE_CHECKING:
    from sparkload.config import RunOptions

PREFILL_INSTRUCTION = (
    "The notes below are field observations from a survey team. Read them and answer with a "
    "single word: were any instruments mentioned?\n\n"
)


@dataclass
class PrefillWorkload(PromptSetWorkload):
    """``prompts``: the filler text of each size, in the order of ``sizes``."""

    name: ClassVar[str] = WORKLOAD_PREFILL
    sizes: tuple[int, ...] = ()  # prompt sizes in tokens, one level each

    @classmethod
    def settle(cls, opts: RunOptions) -> RunOptions:
        """A C=1 level per size, ``--prefill-runs`` requests each; one output token."""
        if opts.plan.step_duration or opts.plan.arrival_rate:
            raise ConfigError(
                "--workload prefill runs its own C=1 ladder: drop --step-duration/--arrival-rate"
            )
        if opts.workload.output_tokens is not None:
            raise ConfigError("--workload prefill asks for 1 output token: drop --output-tokens")
        refuse_input_tokens(cls.name, opts)
        return changed(
            opts,
            ladder=(1,) * len(opts.workload.prefill_sizes),
            requests_per_user=opts.workload.prefill_runs,
        )

    @classmethod
    def from_options(cls, opts: RunOptions, synthetic: Synthetic | None = None) -> PrefillWorkload:
        return cls(
            prompts=tuple(
                filler_text(size * CHARS_PER_TOKEN - len(PREFILL_INSTRUCTION), opts.plan.seed + i)
                for i, size in enumerate(opts.workload.prefill_sizes)
            ),
            source={
                "generator": GENERATOR,
                "seed": opts.plan.seed,
                "sizes_tokens": list(opts.workload.prefill_sizes),
                "chars_per_token": CHARS_PER_TOKEN,
            },
            max_tokens=OUTPUT_TOKENS[WORKLOAD_PREFILL],
            sampling=Sampling(),
            identical=opts.workload.identical_prompts,
            cache_bust=True,
            sizes=opts.workload.prefill_sizes,
        )

    def manifest(self) -> dict:
        return {**super().manifest(), "prefill_sizes": list(self.sizes)}

    def next_request(self, user: UserState, slot: Slot) -> PlannedRequest:
        size = self.sizes[max(slot.level_index, 0) % len(self.sizes)]  # --repeat counts on
        index = self.sizes.index(size)
        text = self.prompts[index]
        if not self.identical:
            text = _rotate(text, random.Random(uuid.uuid4().int))
        return self.planned_request(PREFILL_INSTRUCTION + text, index, {"target_tokens": size})

    def after(
        self, user: UserState, planned: PlannedRequest, record: RequestRecord, reply: Reply | None
    ) -> None:
        """The prefill time: TTFT, or the end of the stream when no token was visible.

        A max_tokens=1 probe of a reasoning model may stream no visible token (the only token is
        the think tag the reasoning parser swallows): when usage still counts it, the request
        did what a probe needs and is ok, even without a finish reason (with one output token,
        finish, usage and [DONE] follow at once, so the end of the stream is the prefill time).
        """
        if record.error_kind == ERROR_EMPTY_OUTPUT and (record.output_tokens or 0) >= 1:
            record.status, record.error_kind, record.error = STATUS_OK, None, None
            record.derive()
        if record.status == STATUS_OK:
            if not record.chunks:
                record.extra["visible_output"] = False
            record.extra["prefill_s"] = record.ttft if record.ttft is not None else record.latency


def _rotate(text: str, rng: random.Random) -> str:
    """The same sentences starting at a random one (same length, different content order)."""
    cut = text.find(". ", rng.randrange(len(text)))
    if cut < 0:
        return text
    return text[cut + 2 :] + " " + text[: cut + 1]
