"""The throughput knee of a sweep: the load past which throughput stops growing in proportion.

Pure, and in ``records`` because both halves use it: the load side's ``--refine-knee`` reads
the live tallies with it (``shapes/knee.py``), the analysis names the knee in the report and
summary.json (``analysis/figures/knee.py``), so the two never disagree on a definition.

Method: a two-segment (hinge) least-squares fit of log throughput on log load, the two lines
meeting at a measured level (every level from the second to the second-to-last is tried, so
each segment holds at least two levels). Each segment's slope is the throughput's elasticity
there: 1 grows in proportion to the load (twice the load, twice the tokens), 0 is flat. A
breakpoint is a knee when throughput stops growing in proportion there: past it the fitted
slope is below log2 1.5 = 0.585 (less than 1.5x a doubling of the load, issue 46's yardstick),
the slope falls there by at least ``MIN_DROP``, and the measured step to the next level grows
less than 1.5x a doubling too; of those, the knee is the best fit (least squared error).

Why the measured step as well: a server's throughput bends smoothly (a decode step's time grows
with its batch), and on a ladder that ends soon after the bend the best fit sits mid-curve. The
simulator's fp8 profile on a busy machine grew 1.98, 1.95, 1.87, 1.81, 1.55, 1.29x over
1-64: the best fit with a slope below 0.585 past it breaks at 16, where the next doubling still
grew 1.55x; the knee is 32. On 400 noisy (3 %) curves throughput = C / (1 + C/h), h 8 to 64,
ladder 1-128, the knee so found was always within one level of the first level whose growth
fell below 1.5x; by the fit alone, one in six was two or three levels early.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

MIN_LEVELS = 4  # two segments of two levels each: three levels fit any hinge exactly
SUBPROPORTIONAL = math.log2(1.5)  # past a knee throughput grows less than 1.5x a doubling
MIN_DROP = 0.25  # and the slope fell there by this much at least (a bend, not a slow sweep)
FLAT_SLOPE = 0.15  # a sweep whose single line grows less than this (1.11x a doubling) is flat


@dataclass(frozen=True)
class Knee:
    """A sweep's knee: its level, the fit's slopes either side, its neighbours in the sweep."""

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
    knees = [
        fit
        for fit in fits
        if fit.after < SUBPROPORTIONAL
        and fit.drop >= MIN_DROP
        and _step_slope(u, v, fit.index) < SUBPROPORTIONAL
    ]
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


def _step_slope(u: list[float], v: list[float], k: int) -> float:
    """The measured elasticity from level ``k`` to the next."""
    return (v[k + 1] - v[k]) / (u[k + 1] - u[k])


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
