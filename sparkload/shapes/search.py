"""The capacity search as a load shape: each probe a complete level, the next one chosen by the
search (``sparkload/capacity.py``) from the verdict ``--check`` gives the last.

Closed loop it is a ladder whose levels are not known in advance: every probe runs exactly
C x --requests-per-user sessions after its warm-up, as a ladder level does (with
--target-precision, until its targets are met, as a ladder level does). Open loop it is a
rate sweep whose rates are not known in advance: every probe sends its rate's whole schedule for
--arrival-duration and waits for all of it. When a probe's level has ended, the analysis judges
it (``Conductor.judge_level``: the analysis's ``--check-level`` in a child process, about a
second), the search records the verdict and names the next value, or ends. With ``--tier`` the
levels serve one search per tier (``capacity.SharedSearches``): each level is judged under every
open tier's bounds in that one child process.

With ``--sustain`` the search, once over, holds what it found for that long of the target's
time: one more level, time-based (closed loop: the found C's users back to back, as
``steps.py`` runs a step; open loop: the found rate's arrivals), marked as the sustain level in
the manifest and judged under the same bounds once its last request is in.
"""

from __future__ import annotations

from sparkload.capacity import CONCURRENCY, RATE, BoundedSearch, CapacitySearch, SharedSearches
from sparkload.config import PlanOptions
from sparkload.run.context import RunContext
from sparkload.shapes import Conductor, Tick
from sparkload.shapes.arrival import ArrivalShape
from sparkload.shapes.ladder import LadderShape
from sparkload.shapes.precision import PrecisionRule
from sparkload.shapes.steps import StepsShape


class Prober:
    """What both search shapes do when a probe's level ends: judge it under the bounds of every
    search still open, feed the searches, say what was found so far."""

    def __init__(self, searches: SharedSearches, sustain: float = 0.0) -> None:
        self.searches = searches
        self.sustain = sustain  # --sustain: target seconds to hold the found load (0: none)
        self.judged = True  # False once a level could not be judged (the run aborts)

    @classmethod
    def of_plan(cls, plan: PlanOptions, over: str, start: float) -> Prober:
        """One search per --tier (or --find-capacity's one), each from ``start`` to the cap."""
        return cls(
            SharedSearches(
                [
                    BoundedSearch(
                        tier.name, tier.bounds, CapacitySearch(over, start, plan.capacity_max)
                    )
                    for tier in plan.searches
                ]
            ),
            plan.sustain,
        )

    def first(self) -> float:
        value = self.searches.next_value()
        assert value is not None  # a new search always has a first probe
        return value

    def level_ended(self, conductor: Conductor, index: int, value: float) -> float | None:
        """The next value to probe; None when every search is over (or the level could not be
        judged: the run aborts with what was found so far)."""
        verdicts = conductor.judge_level(index, [s.bounds for s in self.searches.open()])
        if verdicts is None:
            self.judged = False
            conductor.record_capacity(self.searches.results())
            return None
        self.searches.record(value, verdicts)
        conductor.record_capacity(self.searches.results())
        return self.searches.next_value()

    def to_sustain(self, conductor: Conductor) -> float | None:
        """Once the search is over, the load --sustain holds: its capacity. None without
        --sustain, after a level that could not be judged, or when no probe met the bounds
        (then said: there is nothing to hold; the run fails as the search did)."""
        if self.sustain <= 0 or not self.judged:
            return None
        (result,) = self.searches.results()  # --sustain is refused beside --tier
        if result.capacity is None:
            conductor.record_sustain(None, None)
        return result.capacity

    def sustain_ended(self, conductor: Conductor, index: int, value: float) -> None:
        """The sustain level, all its records in, judged under the search's bounds."""
        (search,) = self.searches.searches
        verdicts = conductor.judge_level(index, [search.bounds])
        if verdicts is not None:
            conductor.record_sustain(value, verdicts[0])


class SearchShape(LadderShape):
    """Closed loop: a ladder whose next level the capacity search chooses."""

    def __init__(
        self,
        prober: Prober,
        requests_per_user: int,
        requests_per_session: int | None = 1,
        keep_users: bool = False,
        precision: PrecisionRule | None = None,
        time_scale: float = 1.0,
        request_timeout: float = 600.0,
    ) -> None:
        first = (int(prober.first()),)
        super().__init__(first, requests_per_user, requests_per_session, keep_users, precision)
        self.prober = prober
        self.time_scale = time_scale
        self.request_timeout = request_timeout
        self.sustained: StepsShape | None = None  # --sustain's level, once the search is over

    def tick(self, conductor: Conductor, now: float) -> Tick:
        sustained = self.sustained
        if sustained is None or self.index < len(self.levels):
            return super().tick(conductor, now)
        if self.finished:
            return None
        tick = sustained.tick(conductor, now)
        if sustained.finished:  # drained: every record of the level is in
            self.prober.sustain_ended(conductor, sustained.first_index, sustained.levels[0])
            self.finished = True
        return tick

    def level_ended(self, conductor: Conductor) -> None:
        following = self.prober.level_ended(conductor, self.index, self.levels[self.index])
        if following is not None:
            self.levels += (int(following),)
        elif (found := self.prober.to_sustain(conductor)) is not None:
            seconds = self.prober.sustain
            self.sustained = StepsShape(
                (int(found),),
                seconds / self.time_scale,
                self.request_timeout,
                first_index=len(self.levels),
                sustain=seconds,
            )


class RateSearchShape(ArrivalShape):
    """Open loop: a rate sweep whose next rate the capacity search chooses. An over-saturated
    probe is flagged, not stopped: it is not the plan's last (the search goes on below it), and
    its flag breaks the bounds (``analysis/figures/probe.py``)."""

    def __init__(
        self,
        prober: Prober,
        users: int,
        duration: float,
        request_timeout: float,
        time_scale: float = 1.0,
    ) -> None:
        first = (prober.first(),)
        super().__init__(first, users, duration, request_timeout, time_scale, saturation_stop=False)
        self.prober = prober

    def level_ended(self, conductor: Conductor) -> None:
        if self.index == self.sustain_at:
            self.prober.sustain_ended(conductor, self.index, self.rates[self.index])
            return
        following = self.prober.level_ended(conductor, self.index, self.rates[self.index])
        if following is None and (found := self.prober.to_sustain(conductor)) is not None:
            self.duration = self.prober.sustain  # the levels after this one: the sustain's
            self.sustain_at = self.index + 1
            following = found
        if following is not None:
            self.rates += (following,)
            self.planned = len(self.rates)


def search_shape(context: RunContext) -> SearchShape | RateSearchShape:
    """The search of the options: over rates from --arrival-rate, else over concurrency."""
    opts = context.options
    plan = opts.plan
    if plan.arrival_rate:
        return RateSearchShape(
            Prober.of_plan(plan, RATE, plan.arrival_rate[0]),
            plan.arrival_users,
            plan.arrival_duration,
            opts.request.request_timeout,
            context.time_scale,
        )
    return SearchShape(
        Prober.of_plan(plan, CONCURRENCY, plan.capacity_start),
        plan.requests_per_user,
        context.workload.requests_per_session,
        context.workload.users_by_index,
        PrecisionRule.of_options(opts),
        context.time_scale,
        opts.request.request_timeout,
    )
