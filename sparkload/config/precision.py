"""``--target-precision`` and its bounds: a count-based level goes on until each target's
statistic is as sure as asked (``records/precision.py`` defines a target and its interval,
``shapes/precision.py`` extends the level)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from sparkload.config.option import PLAN, Option
from sparkload.config.parsers import optional_whole, pairs, whole
from sparkload.config.plan import LADDER, STEPS, PlanOptions
from sparkload.errors import ConfigError
from sparkload.records import PrecisionTarget, parse_target

DEFAULT_MAX_REQUESTS = 2000  # a level's cap: a p90 within about ±5 % of a spread-out TTFT
MOST_REQUESTS = 20_000  # the live table keeps this many values a level exactly (livetable.py)


def targets(flag: str, value: Any) -> tuple[PrecisionTarget, ...]:
    """``METRIC_STAT:PCT`` per target (repeatable), each statistic once."""
    out: list[PrecisionTarget] = []
    for given in pairs(value):
        try:
            target = parse_target(given)
        except ValueError as exc:
            raise ConfigError(f"{flag} {given.strip()!r}: {exc}") from None
        if any(t.name == target.name for t in out):
            raise ConfigError(f"{flag} {target.name}: the statistic is given twice")
        out.append(target)
    return tuple(out)


def most_requests(flag: str, value: Any) -> int:
    """A whole number up to ``MOST_REQUESTS``."""
    number = whole(flag, value)
    if number > MOST_REQUESTS:
        raise ConfigError(
            f"{flag}: {number} is more than a level can keep exactly ({MOST_REQUESTS})"
        )
    return number


ROWS: tuple[Option, ...] = (
    Option(
        "--target-precision",
        [],
        "Send each count-based level until a statistic is as sure as asked: METRIC_STAT:PCT, "
        "e.g. 'ttft_p90:5%' (any per-request metric of the summary, STAT mean, p50, p90 or "
        "p99): the statistic's 90 % interval (distribution-free for a percentile, normal for "
        "a mean) within PCT of its value; repeatable, a level goes on until every target is "
        "met or --max-requests-per-level",
        PLAN,
        targets,
        argparse_extra={"action": "append"},
        attr="targets",
    ),
    Option(
        "--min-requests-per-level",
        "",
        "With --target-precision: the requests a level sends before its precision is judged "
        "(default: the ladder's, C x --requests-per-user)",
        PLAN,
        optional_whole,
    ),
    Option(
        "--max-requests-per-level",
        DEFAULT_MAX_REQUESTS,
        "With --target-precision: the most requests a level sends; a level that reaches it "
        f"with a target unmet is marked capped (at most {MOST_REQUESTS})",
        PLAN,
        most_requests,
    ),
)


@dataclass(frozen=True)
class PrecisionOptions:
    targets: tuple[PrecisionTarget, ...]  # empty: levels of the plan's count
    min_requests_per_level: int | None  # None: the ladder's count
    max_requests_per_level: int

    def check(self, plan: PlanOptions) -> None:
        """Where a target cannot apply, and bounds that cannot hold: one line each."""
        if not self.targets:
            given = [
                flag
                for flag, present in (
                    ("--min-requests-per-level", self.min_requests_per_level is not None),
                    (
                        "--max-requests-per-level",
                        self.max_requests_per_level != DEFAULT_MAX_REQUESTS,
                    ),
                )
                if present
            ]
            if given:
                raise ConfigError(
                    f"{' and '.join(given)} without --target-precision: they bound its levels, "
                    "give a target too, e.g. --target-precision 'ttft_p90:5%'"
                )
            return
        if plan.mode != LADDER:
            drop = (
                "--step-duration"
                if plan.mode == STEPS
                else ("--trace" if plan.trace is not None else "--arrival-rate")
            )
            how = "timed" if plan.mode == STEPS else "open-loop"
            raise ConfigError(
                f"--target-precision extends count-based levels, and {how} levels end on their "
                f"own clock: drop {drop} or --target-precision"
            )
        least = self.min_requests_per_level
        if least is not None and least > self.max_requests_per_level:
            raise ConfigError(
                f"--min-requests-per-level {least} is more than --max-requests-per-level "
                f"{self.max_requests_per_level}"
            )
