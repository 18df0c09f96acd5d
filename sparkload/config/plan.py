"""The load plan's options: which levels run, how long, open or closed loop, a capacity search.

A plan is a ladder of concurrencies (count-based, or time-based with ``--step-duration``), an
open loop of arrival rates or a trace's timestamps, or a capacity search over either; the rules
across these options are ``PlanOptions.check``'s.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sparkload.config.option import PLAN, Option
from sparkload.config.parsers import (
    boolean,
    duration,
    integer,
    levels,
    non_negative,
    one_of,
    optional_path,
    pairs,
    positive,
    rates,
    text,
    whole,
)
from sparkload.errors import ConfigError
from sparkload.records import CHECK_TENANTS
from sparkload.records.knee import MIN_LEVELS as KNEE_MIN_LEVELS

POISSON, CONSTANT, GAMMA = "poisson", "constant", "gamma"
ARRIVAL_PROCESSES = (POISSON, CONSTANT, GAMMA)
LADDER, STEPS, ARRIVAL = "ladder", "steps", "arrival"  # ``PlanOptions.mode``: the manifest's
TIER_EXAMPLE = "fast:tps_p10>=30,ttfo_p90_ms<=2000"
KNEE_LEVELS_ADDED = 2  # --refine-knee adds at most one level on either side of the knee
_TIER_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]*")


@dataclass(frozen=True)
class Tier:
    """One ``--tier``: its name and its bounds (``--check``'s syntax, read by the analysis)."""

    name: str
    bounds: str


def tiers(flag: str, value: Any) -> tuple[Tier, ...]:
    """``NAME:BOUNDS`` per tier (repeatable): a name of letters, digits, '.', '_' or '-', given
    once, and bounds (their syntax is the analysis's to check, before the load)."""
    out: list[Tier] = []
    for pair in pairs(value):
        name, colon, bounds = (part.strip() for part in pair.partition(":"))
        if not colon or not bounds or not name:
            raise ConfigError(f"{flag} {pair.strip()!r}: give NAME:BOUNDS, e.g. '{TIER_EXAMPLE}'")
        if not _TIER_NAME.fullmatch(name):
            raise ConfigError(f"{flag} {name}: a tier's name is letters, digits, '.', '_' or '-'")
        if any(tier.name == name for tier in out):
            raise ConfigError(f"{flag} {name}: the tier is given twice")
        out.append(Tier(name, bounds))
    return tuple(out)


ROWS: tuple[Option, ...] = (
    Option(
        "--ladder",
        "1,2,4,8,16",
        "Concurrency levels of the ladder, comma-separated",
        PLAN,
        levels,
    ),
    Option(
        "--requests-per-user",
        10,
        "Measured requests per user per ladder level (10 x C per level); with --workload "
        "conversation, conversations per user per level (C x this x --turns requests)",
        PLAN,
        whole,
    ),
    Option(
        "--step-duration",
        0.0,
        "Time-based steps: seconds per ladder level (0: count-based ladder)",
        PLAN,
        non_negative,
    ),
    Option(
        "--refine-knee",
        False,
        "Ladder (count- or time-based): after its levels, find the throughput knee from the "
        "live figures (docs/knee.md) and run the concurrencies halfway (geometrically) between "
        "it and its neighbours that were not measured yet",
        PLAN,
        boolean,
    ),
    Option(
        "--arrival-rate",
        "0",
        "Open loop: arrivals per second of the target's time (simulated seconds on the built-in "
        "simulator), or several rates comma-separated (2,4,8,16: one level each, a rate sweep); "
        "0: closed loop",
        PLAN,
        rates,
    ),
    Option(
        "--arrival-users",
        64,
        "Open loop: client pool size (most requests in flight)",
        PLAN,
        whole,
    ),
    Option(
        "--arrival-duration",
        60.0,
        "Open loop: seconds of arrivals per rate, in the target's time",
        PLAN,
        non_negative,
    ),
    Option(
        "--arrival-process",
        POISSON,
        "Open loop: how arrivals are spaced: poisson (exponential gaps), constant (even gaps) "
        "or gamma (gaps of shape --burstiness and the rate's mean, vLLM's); seeded",
        PLAN,
        one_of(ARRIVAL_PROCESSES),
        choices=ARRIVAL_PROCESSES,
    ),
    Option(
        "--burstiness",
        1.0,
        "Open loop, --arrival-process gamma: the gamma shape B (vLLM's --burstiness): 1 is "
        "Poisson, below 1 burstier, above 1 more even (the gaps' coefficient of variation is "
        "1/sqrt(B))",
        PLAN,
        positive,
    ),
    Option(
        "--no-saturation-stop",
        False,
        "Open loop: run every rate of a sweep even when a level is over-saturated (its backlog "
        "grows without bound); the level is only flagged, not ended early",
        PLAN,
        boolean,
    ),
    Option(
        "--trace",
        "",
        "Replay a trace, open loop: each line is sent at its timestamp (target time) with its "
        "input and output lengths; Mooncake JSONL (timestamp ms, input_length, output_length, "
        "hash_ids of 512-token blocks: shared ids become shared prompt text) or the Azure LLM "
        "inference CSV (TIMESTAMP, ContextTokens, GeneratedTokens); --arrival-users caps those "
        "in flight",
        PLAN,
        optional_path,
    ),
    Option(
        "--trace-speedup",
        1.0,
        "Trace replay: send the trace this many times faster than its timestamps (2: twice the "
        "rate)",
        PLAN,
        positive,
    ),
    Option(
        "--find-capacity",
        "",
        "Search instead of a ladder: the largest concurrency meeting every bound (--check's "
        "syntax, e.g. 'ttft_p90_ms<=800'), or with one --arrival-rate (the first probe) the "
        "highest rate, within 5 %; doubles until a probe breaks the bounds, then bisects, each "
        "probe a complete level; exit 4 when not even the lowest probe meets them. 'tenants': "
        "with --tenants, the largest total load, the shares held, at which every class meets "
        "its own slo, naming the class that fails first",
        PLAN,
        text,
    ),
    Option(
        "--tier",
        [],
        "Agent capacity by tier: NAME:BOUNDS (--check's syntax, e.g. "
        f"'{TIER_EXAMPLE}'), repeatable; one capacity search over concurrent agent sessions per "
        "tier in one run (--workload agent or --agent-trace), each level judged under every "
        "open tier's bounds, so a level measured once answers every tier that asks for its "
        "concurrency",
        PLAN,
        tiers,
        argparse_extra={"action": "append"},
        attr="tiers",
    ),
    Option(
        "--sustain",
        "0",
        "Capacity search: after it, hold the load it found (its concurrency, or its rate open "
        "loop) for this long in the target's time (90s, 5m, 1h; units required), one more "
        "level, judged under the same bounds: whether the capacity held, and the drift of "
        "TTFT, ITL and TPS over it (exit 4 when it did not hold); with --find-capacity BOUNDS",
        PLAN,
        duration,
    ),
    Option(
        "--capacity-start",
        1,
        "Capacity search, closed loop: the first concurrency probed",
        PLAN,
        whole,
    ),
    Option(
        "--capacity-max",
        256.0,
        "Capacity search: the highest concurrency (closed loop) or rate (open loop) probed",
        PLAN,
        positive,
    ),
    Option(
        "--repeat",
        1,
        "Run the whole plan N times back to back, each run in its own directory (the "
        "single-Spark notes' 'two consecutive runs'); the report sets them side by side",
        PLAN,
        whole,
    ),
    Option(
        "--seed",
        0,
        "Seed of the prompt order and the arrival process",
        PLAN,
        integer,
    ),
)


@dataclass(frozen=True)
class PlanOptions:
    ladder: tuple[int, ...]
    requests_per_user: int
    step_duration: float
    refine_knee: bool  # --refine-knee: levels added around the live knee after the ladder
    arrival_rate: tuple[float, ...]  # open loop: one level per rate (empty: closed loop)
    arrival_users: int
    arrival_duration: float  # target time
    arrival_process: str  # poisson | constant | gamma
    burstiness: float
    no_saturation_stop: bool
    trace: Path | None
    trace_speedup: float
    find_capacity: str  # --check bounds of a capacity search ("": no search)
    tiers: tuple[Tier, ...]  # --tier: a capacity search per tier (empty: none)
    sustain: float  # seconds of the target's time the found load is held after a search (0: none)
    capacity_start: int
    capacity_max: float
    repeat: int
    seed: int

    @property
    def searches(self) -> tuple[Tier, ...]:
        """The plan's capacity searches: one per --tier, or --find-capacity's (its name "");
        empty: the plan runs its levels as given."""
        if self.tiers:
            return self.tiers
        return (Tier("", self.find_capacity),) if self.find_capacity else ()

    @property
    def mode(self) -> str:
        """ladder (count-based), steps (time-based) or arrival (open loop, a trace's too)."""
        if self.arrival_rate or self.trace is not None:
            return ARRIVAL
        return STEPS if self.step_duration > 0 else LADDER

    @property
    def level_count(self) -> int:
        """Levels of one run of the plan: one per rate, the trace's one, or one per C."""
        if self.trace is not None:
            return 1
        return len(self.arrival_rate) if self.arrival_rate else len(self.ladder)

    def check(self) -> None:
        """The plan's rules across options: a ConfigError of one line naming the conflict.

        A trace brings its own timing, so the options of every other plan are refused beside it
        (a value equal to the default cannot be told from none, and passes)."""
        if self.burstiness != 1.0 and self.arrival_process != GAMMA:
            raise ConfigError("--burstiness shapes gamma arrivals: add --arrival-process gamma")
        if self.arrival_process != POISSON and not self.arrival_rate and self.trace is None:
            raise ConfigError("--arrival-process spaces open-loop arrivals: give --arrival-rate")
        if self.tiers and self.find_capacity:
            raise ConfigError(
                "--tier runs a capacity search per tier: drop --find-capacity (give its bounds "
                "as one more --tier)"
            )
        self._check_refine_knee()
        self._check_sustain()
        if self.trace is None:
            if self.trace_speedup != 1.0:
                raise ConfigError("--trace-speedup without --trace: give the trace to replay")
            return
        default = {row.dest: row.value(None) for row in ROWS}
        given = {
            "--arrival-rate": bool(self.arrival_rate),
            "--step-duration": self.step_duration > 0,
            "--ladder": self.ladder != default["ladder"],
            "--requests-per-user": self.requests_per_user != default["requests_per_user"],
            "--arrival-duration": self.arrival_duration != default["arrival_duration"],
            "--arrival-process": self.arrival_process != POISSON,
        }
        clash = [flag for flag, present in given.items() if present]
        if clash:
            raise ConfigError(
                f"--trace sends each line at its own timestamp: drop {', '.join(clash)} "
                "(--trace-speedup changes the pace, --arrival-users the requests in flight)"
            )

    def _check_refine_knee(self) -> None:
        """--refine-knee adds levels to a ladder of known levels, in one run directory."""
        if not self.refine_knee:
            return
        if self.mode == ARRIVAL or self.searches:
            raise ConfigError(
                "--refine-knee adds levels to a ladder: drop it, or drop "
                + ("--find-capacity/--tier" if self.searches else "--arrival-rate/--trace")
            )
        if self.repeat > 1:
            raise ConfigError("--refine-knee with --repeat: give one or the other")
        if len(set(self.ladder)) < KNEE_MIN_LEVELS:
            raise ConfigError(
                f"--refine-knee needs a --ladder of at least {KNEE_MIN_LEVELS} levels to find a "
                f"knee (given {','.join(map(str, self.ladder))})"
            )

    def _check_sustain(self) -> None:
        """--sustain holds what one search under one set of bounds found: not without a search,
        not per --tier (which tier's capacity?), not --find-capacity tenants (each class's own
        bounds: the held verdict is one set's)."""
        if self.sustain <= 0:
            return
        if self.tiers:
            raise ConfigError(
                "--sustain holds one found capacity: give --find-capacity BOUNDS, not --tier"
            )
        if not self.find_capacity:
            raise ConfigError(
                "--sustain holds the load a capacity search found: give --find-capacity BOUNDS"
            )
        if self.find_capacity == CHECK_TENANTS:
            raise ConfigError(
                "--sustain holds the capacity under one set of bounds: give --find-capacity "
                "BOUNDS, not tenants"
            )
