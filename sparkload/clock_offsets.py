"""A worker's wall clock against the master's: offsets from round trips (pure).

The master reads its clock (``sent``), asks the worker for its own (``worker``), and reads its
clock again when the answer is back (``back``). Had both legs taken equally long, the worker's
clock read ``worker`` when the master's read the midpoint of ``sent`` and ``back``: the offset is
the difference, and whatever the legs took, it is within half the round trip of the truth. Of
several round trips the shortest gives the tightest bound (NTP's choice): a busy event loop on
either side only lengthens a round trip.

Only wall-clock placement uses offsets (``records.WALL_CLOCK_FIELDS``: when a request was sent,
when it was due); every duration is measured on one host's clock and needs none.
"""

from __future__ import annotations

from dataclasses import dataclass

# A worker's offset that moved by more than this between two readings, beyond what their round
# trips leave uncertain, is flagged: records between the readings were shifted by the earlier
# one. A constant, not an option: NTP slews a clock by at most 0.5 ms a second, so only a step
# (a clock set by hand, or by an NTP client that steps) moves it this far in a level.
MOVE_LIMIT = 0.02  # seconds
START = "start"  # a reading taken when the run started (else: the level index it started)


@dataclass(frozen=True)
class RoundTrip:
    sent: float  # the master's clock when the question left (epoch seconds)
    worker: float  # the worker's clock when it answered
    back: float  # the master's clock when the answer arrived

    @property
    def rtt(self) -> float:
        return self.back - self.sent

    @property
    def offset(self) -> float:
        """The worker's clock minus the master's."""
        return self.worker - (self.sent + self.back) / 2


@dataclass(frozen=True)
class Reading:
    """One measured offset: when it was taken, and the round trip that bounds it."""

    at: str | int  # START or a level index
    offset: float
    rtt: float

    def to_dict(self) -> dict:
        return {"at": self.at, "offset": round(self.offset, 6), "rtt": round(self.rtt, 6)}


def reading(at: str | int, trips: list[RoundTrip]) -> Reading | None:
    """The shortest round trip's offset (None when no answer came back)."""
    if not trips:
        return None
    best = min(trips, key=lambda trip: trip.rtt)
    return Reading(at, best.offset, best.rtt)


def moved(before: Reading, after: Reading, limit: float = MOVE_LIMIT) -> float | None:
    """How far the offset moved between two readings, when that is more than ``limit`` beyond
    what the two round trips leave uncertain; else None."""
    change = after.offset - before.offset
    if abs(change) > limit + (before.rtt + after.rtt) / 2:
        return change
    return None
