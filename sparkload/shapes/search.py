"""The capacity search as a load shape: each probe a complete level, the next one chosen by the
search (``sparkload/capacity.py``) from the verdict ``--check`` gives the last.

Closed loop it is a ladder whose levels are not known in advance: every probe runs exactly
C x --requests-per-user sessions after its warm-up, as a ladder level does, then the analysis
judges it (``Conductor.judge_level``, the analysis's ``--check-level`` in a child process, about
a second), the search records the verdict and names the next concurrency, or ends.
"""

from __future__ import annotations

from sparkload.capacity import CONCURRENCY, CapacityResult, CapacitySearch, Probe
from sparkload.config import RunOptions, default
from sparkload.errors import ConfigError
from sparkload.shapes import Conductor
from sparkload.shapes.ladder import LadderShape


class SearchShape(LadderShape):
    """Closed loop: a ladder whose next level the capacity search chooses."""

    def __init__(
        self,
        search: CapacitySearch,
        bounds: str,
        requests_per_user: int,
        requests_per_session: int | None = 1,
    ) -> None:
        first = search.next_value()
        assert first is not None  # a new search always has a first probe
        super().__init__((int(first),), requests_per_user, requests_per_session)
        self.search = search
        self.bounds = bounds
        self.probes: list[Probe] = []

    def level_ended(self, conductor: Conductor) -> None:
        value = self.levels[self.index]
        verdict = conductor.judge_level(self.index)
        if verdict is None:  # not judged: the run aborts with what was found so far
            conductor.record_capacity(self.result(complete=False))
            return
        self.probes.append(Probe.judged(self.index, value, verdict))
        self.search.record(value, self.probes[-1].meets)
        following = self.search.next_value()
        if following is not None:
            self.levels += (int(following),)
        conductor.record_capacity(self.result(complete=following is None))

    def result(self, complete: bool) -> CapacityResult:
        return CapacityResult(
            self.bounds, CONCURRENCY, list(self.probes), self.search.capacity, complete
        )


def check_search_options(opts: RunOptions) -> None:
    """--find-capacity's rules across options: one ConfigError line naming the conflict."""
    if not opts.find_capacity:
        return
    clash = {
        "--trace": opts.trace is not None,
        "--step-duration": opts.step_duration > 0,
        "--repeat": opts.repeat > 1,
        "--check": bool(opts.check),
        "--arrival-rate": bool(opts.arrival_rate),
        "--ladder": opts.ladder != default("ladder"),
    }
    given = [flag for flag, present in clash.items() if present]
    if given:
        raise ConfigError(
            f"--find-capacity chooses its own levels and judges each one: drop {', '.join(given)}"
        )
    if opts.capacity_max != int(opts.capacity_max):
        raise ConfigError(f"--capacity-max: {opts.capacity_max:g} users is not a whole number")
    if opts.capacity_start > opts.capacity_max:
        raise ConfigError(
            f"--capacity-start {opts.capacity_start} is above --capacity-max {opts.capacity_max:g}"
        )
