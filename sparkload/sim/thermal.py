"""``--thermal``: a node that heats with its draw and lowers its clocks past a temperature limit.

Pure: no clock. The engine loop (``backends.py``) advances it by each step's simulated seconds
at the step's watts (``power.py``) and by the idle gaps between steps at the idle draw; the
step's duration is divided by the clock's share of its maximum (a throttled GPU computes each
step slower), and its watts above idle are multiplied by it (a slower clock draws less, which is
what lets a throttled box settle). Served beside the power as dcgm-exporter's SM clock, maximum
SM clock and GPU temperature gauges (``metrics.py``).

The model, per node (one lump: the box's heat sink and the chip)::

    dT/dt = (ambient + c_per_w x watts - T) / time_constant         first order, exact per step
    share = clamp(1 - sag_per_c x (T - limit), min_share, 1)         the SM clock / its maximum

The numbers are illustrative picks for a small, fan-cooled box like the DGX Spark, not a
measurement of one: the seeds hold no thermal figure of the GB10, and NVIDIA publishes none.
A node idling at 25 W sits near 57 °C in a 30 °C room; a loaded server (70-80 W,
``power.py``) would head for 107-118 °C unthrottled, so it crosses the limit of 80 °C after
some six minutes at full load and settles where the slower clock's lower draw balances, near
88 °C at about 60 % of its clock (after half an hour and more). It gets there over minutes: a
heat sink of about 550 J/K behind 1.1 K/W, a time constant of 10 minutes, so a burst of a
minute or two runs at full clock while a capacity search of some twenty simulated minutes,
and a sustain after it, run ever hotter. The maximum SM clock of 3,003 MHz is a label (the
figure published DGX Spark listings give the GB10's GPU), the shares are what the model
computes.
"""

from __future__ import annotations

import math
from dataclasses import dataclass


@dataclass(frozen=True)
class ThermalModel:
    """One node's heating and throttling (module doc for the numbers)."""

    ambient_c: float = 30.0
    c_per_w: float = 1.1  # steady-state rise over ambient per watt drawn
    time_constant_s: float = 600.0  # simulated seconds to cover 63 % of a change
    limit_c: float = 80.0  # the clock sags above this temperature
    sag_per_c: float = 0.05  # share of the clock lost per degree over the limit
    min_share: float = 0.5  # the clock never falls below this share of its maximum
    max_clock_mhz: float = 3003.0

    def settled_c(self, watts: float) -> float:
        """The temperature a node drawing ``watts`` for ever settles at."""
        return self.ambient_c + self.c_per_w * watts

    def clock_share(self, temperature_c: float) -> float:
        """The SM clock's share of its maximum at ``temperature_c``."""
        over = temperature_c - self.limit_c
        return min(1.0, max(self.min_share, 1.0 - self.sag_per_c * over))


class Thermal:
    """One node's temperature over simulated time, from the idle temperature at the start."""

    def __init__(self, model: ThermalModel, idle_w: float) -> None:
        self.model = model
        self.temperature_c = model.settled_c(idle_w)

    def advance(self, watts: float, seconds: float) -> None:
        """``seconds`` of simulated time at ``watts``: the exact first-order step."""
        if seconds <= 0:
            return
        target = self.model.settled_c(watts)
        kept = math.exp(-seconds / self.model.time_constant_s)
        self.temperature_c = target + (self.temperature_c - target) * kept

    @property
    def clock_share(self) -> float:
        return self.model.clock_share(self.temperature_c)

    @property
    def clock_mhz(self) -> float:
        return self.model.max_clock_mhz * self.clock_share
