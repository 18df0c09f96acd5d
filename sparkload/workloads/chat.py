"""The chat workload (the ladder's default): a prompt file, a dataset, or synthetic prompts.

- **Prompt file** (``--prompts``, one prompt per line): each request sends one line, in the
  seeded prompt order, as one user message; prompts are reused across levels (the quantization
  report's method) unless ``--cache-bust``.
- **Dataset** (JSONL messages or ShareGPT, ``sparkload.inputs.datasets``): a prompt is sent as its
  messages (system prompt and all) and asks for its own ``max_tokens`` where its line gives one
  (else the run's); ``--output-tokens`` overrides both. ``--api completions`` sends text, so it
  takes only datasets of one user message per prompt.
- **Synthetic** (``--input-tokens N``, ``--seq-dist``): a pool of distinct filler texts, each
  fitted once, on the master, to its exact prompt length (``workloads.fitting``); the texts reach
  the workers with the options of the test's start (``Synthetic``). One length gives 16 texts;
  a spread (``--input-tokens-stddev``, ``--output-tokens-stddev``) or a mix (``--seq-dist``)
  gives 64 entries of stratified lengths (``workloads.lengths``), dealt in the process's seeded
  order, so every round of 64 requests sends the pool's lengths exactly. They are fixed texts (a
  nonce would change the count), distinct from their first sentence on: the first request of
  each is cold, and repeats can be served from the prefix cache, as chat prompts without
  ``--cache-bust``.
- **Batches** (``--batch-size N``, on an API that sends several inputs a request: embeddings):
  a request takes the next N prompts of the order, each as the one request above would send
  it, as its inputs; the record keeps the first's index and fields, and the count.
- **Shared prefixes** (``--prefix-tokens N --prefix-count K``): every synthetic prompt starts
  with one of K fixed N-token texts (a system prompt, as one text with the prompt: the chat
  template and the completions API see one user text), a blank line, then its own part. The
  requests of a process take the prefixes in turn (request n has prefix n mod K, its own part
  from a seeded order of the pool), so the first K requests warm them all and the rest find
  them cached; each record keeps ``prefix`` and ``prefix_tokens``.
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, ClassVar

from sparkload.apis import able_to, wire_api
from sparkload.config.parsers import Component
from sparkload.errors import ConfigError
from sparkload.inputs.datasets import DatasetPrompt
from sparkload.inputs.prompts import load_prompts
from sparkload.records import WORKLOAD_CHAT
from sparkload.workloads.contract import (
    PlannedRequest,
    Sampling,
    Slot,
    Synthetic,
    UserState,
    check_lengths_agree,
    run_max_tokens,
    synthetic_flags,
)
from sparkload.workloads.promptset import PromptSetWorkload, pinned

if TYPE_CHECKING:
    from sparkload.config import RunOptions

MAX_PREFIXES = 256  # each prefix is fitted on the master: a count or a few per prefix


@dataclass
class ChatWorkload(PromptSetWorkload):
    name: ClassVar[str] = WORKLOAD_CHAT
    dataset: tuple[DatasetPrompt, ...] = ()  # per prompt: the messages sent (datasets only)
    synthetic: Synthetic | None = None  # the fitted prompts (--input-tokens, --seq-dist)
    rotation: tuple[int, ...] = ()  # shared prefixes: the pool's order, prefixes in turn
    batch: int = 1  # prompts a request (--batch-size: its inputs)
    _turns: Iterator[int] = field(default_factory=itertools.count, repr=False)

    @classmethod
    def settle(cls, opts: RunOptions) -> RunOptions:
        check_lengths_agree(opts)
        check_synthetic(opts)
        check_batch(opts)
        return opts

    @classmethod
    def from_options(cls, opts: RunOptions, synthetic: Synthetic | None = None) -> ChatWorkload:
        dataset: tuple[DatasetPrompt, ...] = ()
        rotation: tuple[int, ...] = ()
        if opts.workload.synthetic:
            prompts = synthetic.texts if synthetic else ()
            source = synthetic.source if synthetic else {"input_tokens": opts.workload.input_tokens}
            if synthetic and synthetic.prefixes:
                rotation = prefix_rotation(len(prompts), len(synthetic.prefixes), opts.plan.seed)
        else:
            prompt_set = load_prompts(opts.workload.prompts, opts.workload.reply_lengths)
            prompts, source = prompt_set.prompts, prompt_set.describe()
            dataset = _for_api(prompt_set.dataset, opts)
        return cls(
            prompts=prompts,
            source=source,
            max_tokens=_run_output(opts),
            sampling=Sampling(pinned=pinned(opts, by_default=bool(opts.workload.seq_dist))),
            identical=opts.workload.identical_prompts,
            cache_bust=opts.workload.cache_bust,
            dataset=dataset,
            synthetic=synthetic if opts.workload.synthetic else None,
            rotation=rotation,
            batch=opts.request.batch_size,
        )

    def next_request(self, user: UserState, slot: Slot) -> PlannedRequest:
        if self.batch == 1:
            return self._one_request(user)
        planned = [self._one_request(user) for _ in range(self.batch)]
        return replace(planned[0], inputs=tuple(p.text for p in planned))

    def _one_request(self, user: UserState) -> PlannedRequest:
        if self.synthetic is not None:
            return self._synthetic_request(user)
        index = self.drawn(user)
        if not self.dataset:
            return self.planned_request(self.prompts[index], index)
        entry = self.dataset[index]
        planned = self.planned_request(
            self.prompts[index], index, messages=entry.messages, max_tokens=entry.max_tokens
        )
        return replace(planned, schema=entry.schema, category=entry.category)

    def _synthetic_request(self, user: UserState) -> PlannedRequest:
        """A pool entry: the next in turn of the prefixes, else the seeded order's."""
        synthetic = self.synthetic
        assert synthetic is not None
        if self.rotation and not self.identical:
            index = self.rotation[next(self._turns) % len(self.rotation)]
        else:
            index = self.drawn(user)
        fields = {}
        if synthetic.prefixes:
            fields = {
                "prefix": index % len(synthetic.prefixes),
                "prefix_tokens": synthetic.source.get("prefix", {}).get("tokens"),
            }
        outputs = synthetic.outputs
        return self.planned_request(
            synthetic.prompt(index),
            index,
            fields,
            max_tokens=outputs[index] if index < len(outputs) else None,
        )


def check_batch(opts: RunOptions) -> None:
    """``--batch-size`` above 1 needs an API that sends several inputs a request."""
    size = opts.request.batch_size
    if size > 1 and not wire_api(opts.request.api).batches_inputs:
        raise ConfigError(
            f"--batch-size {size}: --api {opts.request.api} sends one prompt a request; "
            f"use --api {able_to('batches_inputs')}"
        )


def refuse_batch(opts: RunOptions) -> None:
    """``--batch-size`` takes the chat workload's prompts: one line for any other workload."""
    if opts.request.batch_size > 1:
        workload = "--trace" if opts.plan.trace is not None else f"--workload {opts.workload.name}"
        raise ConfigError(
            f"--batch-size takes the chat workload's prompts N at a time, not {workload}'s: drop it"
        )


def check_synthetic(opts: RunOptions) -> None:
    """The rules of the synthetic prompts' options: one line naming the conflict."""
    given = synthetic_flags(opts)
    if opts.workload.synthetic and opts.workload.cache_bust:
        raise ConfigError(
            f"{given[0]} and --cache-bust: a nonce would change the token count; the "
            "synthetic prompts are distinct texts already"
        )
    if opts.workload.seq_dist:
        other = [
            flag
            for flag, present in (
                ("--input-tokens", opts.workload.input_tokens is not None),
                ("--input-tokens-stddev", opts.workload.input_tokens_stddev > 0),
                ("--output-tokens", opts.workload.output_tokens is not None),
                ("--output-tokens-stddev", opts.workload.output_tokens_stddev > 0),
                ("--max-tokens", opts.workload.max_tokens is not None),
            )
            if present
        ]
        if other:
            raise ConfigError(
                f"--seq-dist gives every prompt its input and output length: drop "
                f"{', '.join(other)} (a spread is ISL|SD,OSL|SD)"
            )
    if opts.workload.input_tokens_stddev > 0 and opts.workload.input_tokens is None:
        raise ConfigError("--input-tokens-stddev spreads --input-tokens: give --input-tokens")
    if opts.workload.output_tokens_stddev > 0 and (
        opts.workload.output_tokens is None or opts.workload.input_tokens is None
    ):
        raise ConfigError(
            "--output-tokens-stddev spreads the synthetic prompts' --output-tokens: give "
            "--input-tokens and --output-tokens"
        )
    if opts.workload.prefix_tokens is not None and not opts.workload.synthetic:
        raise ConfigError(
            "--prefix-tokens comes before synthetic prompts: add --input-tokens N (or --seq-dist)"
        )
    if opts.workload.prefix_count != 1 and opts.workload.prefix_tokens is None:
        raise ConfigError("--prefix-count without --prefix-tokens: give the prefixes' length")
    if opts.workload.prefix_count > MAX_PREFIXES:
        raise ConfigError(
            f"--prefix-count: at most {MAX_PREFIXES} (each is fitted before the load)"
        )


def run_lengths(opts: RunOptions) -> tuple[Component, ...]:
    """The synthetic prompts' length distribution: ``--seq-dist``, else ``--input-tokens`` (and
    ``--output-tokens``) with their deviations."""
    if opts.workload.seq_dist:
        return opts.workload.seq_dist
    assert opts.workload.input_tokens is not None
    return (
        Component(
            opts.workload.input_tokens,
            opts.workload.output_tokens,
            1.0,
            opts.workload.input_tokens_stddev,
            opts.workload.output_tokens_stddev,
        ),
    )


def prefix_rotation(pool: int, prefixes: int, seed: int) -> tuple[int, ...]:
    """The order a process takes the pool in when prompts share prefixes: entry i has prefix
    i mod ``prefixes``, so a round takes one entry of each prefix, in turn; the rounds come in
    a seeded order."""
    rounds = list(range(pool // prefixes))
    random.Random(f"prefixes:{seed}").shuffle(rounds)
    return tuple(r * prefixes + k for r in rounds for k in range(prefixes))


def _run_output(opts: RunOptions) -> int:
    """The run's output length: the longest of a --seq-dist mix, else the usual one."""
    if opts.workload.seq_dist:
        return max(c.output_tokens or 0 for c in opts.workload.seq_dist) or run_max_tokens(
            WORKLOAD_CHAT, opts
        )
    return run_max_tokens(WORKLOAD_CHAT, opts)


def _for_api(dataset: tuple[DatasetPrompt, ...], opts: RunOptions) -> tuple[DatasetPrompt, ...]:
    """A dataset as this run sends it: one text for ``--api completions`` (refused when a prompt
    has several messages: joining them would drop the roles the chat template marks; or images,
    for an API without content parts), and the
    lines' own max_tokens unless ``--output-tokens`` pins every request."""
    wire = wire_api(opts.request.api)
    if not wire.image_parts:
        pictured = next((i for i, p in enumerate(dataset, 1) if p.has_images), None)
        if pictured is not None:
            raise ConfigError(
                f"--api {opts.request.api} carries no images, but prompt {pictured} of "
                f"{opts.workload.prompts} has some: use --api {able_to('image_parts')}"
            )
    if not wire.carries_messages:
        several = next((i for i, p in enumerate(dataset, 1) if len(p.messages) > 1), None)
        if several is not None:
            raise ConfigError(
                f"--api {opts.request.api} sends one text, but prompt {several} of "
                f"{opts.workload.prompts} has several messages (a system prompt or turns): "
                f"use --api {able_to('carries_messages')}"
            )
    if opts.workload.output_tokens is not None:
        return tuple(
            DatasetPrompt(p.messages, schema=p.schema, category=p.category) for p in dataset
        )
    return dataset
