"""The count-based concurrency ladder: exactly C x requests-per-user sessions per level.

A session is one request, or one whole conversation (``workloads/contract.py``): a level holds
C x requests-per-user x requests-per-session measured requests, known in advance unless the
workload draws each conversation's turns (then the master sums the turns its records carry).

Per level: spawn C users (they wait) → one warm-up request on one node → every user sends its
quota → the level ends when the master holds all of its records, whatever mode Locust runs in.
With --target-precision the quota is the rule's (``shapes/precision.py``), raised while a
target is unmet, and the level ends once its records are in and every target is met or capped.
"""

from __future__ import annotations

from sparkload.records import LevelMarks
from sparkload.run.context import RunContext
from sparkload.run.livetable import LevelTally
from sparkload.shapes import SPAWN_RATE, Conductor, Tick, after
from sparkload.shapes.drain import Drain
from sparkload.shapes.knee import KneeRefiner
from sparkload.shapes.precision import PrecisionRule
from sparkload.stages import IDLE, MEASURE, SPAWN, WARMUP, Stage


class LadderShape:
    def __init__(
        self,
        levels: tuple[int, ...],
        requests_per_user: int,
        requests_per_session: int | None = 1,
        keep_users: bool = False,
        precision: PrecisionRule | None = None,
        refiner: KneeRefiner | None = None,
    ) -> None:
        self.levels = levels
        self.refiner = refiner  # --refine-knee: adds levels after the last one
        # ``Workload.users_by_index``: Locust keeps the most users any level had so far, the
        # users above a level's C idling (``UserSession.next_assignment``)
        self.keep_users = keep_users
        self.requests_per_user = requests_per_user  # sessions per user per level
        self.requests_per_session = requests_per_session  # None: drawn per session
        self.precision = precision  # --target-precision's rule (None: the plan's count)
        self.quota = requests_per_user  # the level's sessions per user
        self.index = 0
        self.stage = IDLE
        self.tally: LevelTally | None = None
        self.drain = Drain()
        self.finished = False

    @classmethod
    def for_run(cls, context: RunContext) -> LadderShape:
        plan = context.options.plan
        workload = context.workload
        return cls(
            plan.ladder * plan.repeat,
            plan.requests_per_user,
            workload.requests_per_session,
            workload.users_by_index,
            PrecisionRule.of_options(context.options),
            KneeRefiner(len(plan.ladder)) if plan.refine_knee else None,
        )

    @property
    def concurrency(self) -> int:
        return self.levels[min(self.index, len(self.levels) - 1)]

    @property
    def users(self) -> int:
        """Locust's user count for the level: its C, or the most so far when users are kept."""
        if self.keep_users:
            return max(self.levels[: min(self.index, len(self.levels) - 1) + 1])
        return self.concurrency

    def tick(self, conductor: Conductor, now: float) -> Tick:
        if self.index >= len(self.levels):
            self.finished = self.drain.done(conductor, now)
            return None if self.finished else (self.users, SPAWN_RATE)
        c = self.concurrency
        if self.stage == IDLE:
            per_session = self.requests_per_session
            self.quota = (
                self.precision.first_quota(c, per_session)
                if self.precision is not None
                else self.requests_per_user
            )
            sessions = c * self.quota
            expected = sessions * per_session if per_session else None
            self.tally = conductor.begin_level(
                self.index,
                c,
                expected,
                sessions=sessions,
                marks=LevelMarks(refines_knee=self._refines()),
            )
            if self.precision is not None:
                self.tally.aim(self.precision.targets)
            self._set(conductor, SPAWN)
        if self.stage == SPAWN and conductor.users_ready(self.users):
            self._set(conductor, WARMUP, warmup_node=conductor.busy_node())
        assert self.tally is not None  # begun with the level
        if self.stage == WARMUP and self.tally.warmups >= 1:
            self._set(conductor, MEASURE)
        if self.stage == MEASURE and self.precision is not None and self._extended(conductor):
            return (self.users, SPAWN_RATE)
        if self.stage == MEASURE and self.tally.complete:
            # a search judges the level here (seconds): what follows is dated after it
            now = after(now, lambda: self._end_level(conductor))
            self.index += 1
            self.stage = IDLE
            if self.index >= len(self.levels):
                conductor.broadcast(Stage())
            return self.tick(conductor, now)
        return (self.users, SPAWN_RATE)

    def _end_level(self, conductor: Conductor) -> None:
        conductor.end_level(self.index)
        self.level_ended(conductor)

    def level_ended(self, conductor: Conductor) -> None:
        """After a level's end, before the next: a ladder's levels are known from the start but
        for those --refine-knee adds after the last (a capacity search, ``shapes/search.py``,
        chooses its next one here)."""
        if self.refiner is not None and self.tally is not None:
            self.levels += self.refiner.level_ended(self.index, self.tally)

    def _refines(self) -> bool:
        return self.refiner is not None and self.refiner.refines(self.index)

    def _extended(self, conductor: Conductor) -> bool:
        """--target-precision: once the level's last round is under way (or its records are all
        in), a larger quota while a target is unmet, broadcast at once so users go on; True when
        the level was extended. A complete level the rule does not extend ends, ``capped`` when
        a target is unmet."""
        assert self.precision is not None and self.tally is not None
        tally = self.tally
        last_round = tally.sessions is not None and (
            tally.sessions_begun >= tally.sessions - tally.concurrency
        )
        if not (tally.complete or last_round):
            return False
        quota = self.precision.next_quota(tally, self.quota, self.requests_per_session)
        if quota is None:
            tally.capped = tally.complete and not all(r.met for r in tally.precision())
            return False
        self.quota = quota
        tally.extend(tally.concurrency * quota, self.requests_per_session)
        self._set(conductor, MEASURE)
        return True

    def _set(self, conductor: Conductor, kind: str, warmup_node: str | None = None) -> None:
        self.stage = kind
        quota = self.quota if self.precision is not None else 0  # 0: --requests-per-user
        conductor.broadcast(
            Stage(kind, self.index, self.concurrency, warmup_node=warmup_node, quota=quota)
        )
