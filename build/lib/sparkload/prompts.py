"""Prompt sets: plain files, one prompt per line, served in a seeded random order."""

from __future__ import annotations

import hashlib
import random
from dataclasses import dataclass
from pathlib import Path

from sparkload.errors import ConfigError


@dataclass(frozen=True)
class PromptSet:
    path: Path
    prompts: tuple[str, ...]
    sha256: str

    def describe(self) -> dict:
        return {"path": str(self.path), "sha256": self.sha256, "count": len(self.prompts)}


def load_prompts(path: Path) -> PromptSet:
    """Read a prompt file; any problem with it is a ConfigError with a one-line message."""
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        raise ConfigError(f"--prompts: no such file: {path}") from None
    except IsADirectoryError:
        raise ConfigError(f"--prompts: {path} is a directory, not a prompt file") from None
    except PermissionError:
        raise ConfigError(f"--prompts: permission denied reading {path}") from None
    except OSError as exc:
        raise ConfigError(f"--prompts: cannot read {path}: {exc.strerror}") from None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise ConfigError(f"--prompts: {path} is not UTF-8 text") from None
    prompts = tuple(line.strip() for line in text.splitlines() if line.strip())
    if not prompts:
        raise ConfigError(f"--prompts: {path} holds no prompts (one prompt per line expected)")
    return PromptSet(path, prompts, hashlib.sha256(raw).hexdigest())


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
