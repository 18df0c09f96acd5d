"""Load shapes, one file each: how many users, and what they are told to do, over a run.

A shape runs on the master only. Each ``tick`` (about once a second, and after every batch of
records) returns Locust's ``(users, spawn_rate)`` or None when the run is over; it acts on the
world only through a ``Conductor``.
"""

from __future__ import annotations

from typing import Protocol

from sparkload.livetable import LevelTally
from sparkload.stages import Stage

SPAWN_RATE = 100.0  # users/s: levels start at once (Locust warns above 100 per worker)
Tick = tuple[int, float] | None


class Conductor(Protocol):
    distributed: bool

    def broadcast(self, stage: Stage) -> None: ...
    def users_ready(self, count: int) -> bool: ...
    def busy_node(self) -> str: ...
    def begin_level(
        self,
        index: int,
        concurrency: int,
        expected: int | None,
        arrival_rate: float | None = None,
    ) -> LevelTally: ...
    def end_level(self, index: int) -> None: ...
    def in_flight(self) -> int: ...


class Shape(Protocol):
    finished: bool

    def tick(self, conductor: Conductor, now: float) -> Tick: ...
