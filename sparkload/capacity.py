"""The capacity search, pure: which level to probe next, and what the probes found.

A ladder runs every level it is given; a search runs only the levels that narrow the answer.
From the start value it doubles while the probes meet the bounds (up to the cap), so the first
probe that breaks them brackets the answer between it and the last that met them; then it
bisects that bracket. Concurrency is a whole number: the bracket closes when its ends are
adjacent, so the answer is exact. A rate is continuous: the bracket closes when the breaking
rate is within ``RATE_TOLERANCE`` of the meeting one. The search assumes a level that meets the
bounds has every lower level meeting them too (latency grows with load); it never probes a value
twice.

Tiers (``--tier NAME:BOUNDS``, several) are one search each over the same levels
(``SharedSearches``): every level is judged under the bounds of every search still open, so a
value measured once answers each search that later asks for it, and no value is run twice. Each
search's own steps stay those of a search alone: the answers are what separate searches would
find on the same measurements.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache

from sparkload.records import OVER_CONCURRENCY as CONCURRENCY
from sparkload.records import OVER_RATE as RATE
from sparkload.records import CapacityEntry, CapacityProbe, ProbeVerdict, level_name, sample_text

RATE_TOLERANCE = 0.05  # a rate's bracket closes when breaking <= meeting x 1.05
RATE_HALVINGS = 4  # a start rate that breaks is halved at most this often before giving up


class CapacitySearch:
    """Bracket by doubling, then bisect; ``next_value`` None once the answer is settled."""

    def __init__(self, over: str, start: float, maximum: float) -> None:
        if over not in (CONCURRENCY, RATE):
            raise ValueError(f"a capacity search runs over {CONCURRENCY} or {RATE}, not {over!r}")
        if not 0 < start <= maximum:
            raise ValueError(f"the start ({start:g}) must be above 0 and at most {maximum:g}")
        self.over = over
        self.start = start
        self.maximum = maximum
        self.meeting: float | None = None  # the largest probe that met the bounds
        self.breaking: float | None = None  # the smallest probe that broke them
        self.probed: list[float] = []

    @property
    def capacity(self) -> float | None:
        """The answer so far: the largest value that met every bound (None: none did)."""
        return self.meeting

    def next_value(self) -> float | None:
        """The value to probe next, or None when the search is over."""
        if not self.probed:
            return self.start
        if self.breaking is None:  # every probe met the bounds: double, up to the cap
            assert self.meeting is not None
            return None if self.meeting >= self.maximum else self._whole(self.meeting * 2)
        low = self.meeting or 0.0
        if self._settled(low, self.breaking):
            return None
        return self._whole((low + self.breaking) / 2)

    def record(self, value: float, meets: bool) -> None:
        """The verdict of the probe at ``value`` (the value ``next_value`` gave)."""
        if value != self.next_value():
            raise ValueError(f"probe {value:g} was not the one asked for ({self.next_value()})")
        self.probed.append(value)
        if meets:
            self.meeting = value
        else:
            self.breaking = value

    def probes_left_at_most(self) -> int:
        """How many probes may still follow the next one, whatever their verdicts: the
        progress line's bound, as the search's length depends on verdicts still to come."""
        return max(_most_probes(self._state(), True), _most_probes(self._state(), False))

    def _state(self) -> tuple[str, float, float, float | None, float | None, bool]:
        return (self.over, self.start, self.maximum, self.meeting, self.breaking, bool(self.probed))

    def _whole(self, value: float) -> float:
        """Concurrency is a number of users: the midpoint rounds down; a rate stays as it is."""
        value = min(value, self.maximum)
        return float(int(value)) if self.over == CONCURRENCY else value

    def _settled(self, low: float, high: float) -> bool:
        if self.over == CONCURRENCY:
            return high - low <= 1
        if low == 0:  # nothing met yet: halve the start rate a few times, no further
            return high <= self.start / 2**RATE_HALVINGS
        return high <= low * (1 + RATE_TOLERANCE)


@lru_cache(maxsize=4096)
def _most_probes(
    state: tuple[str, float, float, float | None, float | None, bool], meets: bool
) -> int:
    """Probes after the next one of the search in ``state`` if the next one ``meets``, in the
    worst case of every later verdict (each state is met once: a few hundred for 1..256)."""
    over, start, maximum, meeting, breaking, started = state
    search = CapacitySearch(over, start, maximum)
    search.meeting, search.breaking, search.probed = meeting, breaking, [start] if started else []
    value = search.next_value()
    if value is None:
        return 0
    search.record(value, meets)
    if search.next_value() is None:
        return 0
    after = search._state()
    return 1 + max(_most_probes(after, True), _most_probes(after, False))


@dataclass(frozen=True)
class CapacityResult:
    """What a search found so far: the manifest's ``capacity`` and the console's line. Each
    probe is the value it ran with the analysis's verdict on its level."""

    bounds: str
    over: str
    probes: list[CapacityProbe]
    capacity: float | None
    complete: bool  # False while probing, or when the run stopped before the answer
    tier: str = ""  # --tier's name ("": --find-capacity's one search)

    @property
    def limit(self) -> CapacityProbe | None:
        """The smallest probe that broke the bounds above the capacity (None: none did)."""
        floor = self.capacity if self.capacity is not None else 0.0
        above = [p for p in self.probes if not p.verdict.meets and p.value > floor]
        return min(above, key=lambda p: p.value, default=None)

    def manifest_entry(self) -> CapacityEntry:
        """``Manifest.capacity`` (or one of ``Manifest.tiers``): bounds, over, capacity, probes,
        limit (and complete, and the tier's name)."""
        entry = CapacityEntry(
            self.bounds, self.over, self.capacity, list(self.probes), self.limit, self.complete
        )
        if self.tier:
            entry.tier = self.tier
        return entry

    @property
    def found(self) -> CapacityProbe | None:
        """The probe of the capacity's value (None: none met the bounds)."""
        return next((p for p in self.probes if p.value == self.capacity), None)

    def line(self) -> str:
        """``capacity: C=11 at ttft_p90_ms<=800 (33 requests; ttft_p90_ms<=800 in 701–790 at
        90 %); first failing probe C=12 (ttft_p90_ms = 913 > 800; 36 requests; ...); 8
        probes``, and a warning where the two probes that decide it had too few requests. With
        ``--find-capacity tenants`` each breach names its class, and ``first to fail: chat``
        the classes that broke their slo at the first failing probe."""
        found, limit = self.found, self.limit
        head = f"capacity {self.tier}:" if self.tier else "capacity:"
        if self.capacity is None:
            text = f"{head} {'0, not met: ' if self.tier else ''}no probe met {self.bounds}"
        else:
            text = f"{head} {level_name(self.over, self.capacity)} at {self.bounds}"
            notes = [sample_text(found.verdict) if found is not None else ""]
            if limit is None:
                notes.append("the cap, --capacity-max: no probe broke the bounds")
            if said := "; ".join(filter(None, notes)):
                text += f" ({said})"
        if limit is not None:
            broke = "; ".join(filter(None, [*limit.verdict.breaches, sample_text(limit.verdict)]))
            text += f"; first failing probe {level_name(self.over, limit.value)} ({broke})"
            if limit.verdict.failing_classes:  # --find-capacity tenants
                text += f"; first to fail: {', '.join(limit.verdict.failing_classes)}"
        count = len(self.probes)
        text += f"; {count} probe{'' if count == 1 else 's'}"
        caveats = [
            f"{level_name(self.over, probe.value)}: {caveat}"
            for probe in (found, limit)
            if probe is not None
            for caveat in probe.verdict.caveats or []
        ]
        return text + (f"; warning: {'; '.join(caveats)}" if caveats else "")


@dataclass
class BoundedSearch:
    """One search and its bounds: a tier's (``name``), or --find-capacity's (name ""). Its
    ``verdicts`` are those of every level judged under its bounds, by the level's value; its
    ``probes`` those its search asked for, in its order."""

    name: str
    bounds: str
    search: CapacitySearch
    probes: list[CapacityProbe] = field(default_factory=list)
    verdicts: dict[float, ProbeVerdict] = field(default_factory=dict)

    def advance(self) -> None:
        """Feed the search every verdict it asks for that a level already gave."""
        while (value := self.search.next_value()) is not None and value in self.verdicts:
            verdict = self.verdicts[value]
            self.probes.append(CapacityProbe(value, verdict))
            self.search.record(value, verdict.meets)

    def result(self) -> CapacityResult:
        complete = self.search.next_value() is None
        return CapacityResult(
            self.bounds,
            self.search.over,
            list(self.probes),
            self.search.capacity,
            complete,
            self.name,
        )


class SharedSearches:
    """Several searches over one set of levels (``--tier``, once each): the next level is the
    lowest value an open search asks for (the cheapest level: C x --requests-per-user sessions),
    each level is judged under every open search's bounds, and a search asking for a value
    already measured is answered from that level's verdict."""

    def __init__(self, searches: list[BoundedSearch]) -> None:
        if not searches:
            raise ValueError("at least one search")
        self.searches = searches

    def open(self) -> list[BoundedSearch]:
        """The searches not yet settled: the bounds the next level is judged under."""
        return [s for s in self.searches if s.search.next_value() is not None]

    def next_value(self) -> float | None:
        """The value to probe next, or None when every search is over."""
        wanted = [s.search.next_value() for s in self.open()]
        return min((v for v in wanted if v is not None), default=None)

    def record(self, value: float, verdicts: list[ProbeVerdict]) -> None:
        """The verdicts of the level at ``value``, one per ``open()`` search, in its order."""
        asked = self.open()
        if len(verdicts) != len(asked):
            raise ValueError(f"{len(verdicts)} verdicts for {len(asked)} open searches")
        for search, verdict in zip(asked, verdicts, strict=True):
            search.verdicts[value] = verdict
            search.advance()

    def results(self) -> list[CapacityResult]:
        return [s.result() for s in self.searches]

    def probes_left_at_most(self) -> int:
        """Levels that may still follow the next one: at most every open search's own bound (a
        level one search asks for may answer another's question too)."""
        return sum(1 + s.search.probes_left_at_most() for s in self.open()) - 1
