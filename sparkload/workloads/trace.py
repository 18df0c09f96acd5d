"""The trace workload (``--trace FILE``): each request is one line of a recorded trace.

The load shape sends line i at its timestamp (``shapes.arrival.trace_schedule``) and names it in
the arrival (``Slot.arrival.line``); this workload makes the line's request: a prompt of its
``input_length`` tokens whose blocks are the trace's (``blocktext``: lines that share leading
``hash_ids`` share leading text), asking for exactly its ``output_length`` (pinned with
``ignore_eos`` + ``min_tokens`` unless ``--ignore-eos no``). An Azure trace has no block ids:
every line is its own text. Each record keeps the line (``trace_line``, its number in the file),
its asked input length, and what the trace itself says the prefix cache can serve:
``reused_blocks``, the leading blocks an earlier line sent whole, and ``expected_cached_tokens``
(512 per such block).

Every process loads the same file (the same path, like ``--prompts``); the master adds the run's
salt and how the target counts a block (``Synthetic.source``), which reach the workers with the
options of the test's start.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar

from sparkload.config import changed
from sparkload.errors import ConfigError
from sparkload.inputs.traces import BLOCK_TOKENS, Trace, TraceLine, load_trace
from sparkload.records import WORKLOAD_CHAT, WORKLOAD_TRACE
from sparkload.workloads import blocktext
from sparkload.workloads.contract import (
    PlannedRequest,
    Sampling,
    Slot,
    Synthetic,
    UserState,
    Workload,
    synthetic_flags,
)
from sparkload.workloads.promptset import pinned

if TYPE_CHECKING:
    from sparkload.config import RunOptions


@dataclass
class TraceWorkload(Workload[UserState]):
    name: ClassVar[str] = WORKLOAD_TRACE
    trace: Trace
    reused: tuple[int, ...]  # per line (time order): leading blocks an earlier line sent whole
    source: dict[str, Any]  # the manifest's prompts entry (the master's counts, the salt)
    speedup: float
    max_tokens: int
    sampling: Sampling
    cache_bust: bool = False

    @property
    def prompt_count(self) -> int:
        return len(self.trace.lines)

    @classmethod
    def settle(cls, opts: RunOptions) -> RunOptions:
        """The trace gives every request its prompt and lengths: other prompt options clash."""
        if opts.workload.name not in (WORKLOAD_CHAT, WORKLOAD_TRACE):
            raise ConfigError(
                f"--trace replays the trace's requests; --workload {opts.workload.name} has its own"
            )
        clash = synthetic_flags(opts) + [
            flag
            for flag, present in (
                ("--output-tokens", opts.workload.output_tokens is not None),
                ("--max-tokens", opts.workload.max_tokens is not None),
                ("--identical-prompts", opts.workload.identical_prompts),
                ("--cache-bust", opts.workload.cache_bust),
                ("--reply-lengths", opts.workload.reply_lengths),
            )
            if present
        ]
        if clash:
            raise ConfigError(
                f"--trace gives every request its prompt and lengths: drop {', '.join(clash)}"
            )
        return changed(opts, workload=WORKLOAD_TRACE)

    @classmethod
    def from_options(cls, opts: RunOptions, synthetic: Synthetic | None = None) -> TraceWorkload:
        assert opts.plan.trace is not None
        trace = load_trace(opts.plan.trace)
        source = dict(synthetic.source) if synthetic else {}
        source.setdefault("generator", blocktext.GENERATOR)
        source.setdefault("salt", "")
        return cls(
            trace=trace,
            reused=reused_blocks(trace.lines),
            source=source,
            speedup=opts.plan.trace_speedup,
            max_tokens=max(line.output_length for line in trace.lines),
            sampling=Sampling(pinned=pinned(opts, by_default=True)),
        )

    def describe(self) -> dict:
        return {**self.source, "block_tokens": BLOCK_TOKENS, "trace": self.trace.describe()}

    def manifest(self) -> dict:
        return {
            "name": self.name,
            "max_tokens": self.max_tokens,
            "ignore_eos": self.sampling.pinned,
            "trace": str(self.trace.path),
            "speedup": self.speedup,
        }

    def new_user(self, ordinal: int, draw: Callable[[], int]) -> UserState:
        return UserState(ordinal, draw)

    def next_request(self, user: UserState, slot: Slot) -> PlannedRequest:
        assert slot.arrival is not None and slot.arrival.line is not None, "trace: no line"
        index = slot.arrival.line
        line = self.trace.lines[index]
        # the level is in the salt: a repetition of the trace (--repeat) starts cold again
        salt = f"{self.source['salt']}:{slot.level_index}"
        text = blocktext.prompt_text(
            line.hash_ids, line.input_length, BLOCK_TOKENS, salt, f"line{line.number}"
        )
        return PlannedRequest(
            text,
            line.output_length,
            index,
            extra={
                "workload": self.name,
                "trace_line": line.number,
                "input_length": line.input_length,
                "reused_blocks": self.reused[index],
                "expected_cached_tokens": self.reused[index] * BLOCK_TOKENS,
            },
        )


def reused_blocks(lines: tuple[TraceLine, ...]) -> tuple[int, ...]:
    """Per line: how many of its leading blocks an earlier line sent whole (the prefix a cache
    that keeps everything could serve). A block is named by its id and every id before it."""
    sent: set[int] = set()  # chained hashes of the whole blocks sent so far
    out = []
    for line in lines:
        whole = min(len(line.hash_ids), line.input_length // BLOCK_TOKENS)
        chain, chains = 0, []
        for block in line.hash_ids[:whole]:
            chain = hash((chain, block))
            chains.append(chain)
        out.append(next((i for i, key in enumerate(chains) if key not in sent), whole))
        sent.update(chains)
    return tuple(out)
