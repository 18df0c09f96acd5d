"""The edit workload: a whole source file plus "add a method to every class, output the file".

Each request sends the instruction followed by one of the 16 generated modules of
``prompts/edit/`` (~2,000 tokens of code each) behind a cache-busting nonce, and asks for 3,000
output tokens, pinned, with the notes' method (greedy, thinking off). Most of the answer is in
the prompt, so speculative decoding's acceptance is high (the notes' easy case).

Distinct mode: user u's n-th request edits file (u + n) mod F, so concurrent users edit
different files as long as C <= F (F = 16 files), and the nonce keeps any later repeat of a file
cold. ``--identical-prompts``: every request sends file 0, without a nonce.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, ClassVar

from sparkload.errors import ConfigError
from sparkload.inputs.files import read
from sparkload.paths import EDIT_SOURCES
from sparkload.records import WORKLOAD_EDIT
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

EDIT_INSTRUCTION = (
    "Below is a complete Python source file. Add one new, useful method to every class in it "
    "(with a docstring and type hints, consistent with the class's existing style), change "
    "nothing else, and output the complete updated file - every line, not only the changes - "
    "in a single python code block.\n\n```python\n"
)


@dataclass
class EditWorkload(PromptSetWorkload):
    name: ClassVar[str] = WORKLOAD_EDIT

    @classmethod
    def from_options(cls, opts: RunOptions, synthetic: Synthetic | None = None) -> EditWorkload:
        prompts, source = _edit_prompts(EDIT_SOURCES)
        return cls(
            prompts=prompts,
            source=source,
            max_tokens=run_max_tokens(WORKLOAD_EDIT, opts),
            sampling=Sampling(NOTES_METHOD, pinned(opts, by_default=True)),
            identical=opts.workload.identical_prompts,
            cache_bust=True,
        )

    def next_request(self, user: UserState, slot: Slot) -> PlannedRequest:
        index = 0 if self.identical else (user.ordinal + user.planned) % len(self.prompts)
        return self.planned_request(self.prompts[index], index)


def _edit_prompts(folder: Path) -> tuple[tuple[str, ...], dict]:
    files = sorted(folder.glob("*.py")) if folder.is_dir() else []
    files = [f for f in files if not f.name.startswith("make_")]
    if not files:
        raise ConfigError(
            f"--workload edit: no source files (*.py) in {folder}; run "
            f"python {folder / 'make_sources.py'}"
        )
    digest = hashlib.sha256()
    prompts = []
    for path in files:
        source = read("--workload edit", path)
        digest.update(source.raw)
        prompts.append(EDIT_INSTRUCTION + source.text.rstrip("\n") + "\n```")
    return tuple(prompts), {
        "path": str(folder),
        "sha256": digest.hexdigest(),
        "count": len(files),
        "files": [f.name for f in files],
    }
