"""A level judged against service-level bounds, and what a capacity search found: one verdict
type from the analysis (``--check-level``) to the load side's search and the manifest.

The capacity search (``sparkload/capacity.py``) asks the analysis to judge each probe's level;
``python -m analysis --check-level`` prints a ``ProbeVerdict`` as one JSON object, the load side
reads it back with ``ProbeVerdict.from_dict``, the search keeps it with its value as a
``CapacityProbe``, and the manifest's ``capacity`` is a ``CapacityEntry`` the report reads.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from sparkload.records.codec import Entry, inline, omitted

OVER_CONCURRENCY, OVER_RATE = "concurrency", "rate"  # what a search runs over
INTERVAL_CONFIDENCE = 0.90  # of a verdict's intervals, as of the report's bootstrap intervals


@dataclass
class ProbeVerdict(Entry):
    """Whether one level meets every bound, each bound's statistic there and what broke."""

    level_index: int
    level: str = field(default="", kw_only=True)  # as messages name it: "C=12" ("" before it)
    meets: bool
    figures: dict[str, float | None] = field(default_factory=dict)  # bound -> its statistic
    breaches: list[str] = field(default_factory=list)  # "ttft_p90_ms = 913.4 > 800", ...
    # The sample behind the verdict: the level's answered requests (None: a verdict written
    # before they were counted), each percentile bound's 90 % distribution-free interval of its
    # statistic (bound -> [low, high]), and in words where the sample cannot settle a bound: too
    # few requests for an interval, or an interval that holds the threshold.
    requests: int | None = omitted()
    intervals: dict[str, list[float]] | None = omitted()
    caveats: list[str] | None = omitted()
    # --check tenants (each --tenants class held to its own slo): the classes that broke theirs
    # at this level, in the file's order (absent: a verdict under one set of bounds)
    failing_classes: list[str] | None = omitted()
    # the breaches (as in ``breaches``) of percentile bounds whose interval holds the threshold:
    # the sample cannot tell the level from one that meets them (absent: none, or an old verdict)
    unsettled: list[str] | None = omitted()

    @property
    def holds_within_sample(self) -> bool:
        """The level meets its bounds, or misses only bounds its sample cannot settle: what a
        --sustain level must show to have held. A capacity found at the boundary (the next
        probe up failed) and measured again misses its bound by chance about as often as it
        meets it; only a breach its interval leaves no doubt about says the load did not hold."""
        unsettled = set(self.unsettled or ())
        return all(breach in unsettled for breach in self.breaches)


@dataclass
class CapacityProbe(Entry):
    """One level a capacity search ran: the value it probed and the verdict on it (one JSON
    object: the value beside the verdict's fields)."""

    value: float  # the level's concurrency or offered rate
    verdict: ProbeVerdict = inline()


@dataclass
class CapacityEntry(Entry):
    """``Manifest.capacity``: the search's bounds, the value it runs over, the largest value
    that met the bounds (None: none did), every probe, the smallest breaking probe above the
    capacity (None: none), and whether the search finished (False while it runs, or when the
    run stopped first); a tier's (``Manifest.tiers``) also has the tier's name."""

    bounds: str = ""
    over: str = OVER_CONCURRENCY  # OVER_CONCURRENCY | OVER_RATE
    capacity: float | None = None
    probes: list[CapacityProbe] = field(default_factory=list)
    limit: CapacityProbe | None = None
    complete: bool = False
    tier: str | None = omitted()  # --tier's name (absent: --find-capacity's search)
    # --sustain: the found load held for a while, judged under the same bounds (absent: no
    # sustain, or it did not run: no capacity found, or the run stopped first)
    sustained: CapacityProbe | None = omitted()


def sample_text(verdict: ProbeVerdict) -> str:
    """What a probe's verdict rests on: ``24 requests; ttft_p90_ms<=800 in 690–812 at 90 %``
    ("" for a verdict written before it counted its requests)."""
    if verdict.requests is None:
        return ""
    intervals = [
        f"{bound} in {low:.4g}–{high:.4g} at {100 * INTERVAL_CONFIDENCE:.0f} %"
        for bound, (low, high) in (verdict.intervals or {}).items()
    ]
    return "; ".join([f"{verdict.requests} requests", *intervals])


def level_name(over: str, value: float) -> str:
    """A probe as the console names it: ``C=12``, ``rate 4.5/s``."""
    return f"C={value:g}" if over == OVER_CONCURRENCY else f"rate {value:g}/s"


def sustain_line(
    entry: CapacityEntry, value: float | None, seconds: float, verdict: ProbeVerdict | None
) -> str:
    """What the console says of --sustain's level: ``sustain: C=8 held for 60 s at
    ttft_p90_ms<=1500 (212 requests; ...)``, ``did not hold`` with what broke, or (``value``
    None) that no capacity was found to hold."""
    if value is None:
        return f"sustain: none, no probe met {entry.bounds}: no capacity to hold"
    head = f"sustain: {level_name(entry.over, value)}"
    held_for = f"for {seconds:g} s at {entry.bounds}"
    if verdict is None:
        return f"{head} could not be judged {held_for}"
    sample = sample_text(verdict)
    if verdict.holds_within_sample:
        within = "" if verdict.meets else ", missed only within its sample's interval"
        return f"{head} held {held_for}{within}" + (f" ({sample})" if sample else "")
    broke = "; ".join(filter(None, [*verdict.breaches, sample]))
    return f"{head} did not hold {held_for} ({broke})"
