"""What a simulated Spark draws: idle watts plus watts by the work of the step under way.

The simulator serves these figures as dcgm-exporter would (``metrics.py``): a power gauge and
an energy counter per node, so energy per token can be tested end to end. Every figure is in
simulated time: a run at time scale S integrates the watts over simulated seconds, so joules /
simulated seconds of a level give back the watts the gauge showed.

The model, per node of the TP group (each runs every step, on its 1/N share of the work, so
each draws the same)::

    watts = idle                                                      no step under way
          = min(peak, idle + awake + memory x memory share + compute x compute share)

where the shares are the step's time streaming memory and computing on the tensor cores over
its duration (``engine.StepCost``; with overlap they can add up to more than 1).

The seeds hold no power figure of the DGX Spark or GB10; these are published figures, and picks
where they are silent:

* idle 25 W: a DGX Spark's wall draw at idle once its ConnectX-7 NIC may power down, 22-25 W
  after NVIDIA's update, 37-45 W before
  (https://www.tectack.org/2026/02/the-latest-dgx-spark-update-cuts-idle.html);
* one memory-bound decode stream ~65 W (25 + awake 15 + memory 25 at a memory share near 1) and
  a loaded server 70-95 W: reviews measured 60-90 W for LLM inference
  (https://unanswered.io/guide/nvidia-dgx-power-consumption-watts) and "~95 W with a model
  loaded and serving" (https://huggingface.co/blog/exolabs/the-dgx-spark-handbook);
* peak 140 W, the GB10's TDP (https://huggingface.co/hardware/gb10), reached only by
  compute-bound prefill; the box has a 240 W supply (NVIDIA's DGX Spark specifications);
* the split of the active watts between "awake", memory streaming and compute is a pick, not a
  measurement: it puts decode and prefill where the figures above say.

dcgm-exporter reports the GPU's own draw, less than the box's; these figures stand for the box.
With ``--thermal`` the meter also heats the node (``thermal.py``): a throttled clock makes each
step slower (the engine loop divides its duration by ``clock_share``) and scales its watts
above idle by the same share; without it the clock is always the maximum and no clock or
temperature is served.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

from sparkload.sim.engine import StepCost
from sparkload.sim.thermal import Thermal


@dataclass(frozen=True)
class PowerModel:
    """Watts of one node (module doc for the sources)."""

    idle_w: float = 25.0
    awake_w: float = 15.0  # a step under way: clocks up, scheduling, waiting on the link
    memory_w: float = 25.0  # streaming weights, KV and state for the whole step
    compute_w: float = 75.0  # tensor cores busy for the whole step
    peak_w: float = 140.0

    def step_watts(self, cost: StepCost) -> float:
        """What a node draws while running a step of this cost."""
        memory = self.memory_w * cost.memory_share
        compute = self.compute_w * cost.compute_share
        return min(self.peak_w, self.idle_w + self.awake_w + memory + compute)


class PowerMeter:
    """One node's power now and its energy since the server started, in simulated time.

    The engine loop brackets every step with ``begin_step`` and ``end_step``; between steps the
    node idles. Energy = idle watts x simulated seconds since start + what each finished step
    drew above idle x its simulated duration.
    """

    def __init__(
        self,
        model: PowerModel,
        time_scale: float,
        clock: Callable[[], float] = time.monotonic,
        thermal: Thermal | None = None,
    ) -> None:
        self.model = model
        self.thermal = thermal
        self._scale = time_scale
        self._clock = clock
        self._started = clock()
        self._above_idle_j = 0.0
        self._step_w: float | None = None
        self._heated_to = 0.0  # simulated seconds since start the thermal state is advanced to

    @property
    def clock_share(self) -> float:
        """The SM clock's share of its maximum now (1 without a thermal model)."""
        return 1.0 if self.thermal is None else self.thermal.clock_share

    def begin_step(self, cost: StepCost) -> None:
        self._cool_idle()
        idle = self.model.idle_w
        self._step_w = idle + self.clock_share * (self.model.step_watts(cost) - idle)

    def end_step(self, simulated_s: float) -> None:
        if self._step_w is not None:
            self._above_idle_j += (self._step_w - self.model.idle_w) * simulated_s
            if self.thermal is not None:
                self.thermal.advance(self._step_w, simulated_s)
                self._heated_to = max(self._heated_to + simulated_s, self._simulated_s())
        self._step_w = None

    def temperature_c(self) -> float | None:
        """The node's temperature now (None without a thermal model)."""
        if self.thermal is None:
            return None
        if self._step_w is None:
            self._cool_idle()
        return self.thermal.temperature_c

    def _cool_idle(self) -> None:
        """The thermal state brought up to now through the idle time since the last step."""
        if self.thermal is None:
            return
        now = self._simulated_s()
        self.thermal.advance(self.model.idle_w, now - self._heated_to)
        self._heated_to = max(self._heated_to, now)

    def _simulated_s(self) -> float:
        return (self._clock() - self._started) * self._scale

    def watts(self) -> float:
        return self.model.idle_w if self._step_w is None else self._step_w

    def energy_j(self) -> float:
        return self.model.idle_w * self._simulated_s() + self._above_idle_j
