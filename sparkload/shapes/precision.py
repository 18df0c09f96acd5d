"""``--target-precision`` on a count-based level: how many sessions each user sends, and when
to give them more.

A level starts with a per-user quota of sessions (``--min-requests-per-level``'s, or the
ladder's --requests-per-user) and ends only when all its records are in and every target is met
(``records.precision``), or when one more round would pass --max-requests-per-level (it is then
``capped``). The quota is raised in whole rounds (one more session for each of the C users),
while the last round is still in flight, so users rarely wait for it: by the estimate of the
requests still needed (n·(h / target)² − n), at least one round and at most half again the
level's count so far (an early, noisy estimate cannot overshoot much), never past the cap.
The ladder (``shapes/ladder.py``) asks ``first_quota`` at a level's start and ``next_quota``
on its ticks; the users read the quota in the stage (``Stage.quota``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from sparkload.config import RunOptions
from sparkload.records import PrecisionTarget
from sparkload.run.livetable import LevelTally

MOST_GROWTH = 0.5  # an extension adds at most this share of the level's sessions so far


@dataclass(frozen=True)
class PrecisionRule:
    targets: tuple[PrecisionTarget, ...]
    min_requests: int | None  # None: the ladder's count
    max_requests: int
    requests_per_user: int  # the ladder's quota

    @classmethod
    def of_options(cls, opts: RunOptions) -> PrecisionRule | None:
        """The run's rule; None without --target-precision."""
        precision = opts.precision
        if not precision.targets:
            return None
        return cls(
            precision.targets,
            precision.min_requests_per_level,
            precision.max_requests_per_level,
            opts.plan.requests_per_user,
        )

    def first_quota(self, concurrency: int, per_session: int | None) -> int:
        """Sessions per user a level starts with: enough for the minimum, within the cap."""
        if self.min_requests is None:
            quota = self.requests_per_user
        else:
            quota = math.ceil(self.min_requests / (concurrency * (per_session or 1)))
        return max(min(quota, self._most(concurrency, per_session or 1)), 1)

    def next_quota(self, tally: LevelTally, quota: int, per_session: int | None) -> int | None:
        """The level's quota raised so its targets may be met, judged on the records so far;
        None when every target is met or the cap allows no more (``capped``)."""
        reached = tally.precision()
        if all(r.met for r in reached):
            return None
        c = tally.concurrency
        size = per_session or _mean_turns(tally)
        needed = [r.requests_left for r in reached if not r.met]
        left = max((n for n in needed if n is not None), default=c * size)
        rounds = math.ceil(left / (c * size))
        rounds = min(max(rounds, 1), max(math.floor(quota * MOST_GROWTH), 1))
        raised = min(quota + rounds, self._most(c, size))
        return raised if raised > quota else None

    def _most(self, concurrency: int, per_session: float) -> int:
        """The largest quota within the cap (one session per user at least)."""
        return max(math.floor(self.max_requests / (concurrency * per_session)), 1)


def _mean_turns(tally: LevelTally) -> float:
    """Requests per session so far, where each conversation draws its own turns."""
    return tally.planned / tally.sessions_begun if tally.sessions_begun else 1.0
