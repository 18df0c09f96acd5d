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
"""

from __future__ import annotations

from sparkload.capacity import CONCURRENCY, RATE, BoundedSearch, CapacitySearch, SharedSearches
from sparkload.config import PlanOptions
from sparkload.run.context import RunContext
from sparkload.shapes import Conductor
from sparkload.shapes.arrival import ArrivalShape
from sparkload.shapes.ladder import LadderShape
from sparkload.shapes.precision import PrecisionRule


class Prober:
    """What both search shapes do when a probe's level ends: judge it under the bounds of every
    search still open, feed the searches, say what was found so far."""

    def __init__(self, searches: SharedSearches) -> None:
        self.searches = searches

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
            )
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
            conductor.record_capacity(self.searches.results())
            return None
        self.searches.record(value, verdicts)
        conductor.record_capacity(self.searches.results())
        return self.searches.next_value()


class SearchShape(LadderShape):
    """Closed loop: a ladder whose next level the capacity search chooses."""

    def __init__(
        self,
        prober: Prober,
        requests_per_user: int,
        requests_per_session: int | None = 1,
        keep_users: bool = False,
        precision: PrecisionRule | None = None,
    ) -> None:
        first = (int(prober.first()),)
        super().__init__(first, requests_per_user, requests_per_session, keep_users, precision)
        self.prober = prober

    def level_ended(self, conductor: Conductor) -> None:
        following = self.prober.level_ended(conductor, self.index, self.levels[self.index])
        if following is not None:
            self.levels += (int(following),)


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
        following = self.prober.level_ended(conductor, self.index, self.rates[self.index])
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
    )
