"""Prompt sets: plain files (one prompt per line) or datasets (JSONL messages, ShareGPT; see
``sparkload.inputs.datasets``), served in a seeded random order."""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from sparkload.errors import ConfigError
from sparkload.inputs import datasets, files
from sparkload.inputs.datasets import DatasetConversation, DatasetPrompt
from sparkload.inputs.files import UserFile


@dataclass(frozen=True)
class PromptSet:
    path: Path
    prompts: tuple[str, ...]  # each prompt's text (a dataset's: its messages' contents joined)
    sha256: str
    dataset: tuple[DatasetPrompt, ...] = ()  # a dataset's prompts, as sent (text files: none)
    format: str = datasets.TEXT
    skipped: int = 0

    def describe(self) -> dict:
        out = {"path": str(self.path), "sha256": self.sha256, "count": len(self.prompts)}
        if self.dataset:
            own = sum(prompt.max_tokens is not None for prompt in self.dataset)
            out.update(format=self.format, with_max_tokens=own, skipped=self.skipped)
            named = Counter(p.category for p in self.dataset if p.category is not None)
            if named:
                out["categories"] = dict(named)
        return out


@dataclass(frozen=True)
class ConversationSet:
    """A dataset read as whole conversations (``--workload conversation``)."""

    path: Path
    sha256: str
    conversations: tuple[DatasetConversation, ...]
    format: str
    skipped: int = 0  # conversations without a user turn

    def describe(self) -> dict:
        return {
            "path": str(self.path),
            "sha256": self.sha256,
            "format": self.format,
            "count": len(self.conversations),
            "user_turns": sum(len(c.turns) for c in self.conversations),
            "skipped": self.skipped,
        }


def load_prompts(path: Path, reply_lengths: bool = False) -> PromptSet:
    """Read a prompt file or dataset; any problem with it is a ConfigError with one line."""
    file, fmt = _read(path)
    if fmt != datasets.TEXT:
        found = datasets.parse(file, fmt, reply_lengths)
        texts = tuple(prompt.text for prompt in found.prompts)
        return PromptSet(path, texts, file.sha256, found.prompts, fmt, found.skipped)
    prompts = tuple(line.strip() for line in file.text.splitlines() if line.strip())
    if not prompts:
        raise ConfigError(f"--prompts: {path} holds no prompts (one prompt per line expected)")
    return PromptSet(path, prompts, file.sha256)


def load_conversations(path: Path, reply_lengths: bool = False) -> ConversationSet | None:
    """A dataset's conversations; None for a plain prompt file (one prompt per line), whose
    lines are the user messages of synthetic conversations (``load_prompts``)."""
    file, fmt = _read(path)
    if fmt == datasets.TEXT:
        return None
    found, skipped = datasets.parse_conversations(file, fmt, reply_lengths)
    return ConversationSet(path, file.sha256, found, fmt, skipped)


def _read(path: Path) -> tuple[UserFile, str]:
    """A prompt file and its format; a ConfigError of one line if it cannot be read."""
    file = files.read("--prompts", path)
    return file, datasets.sniff(file.suffix, file.text)


class PromptOrder:
    """An endless, seeded shuffle of prompt indices; ``stream`` separates worker processes."""

    def __init__(self, count: int, seed: int, stream: int = 0) -> None:
        self._rng = random.Random(f"{seed}:{stream}")
        self._count = count
        self._queue: list[int] = []

    def next(self) -> int:
        if not self._queue:
            self._queue = list(range(self._count))
            self._rng.shuffle(self._queue)
            self._queue.reverse()
        return self._queue.pop()
