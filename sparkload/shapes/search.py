"""The capacity search as a load shape: each probe a complete level, the next one chosen by the
search (``sparkload/capacity.py``) from the verdict ``--check`` gives the last.

Closed loop it is a ladder whose levels are not known in advance: every probe runs exactly
C x --requests-per-user sessions after its warm-up, as a ladder level does. Open loop it is a
rate sweep whose rates are not known in advance: every probe sends its rate's whole schedule for
--arrival-duration and waits for all of it. When a probe's level has ended, the analysis judges
it (``Conductor.judge_level``: the analysis's ``--check-level`` in a child process, about a
second), the search records the verdict and names the next value, or ends.
"""

from __future__ import annotations

from sparkload.capacity import CONCURRENCY, RATE, CapacityResult, CapacitySearch
from sparkload.config import RunOptions, default
from sparkload.errors import ConfigError
from sparkload.records import WORKLOAD_PREFILL, CapacityProbe
from sparkload.shapes import Conductor
from sparkload.shapes.arrival import ArrivalShape
from sparkload.shapes.ladder import LadderShape


class Prober:
    """What both search shapes do when a probe's level ends: judge it, feed the search, say
    what was found so far."""

    def __init__(self, search: CapacitySearch, bounds: str) -> None:
        self.search = search
        self.bounds = bounds
        self.probes: list[CapacityProbe] = []

    def first(self) -> float:
        value = self.search.next_value()
        assert value is not None  # a new search always has a first probe
        return value

    def level_ended(self, conductor: Conductor, index: int, value: float) -> float | None:
        """The next value to probe; None when the search is over (or the level could not be
        judged: the run aborts with what was found so far)."""
        verdict = conductor.judge_level(index)
        if verdict is None:
            conductor.record_capacity(self.result(complete=False))
            return None
        self.probes.append(CapacityProbe(value, verdict))
        self.search.record(value, verdict.meets)
        following = self.search.next_value()
        conductor.record_capacity(self.result(complete=following is None))
        return following

    def result(self, complete: bool) -> CapacityResult:
        return CapacityResult(
            self.bounds, self.search.over, list(self.probes), self.search.capacity, complete
        )


class SearchShape(LadderShape):
    """Closed loop: a ladder whose next level the capacity search chooses."""

    def __init__(
        self, prober: Prober, requests_per_user: int, requests_per_session: int | None = 1
    ) -> None:
        super().__init__((int(prober.first()),), requests_per_user, requests_per_session)
        self.prober = prober

    def level_ended(self, conductor: Conductor) -> None:
        following = self.prober.level_ended(conductor, self.index, self.levels[self.index])
        if following is not None:
            self.levels += (int(following),)


class RateSearchShape(ArrivalShape):
    """Open loop: a rate sweep whose next rate the capacity search chooses. An over-saturated
    probe is flagged, not stopped: it is not the plan's last (the search goes on below it), and
    its flag breaks the bounds (``analysis/probe.py``)."""

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


def search_shape(opts: RunOptions, time_scale: float, requests_per_session: int | None):
    """The search of the options: over rates from --arrival-rate, else over concurrency."""
    if opts.arrival_rate:
        rates = CapacitySearch(RATE, opts.arrival_rate[0], opts.capacity_max)
        return RateSearchShape(
            Prober(rates, opts.find_capacity),
            opts.arrival_users,
            opts.arrival_duration,
            opts.request_timeout,
            time_scale,
        )
    users = CapacitySearch(CONCURRENCY, opts.capacity_start, opts.capacity_max)
    return SearchShape(
        Prober(users, opts.find_capacity), opts.requests_per_user, requests_per_session
    )


def check_search_options(opts: RunOptions) -> None:
    """--find-capacity's rules across options: one ConfigError line naming the conflict."""
    if not opts.find_capacity:
        return
    prefill = opts.workload == WORKLOAD_PREFILL  # its own C=1 ladder, one level per prompt size
    clash = {
        "--trace": opts.trace is not None,
        "--step-duration": opts.step_duration > 0,
        "--repeat": opts.repeat > 1,
        "--check": bool(opts.check),
        "--workload prefill": prefill,
        "--ladder": not prefill and opts.ladder != default("ladder"),
    }
    given = [flag for flag, present in clash.items() if present]
    if given:
        raise ConfigError(
            f"--find-capacity chooses its own levels and judges each one: drop {', '.join(given)}"
        )
    if opts.arrival_rate:
        _check_rate_search(opts)
    elif opts.capacity_max != int(opts.capacity_max):
        raise ConfigError(f"--capacity-max: {opts.capacity_max:g} users is not a whole number")
    elif opts.capacity_start > opts.capacity_max:
        raise ConfigError(
            f"--capacity-start {opts.capacity_start} is above --capacity-max {opts.capacity_max:g}"
        )


def _check_rate_search(opts: RunOptions) -> None:
    if len(opts.arrival_rate) > 1:
        raise ConfigError(
            "--find-capacity with --arrival-rate: give one rate, the first probe (the search "
            "chooses the rest)"
        )
    if opts.arrival_rate[0] > opts.capacity_max:
        raise ConfigError(
            f"--arrival-rate {opts.arrival_rate[0]:g} is above --capacity-max {opts.capacity_max:g}"
        )
