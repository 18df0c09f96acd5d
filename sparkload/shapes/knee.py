"""--refine-knee: after a ladder's planned levels, the levels to add around its throughput knee.

The ladder (count-based, ``shapes/ladder.py``, or time-based, ``shapes/steps.py``) hands every
ended level's live tally here; after the last planned level the knee is found from the tallies'
total tok/s (``LevelTally.total_tps``: closed loop, mean TPS x C, the figure the report's knee
reads too) by the records' one definition (``records.knee.find_knee``), and the levels added
are the concurrencies halfway, on the log scale, between the knee and each neighbour (rounded,
and only those not measured yet): 23 and 45 around a knee at 32 of 16, 32, 64. Nothing else is
judged again; the added levels are marked in the manifest (``LevelEntry.refines_knee``).
"""

from __future__ import annotations

import logging
import math

from sparkload.records import Knee, NoKnee, find_knee
from sparkload.run.livetable import LevelTally

logger = logging.getLogger("sparkload")


def refinement_levels(knee: Knee | NoKnee, measured: set[int]) -> tuple[int, ...]:
    """The concurrencies to add around ``knee``: the geometric midpoints between it and its
    neighbours, rounded, not in ``measured``, ascending (none without a knee)."""
    if not isinstance(knee, Knee):
        return ()
    midpoints = {round(math.sqrt(knee.level * side)) for side in (knee.below, knee.above)}
    return tuple(sorted(midpoints - measured))


class KneeRefiner:
    """The live throughput of a ladder's levels, and once its planned levels are over, the
    levels to add around the knee."""

    def __init__(self, planned: int) -> None:
        self.planned = planned  # the ladder's levels as given: later ones refine the knee
        self.throughput: dict[int, float | None] = {}  # by concurrency
        self.knee: Knee | NoKnee | None = None  # found after the last planned level

    def refines(self, index: int) -> bool:
        """Whether level ``index`` is one this refiner added."""
        return index >= self.planned

    def level_ended(self, index: int, tally: LevelTally) -> tuple[int, ...]:
        """Keep the level's throughput; after the last planned level, the levels to add."""
        self.throughput[tally.concurrency] = tally.total_tps
        if index != self.planned - 1:
            return ()
        self.knee = find_knee(list(self.throughput.items()))
        added = refinement_levels(self.knee, set(self.throughput))
        if isinstance(self.knee, NoKnee):
            logger.info("--refine-knee: no knee to refine (%s)", self.knee.reason)
        elif added:
            logger.info(
                "--refine-knee: live knee at C=%g; adding C=%s",
                self.knee.level,
                ", ".join(map(str, added)),
            )
        else:
            logger.info(
                "--refine-knee: live knee at C=%g; the levels around it are all measured",
                self.knee.level,
            )
        return added
