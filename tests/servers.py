"""Servers for tests, on 127.0.0.1: the simulator as a child process, started and stopped."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from contextlib import contextmanager

from sparkload.simproc import READY_PREFIX, ServerProcess

__all__ = ["READY_PREFIX", "running_sim"]


@contextmanager
def running_sim(*args: str) -> Iterator[str]:
    """Yield the base URL of ``python -m sparkload.sim --port 0 ARGS`` (30 s to start at most)."""
    sim = ServerProcess([sys.executable, "-m", "sparkload.sim", "--port", "0", *args])
    try:
        yield sim.start()
    finally:
        sim.stop()
