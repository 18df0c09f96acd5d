"""What today's workloads share: a fixed set of prompt texts, known before the load.

Cache busting (fresh, edit, prefill; chat with ``--cache-bust``): a unique nonce is the very
first text of every prompt, so no prefix block can be shared with any earlier request (vLLM and
the simulator chain block hashes from the start of the prompt; the chat template's own prefix is
shorter than one block together with the nonce). ``--identical-prompts`` is the contrast case:
every request of a level sends the same text, no nonce, so the prefix cache serves all but the
first.

"Pinned" sends ``ignore_eos: true`` and ``min_tokens = max_tokens`` (vLLM's sampling extras), so
the server writes exactly the asked length; ``--ignore-eos no`` drops them for servers that reject
unknown fields, ``--ignore-eos yes`` adds them to chat. Records keep the asked length
(``max_tokens``) beside the received one (``output_tokens``).
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from sparkload.inputs.datasets import Messages, prefixed
from sparkload.workloads.contract import PlannedRequest, Sampling, UserState, Workload

if TYPE_CHECKING:
    from sparkload.config import RunOptions

# The single-Spark notes' method (fresh, edit): greedy decoding with thinking off; --temperature,
# --extra-body (a key set to null removes it) and the like override it.
NOTES_METHOD = {"temperature": 0, "chat_template_kwargs": {"enable_thinking": False}}


def pinned(opts: RunOptions, by_default: bool) -> bool:
    """Whether the length is pinned: ``--ignore-eos yes``, or ``auto`` for a workload pinned by
    default or with ``--output-tokens``."""
    return opts.workload.ignore_eos == "yes" or (
        opts.workload.ignore_eos == "auto"
        and (by_default or opts.workload.output_tokens is not None)
    )


def nonce() -> str:
    """A unique marker, the first characters of a cache-busting prompt (unique across runs)."""
    return f"[request {uuid.uuid4().hex}]\n"


@dataclass
class PromptSetWorkload(Workload[UserState]):
    """A workload whose prompts are texts known before the load (chat, fresh, edit, prefill):
    one user state for all, the manifest entries, and how a prompt becomes a request."""

    prompts: tuple[str, ...]  # the distinct prompt texts, before any nonce
    source: dict  # what the prompts came from: path(s), sha256, count (manifest)
    max_tokens: int
    sampling: Sampling
    identical: bool  # --identical-prompts: every request sends prompt 0, no nonce
    cache_bust: bool

    @property
    def prompt_count(self) -> int:
        return len(self.prompts)

    def describe(self) -> dict:
        return dict(self.source)

    def manifest(self) -> dict:
        return {
            "name": self.name,
            "max_tokens": self.max_tokens,
            "ignore_eos": self.sampling.pinned,
            "identical_prompts": self.identical,
            "cache_bust": self.cache_bust,
        }

    def new_user(self, ordinal: int, draw: Callable[[], int]) -> UserState:
        return UserState(ordinal, draw)

    def drawn(self, user: UserState) -> int:
        """The next prompt of the seeded order (always the first with ``--identical-prompts``)."""
        return 0 if self.identical else user.draw()

    def planned_request(
        self,
        text: str,
        index: int,
        fields: dict[str, Any] | None = None,
        messages: Messages | None = None,
        max_tokens: int | None = None,
    ) -> PlannedRequest:
        """Prompt ``index`` as sent (the nonce first when cache-busting, in the first message
        when there are messages) and its record's fields; ``max_tokens``: the prompt's own
        length (None: the run's)."""
        extra: dict[str, Any] = {"workload": self.name, "identical": self.identical}
        extra.update(fields or {})
        if self.cache_bust and not self.identical:
            mark = nonce()
            text = mark + text
            if messages:
                messages = (
                    {**messages[0], "content": prefixed(mark, messages[0]["content"])},
                    *messages[1:],
                )
        extra["prompt_chars"] = len(text)
        return PlannedRequest(text, max_tokens or self.max_tokens, index, messages, extra)
