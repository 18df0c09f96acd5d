"""The chat workload (the ladder's default): a prompt file, a dataset, or synthetic prompts.

- **Prompt file** (``--prompts``, one prompt per line): each request sends one line, in the
  seeded prompt order, as one user message; prompts are reused across levels (the quantization
  report's method) unless ``--cache-bust``.
- **Dataset** (JSONL messages or ShareGPT, ``sparkload.datasets``): a prompt is sent as its
  messages (system prompt and all) and asks for its own ``max_tokens`` where its line gives one
  (else the run's); ``--output-tokens`` overrides both. ``--api completions`` sends text, so it
  takes only datasets of one user message per prompt.
- **Synthetic** (``--input-tokens N``): a pool of ``SYNTHETIC_POOL`` distinct filler texts, each
  fitted once, on the master, to exactly N prompt tokens (``sparkload.tokens``); the texts reach
  the workers with the options of the test's start (``Synthetic``). They are fixed texts (a
  nonce would change the count), distinct from their first sentence on: the first request of
  each is cold, and repeats can be served from the prefix cache, as chat prompts without
  ``--cache-bust``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, ClassVar

from sparkload.datasets import DatasetPrompt
from sparkload.errors import ConfigError
from sparkload.prompts import load_prompts
from sparkload.stream import API_COMPLETIONS
from sparkload.workloads.contract import (
    PlannedRequest,
    Sampling,
    Slot,
    Synthetic,
    UserState,
    check_lengths_agree,
    run_max_tokens,
)
from sparkload.workloads.names import CHAT
from sparkload.workloads.promptset import PromptSetWorkload, pinned

if TYPE_CHECKING:
    from sparkload.config import RunOptions

SYNTHETIC_POOL = 16  # distinct --input-tokens prompts


@dataclass
class ChatWorkload(PromptSetWorkload):
    name: ClassVar[str] = CHAT
    dataset: tuple[DatasetPrompt, ...] = ()  # per prompt: the messages sent (datasets only)

    @classmethod
    def settle(cls, opts: RunOptions) -> RunOptions:
        check_lengths_agree(opts)
        if opts.input_tokens is not None and opts.cache_bust:
            raise ConfigError(
                "--input-tokens and --cache-bust: a nonce would change the token count; the "
                "synthetic prompts are distinct texts already"
            )
        return opts

    @classmethod
    def from_options(cls, opts: RunOptions, synthetic: Synthetic | None = None) -> ChatWorkload:
        dataset: tuple[DatasetPrompt, ...] = ()
        if opts.input_tokens is not None:
            prompts = synthetic.texts if synthetic else ()
            source = synthetic.source if synthetic else {"input_tokens": opts.input_tokens}
        else:
            prompt_set = load_prompts(opts.prompts, opts.reply_lengths)
            prompts, source = prompt_set.prompts, prompt_set.describe()
            dataset = _for_api(prompt_set.dataset, opts)
        return cls(
            prompts=prompts,
            source=source,
            max_tokens=run_max_tokens(CHAT, opts),
            sampling=Sampling(pinned=pinned(opts, by_default=False)),
            identical=opts.identical_prompts,
            cache_bust=opts.cache_bust,
            dataset=dataset,
        )

    def next_request(self, user: UserState, slot: Slot) -> PlannedRequest:
        index = self.drawn(user)
        if not self.dataset:
            return self.planned_request(self.prompts[index], index)
        entry = self.dataset[index]
        return self.planned_request(
            self.prompts[index], index, messages=entry.messages, max_tokens=entry.max_tokens
        )


def _for_api(dataset: tuple[DatasetPrompt, ...], opts: RunOptions) -> tuple[DatasetPrompt, ...]:
    """A dataset as this run sends it: one text for ``--api completions`` (refused when a prompt
    has several messages: joining them would drop the roles the chat template marks), and the
    lines' own max_tokens unless ``--output-tokens`` pins every request."""
    if opts.api == API_COMPLETIONS:
        several = next((i for i, p in enumerate(dataset, 1) if len(p.messages) > 1), None)
        if several is not None:
            raise ConfigError(
                f"--api completions sends one text, but prompt {several} of {opts.prompts} has "
                "several messages (a system prompt or turns): use --api chat"
            )
    if opts.output_tokens is not None:
        return tuple(DatasetPrompt(p.messages) for p in dataset)
    return dataset
