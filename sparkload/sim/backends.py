"""Where a stream's tokens come from, and when: the engine loop or a fixed schedule.

Both backends turn a request into an async iterator of token counts, each yielded at the
real time it is due (simulated seconds divided by the time scale). The server frames whatever
arrives; it does not know which backend produced it.

- ``EngineBackend`` runs one loop for the whole server: plan a step, sleep its duration, hand
  each request its tokens. Requests join after a per-request frontend delay, as in vLLM.
- ``FixedBackend`` has no batching: every request independently gets its first token after
  ``ttft_s`` and then ``tokens_per_chunk`` tokens every ``itl_s`` - the "server with known
  timing" for accuracy benchmarks of the load side.

Either may serve LoRA adapters (``lora.py``): the engine's slots decide when a request is
admitted and what its step costs; the fixed schedule adds a load to its request's first token.
"""

from __future__ import annotations

import asyncio
import random
from collections.abc import AsyncGenerator
from dataclasses import dataclass

from sparkload.sim.engine import Counters, Emission, Engine, frontend_seconds
from sparkload.sim.lora import LoraSetup, LoraSlots
from sparkload.sim.power import PowerMeter, PowerModel
from sparkload.sim.profiles import Profile
from sparkload.sim.request_metrics import Schedule
from sparkload.sim.thermal import Thermal, ThermalModel


class Pacer:
    """Sleeps that end on time on average.

    asyncio wakes up late: epoll waits whole milliseconds, rounded up, plus the kernel's wake
    latency (~0.9 ms mean measured on the 2-core test machine). At a 10x time scale that bias
    would add ~9 ms of simulated time to every wait, so the pacer learns the mean overshoot
    (exponential average) and aims that much early.
    """

    def __init__(self) -> None:
        self.bias_s = 0.0005

    async def sleep_until(self, deadline: float) -> None:
        loop = asyncio.get_running_loop()
        target = deadline - self.bias_s
        await asyncio.sleep(max(0.0, target - loop.time()))  # yields even when already due
        overshoot = loop.time() - target
        if 0.0 <= overshoot < 0.005:  # a long stall of the loop says nothing about timers
            self.bias_s += 0.05 * (min(overshoot, 0.002) - self.bias_s)


@dataclass(frozen=True)
class FixedTiming:
    ttft_s: float = 0.100
    itl_s: float = 0.010
    tokens_per_chunk: int = 1


@dataclass(frozen=True)
class Generation:
    """What a stream asks a backend for."""

    request_id: str
    prompt_tokens: int
    max_tokens: int
    block_hashes: tuple[int, ...] = ()
    draft_acceptance: float | None = None  # its category's per-draft rate (None: the profile's)
    adapter: str | None = None  # the LoRA adapter asked for (None: the base model; ``lora.py``)


class EngineBackend:
    """Drives ``Engine`` in (scaled) real time and fans its emissions out to the streams."""

    def __init__(
        self,
        profile: Profile,
        time_scale: float,
        seed: int = 0,
        lora: LoraSetup | None = None,
        thermal: ThermalModel | None = None,
    ) -> None:
        self.engine = Engine(profile, seed, lora)
        self.counters: Counters = self.engine.counters
        self.hidden_first_tokens = profile.hidden_first_tokens
        self.block_tokens = profile.block_size
        self.nodes = profile.tp
        power = PowerModel()
        heat = None if thermal is None else Thermal(thermal, power.idle_w)
        self.power = PowerMeter(power, time_scale, thermal=heat)
        self._profile = profile
        self._scale = time_scale
        self._frontend_rng = random.Random(seed + 1)
        self._pacer = Pacer()
        self._queues: dict[str, asyncio.Queue[Emission]] = {}
        self._schedules: dict[str, Schedule] = {}
        self._cached: dict[str, int] = {}
        self._wake = asyncio.Event()
        self._task: asyncio.Task[None] | None = None

    @property
    def num_running(self) -> int:
        return self.engine.num_running

    @property
    def num_waiting(self) -> int:
        return self.engine.num_waiting

    def kv_usage(self) -> float:
        return self.engine.kv_usage()

    def kv_cache_blocks(self) -> tuple[int, int]:
        """(blocks, tokens per block) of the KV cache: its capacity, as vLLM reports it."""
        return self.engine.kv_cache_blocks()

    def start(self) -> None:
        self._task = asyncio.get_running_loop().create_task(self._run())

    async def stop(self) -> None:
        if self._task:
            self._task.cancel()
            await asyncio.gather(self._task, return_exceptions=True)

    def cached_tokens(self, request_id: str) -> int:
        return self._cached.get(request_id, 0)

    async def generate(self, gen: Generation, schedule: Schedule) -> AsyncGenerator[int, None]:
        """The request's token counts as the engine samples them; ``schedule`` gets its stamps
        (``request_metrics``: queued once the front end hands it over, then the steps')."""
        loop = asyncio.get_running_loop()
        delay = frontend_seconds(self._profile, self._frontend_rng) / self._scale
        await self._pacer.sleep_until(loop.time() + delay)
        queue: asyncio.Queue[Emission] = asyncio.Queue()
        self._queues[gen.request_id] = queue
        seq = self.engine.add(
            gen.request_id,
            gen.prompt_tokens,
            gen.max_tokens,
            gen.block_hashes,
            gen.draft_acceptance,
            gen.adapter,
        )
        schedule.queued = loop.time()
        schedule.num_spec_tokens = self._profile.spec.num_draft_tokens if self._profile.spec else 0
        schedule.acceptance_histogram = seq.acceptance_histogram
        self._schedules[gen.request_id] = schedule
        self._wake.set()
        finished = False
        try:
            while not finished:
                emission = await queue.get()
                finished = emission.finished
                self._cached[gen.request_id] = seq.cached_tokens
                yield emission.tokens
        finally:
            del self._queues[gen.request_id]
            del self._schedules[gen.request_id]
            self._cached.pop(gen.request_id, None)
            if not finished:
                self.engine.abort(gen.request_id)

    async def _run(self) -> None:
        loop = asyncio.get_running_loop()
        step_end = loop.time()
        while True:
            if not self.engine.has_work():
                self._wake.clear()
                await self._wake.wait()
                step_end = loop.time()
            step = self.engine.step()
            self.power.begin_step(step.cost)
            seconds = step.duration_s / self.power.clock_share  # a throttled clock: slower
            step_start = max(step_end, loop.time() - 0.05)
            step_end = step_start + seconds / self._scale
            for request_id in step.scheduled:
                if (schedule := self._schedules.get(request_id)) is not None:
                    schedule.schedule_at(step_start)
            await self._pacer.sleep_until(step_end)
            self.power.end_step(seconds)
            for emission in step.emissions:
                queue = self._queues.get(emission.request_id)
                if queue is not None:
                    self._schedules[emission.request_id].note_tokens(step_end)
                    queue.put_nowait(emission)


class FixedBackend:
    """Independent requests with constant TTFT and constant gaps; no engine, no batching."""

    hidden_first_tokens = 0
    block_tokens = 16
    num_waiting = 0
    nodes = 1
    power: PowerMeter | None = None  # no engine steps, so no power model

    def __init__(
        self, timing: FixedTiming, time_scale: float, lora: LoraSetup | None = None
    ) -> None:
        self.counters = Counters()
        self.num_running = 0
        self.lora = LoraSlots(lora or LoraSetup())  # no batch: a load delays its request only
        self._timing = timing
        self._scale = time_scale
        self._pacer = Pacer()

    def kv_usage(self) -> float:
        return 0.0

    def kv_cache_blocks(self) -> None:
        """Fixed timing models no KV cache."""
        return None

    def cached_tokens(self, request_id: str) -> int:
        return 0

    def start(self) -> None:
        """Nothing runs in the background."""

    async def stop(self) -> None:
        """Nothing to stop."""

    async def generate(self, gen: Generation, schedule: Schedule) -> AsyncGenerator[int, None]:
        """Tokens on the fixed timing; ``schedule`` has no queue (scheduled when received)."""
        loop = asyncio.get_running_loop()
        schedule.queued = schedule.scheduled = loop.time()
        loading = self.lora.admit(gen.adapter) or 0.0  # no slot is ever busy without a batch
        due = schedule.queued + (self._timing.ttft_s + loading) / self._scale
        self.num_running += 1
        self.counters.prompt_tokens += gen.prompt_tokens
        try:
            sent = 0
            while sent < gen.max_tokens:
                await self._pacer.sleep_until(due)
                tokens = min(self._timing.tokens_per_chunk, gen.max_tokens - sent)
                sent += tokens
                self.counters.generation_tokens += tokens
                schedule.note_tokens(due)
                yield tokens
                due += self._timing.itl_s / self._scale
        finally:
            self.num_running -= 1
