"""The throughput knee of a sweep: the load past which throughput stops growing in proportion.

Pure, and in ``records`` because both halves use it: the load side's ``--refine-knee`` reads
the live tallies with it (``shapes/knee.py``), the analysis names the knee in the report and
summary.json (``analysis/figures/knee.py``), so the two never disagree on a definition.

Method: a two-segment (hinge) least-squares fit of log throughput on log load, the two lines
meeting at a measured level (every level from the second to the second-to-last is tried, so
each segment holds at least two levels). Each segment's slope is the throughput's elasticity
there: 1 grows in proportion to the load (twice the load, twice the tokens), 0 is flat. A
breakpoint is a knee when throughput grows less than 1.5x a doubling of the load after it (the
fitted slope after below log2 1.5 = 0.585, the issue's yardstick for "no longer in proportion")
and the slope falls there by at least ``MIN_DROP``; of those, the knee is the best fit (least
squared error). Why not the best fit of all breakpoints: a server's throughput bends smoothly (a
decode step's time grows with its batch), and on a ladder that ends near the bend the best fit
sits mid-curve, where throughput still grows 1.8x a doubling (the simulator's fp8 profile: 16 of
1-64, with growth of 1.67x and 1.49x still to come), not where it stopped (32).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

MIN_LEVELS = 4  # two segments of two levels each: three levels fit any hinge exactly
SUBPROPORTIONAL = math.log2(1.5)  # past a knee, throughput grows less than 1.5x a doubling
MIN_DROP = 0.25  # and the slope fell there by this much at least (a bend, not a slow sweep)
FLAT_SLOPE = 0.15  # a sweep whose single line grows less than this (1.11x a doubling) is flat


@dataclass(frozen=True)
class Knee:
    """Where the fitted slope falls most: the knee's level and its neighbours in the sweep."""

    level: float  # the knee: concurrency, or offered rate (requests/s)
    slope_before: float  # elasticity of throughput to load up to the knee (1: in proportion)
    slope_after: float  # and from the knee on
    below: float  # the measured level just below the knee
    above: float  # and just above it


@dataclass(frozen=True)
class NoKnee:
    """A sweep without a knee, and why (too few levels, in proportion throughout, flat)."""

    reason: str


def find_knee(points: Sequence[tuple[float, float | None]]) -> Knee | NoKnee:
    """The knee of ``points``, (load, throughput) pairs in any order: the load a concurrency or
    an offered rate, the throughput in tokens/s. A level without a positive throughput (none
    measured yet, or none at all) takes no part; a level given twice keeps its last figure."""
    measured = {float(x): float(y) for x, y in points if y is not None and x > 0 and y > 0}
    levels = sorted(measured)
    if len(levels) < MIN_LEVELS:
        return NoKnee(f"fewer than {MIN_LEVELS} levels with throughput ({len(levels)})")
    u = [math.log(x) for x in levels]
    v = [math.log(measured[x]) for x in levels]
    overall = _least_squares([[1.0, ui] for ui in u], v)[0][1]
    fits = [_hinge(u, v, k) for k in range(1, len(levels) - 1)]
    knees = [fit for fit in fits if fit.after < SUBPROPORTIONAL and fit.drop >= MIN_DROP]
    if knees:
        best = min(knees, key=lambda fit: fit.squared_error)
        k = best.index
        return Knee(levels[k], best.before, best.after, levels[k - 1], levels[k + 1])
    if overall < FLAT_SLOPE:
        return NoKnee(
            f"flat throughout: throughput grows {_per_doubling(overall)} a doubling of the load"
        )
    lowest = min(fits, key=lambda fit: fit.after)
    if lowest.after >= SUBPROPORTIONAL:
        return NoKnee(
            f"in proportion throughout: throughput grows {_per_doubling(overall)} a doubling of "
            f"the load overall, at least {_per_doubling(lowest.after)} past any level (a knee: "
            "below 1.5x past it)"
        )
    return NoKnee(
        f"no bend: throughput grows {_per_doubling(overall)} a doubling of the load overall, "
        f"its fitted slope falling by less than {MIN_DROP:g} at every level"
    )


@dataclass(frozen=True)
class _Fit:
    index: int  # the breakpoint, a measured level's position
    before: float
    after: float
    squared_error: float

    @property
    def drop(self) -> float:
        return self.before - self.after


def _hinge(u: list[float], v: list[float], k: int) -> _Fit:
    """The least-squares continuous two-line fit broken at level ``k`` (its basis: 1,
    min(u - u_k, 0), max(u - u_k, 0))."""
    basis = [[1.0, min(ui - u[k], 0.0), max(ui - u[k], 0.0)] for ui in u]
    (_, before, after), error = _least_squares(basis, v)
    return _Fit(k, before, after, error)


def _least_squares(rows: list[list[float]], v: list[float]) -> tuple[list[float], float]:
    """The coefficients minimizing the squared error of ``rows @ c`` against ``v``, and that
    error: the normal equations, solved by elimination with partial pivoting (a few columns:
    no numpy on the load side)."""
    width = len(rows[0])
    system = [
        [sum(r[i] * r[j] for r in rows) for j in range(width)]
        + [sum(r[i] * vi for r, vi in zip(rows, v, strict=True))]
        for i in range(width)
    ]
    for col in range(width):
        pivot = max(range(col, width), key=lambda row: abs(system[row][col]))
        system[col], system[pivot] = system[pivot], system[col]
        for row in range(width):
            if row != col:
                factor = system[row][col] / system[col][col]
                system[row] = [
                    a - factor * b for a, b in zip(system[row], system[col], strict=True)
                ]
    c = [system[i][width] / system[i][i] for i in range(width)]
    error = sum(
        (sum(ci * ri for ci, ri in zip(c, r, strict=True)) - vi) ** 2
        for r, vi in zip(rows, v, strict=True)
    )
    return c, error


def _per_doubling(slope: float) -> str:
    return f"{math.pow(2.0, slope):.2f}x"
