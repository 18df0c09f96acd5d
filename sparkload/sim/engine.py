"""The simulator's timing engine: vLLM V1's scheduler loop, priced with a roofline step model.

Pure and deterministic: no clock, no I/O. The server calls ``Engine.step()``, sleeps for the
returned duration (divided by the time scale) and then hands the step's emitted tokens to the
streams. New requests join the waiting queue at any time and are scheduled at the next step,
exactly when vLLM would see them. Parameters and their sources are in ``profiles.py``.

Scheduling (vLLM V1, chunked prefill, notes s.5). Each step has a token budget
``max_num_batched_tokens``. Running requests that are decoding go first, each costing 1 + k
tokens (k draft tokens with MTP). Then partial prefills, then waiting requests in arrival order
take what is left of the budget (less any reserved draft slots:
``Profile.scheduled_token_budget``), chunk by chunk, as long as ``max_num_seqs`` and free KV
blocks allow. One forward pass serves the mixed batch. Prefix-cache hits skip whole blocks
(``Profile.block_size``, 512 tokens by default; vLLM always computes at least the prompt's last
token). When a growing sequence finds no free
KV block, the most recently admitted request is preempted and later recomputed.

Step time, for a TP group of N nodes, T scheduled tokens, B_d decoding and B_p prefilling
sequences::

    t = t_fix + max(t_mem, t_compute) + loss * min(t_mem, t_compute)
          + t_draft + t_comm + t_verify                      (x lognormal jitter)

    t_mem     = W / (N * eff * BW_peak)                      weights, once per step
              + ctx_tokens * kv_bytes / (N * BW_stream)      attention reads the KV cache
              + (B_d * (2 + k) + 2 * B_p) * S / (N * BW_stream)
                                                             Gated-DeltaNet recurrent state:
                                                             read once, written once per
                                                             verified position
    t_compute = (t_linear + 4 * L_attn * H_q * d * sum(n * (ctx + n / 2)) / F_attn) / N
    t_linear  = 2 * P * T_prefill / F + 2 * P * T_decode / F_decode
                                                             F_decode, F_attn default to F
              = max(2 * P * T / F, 2 * P * T_decode / F_decode)
                                                             with ``decode_joins_prefill``:
                                                             decode rows ride in the chunk's
                                                             GEMMs (``linear_seconds``)
    t_draft   = (t_draft_pass + k * t_draft_token) / N      drafter, once per step
    t_comm    = (2 * L + 2) * AR(T) + 3 * k * AR(B)          all-reduces, 0 when N = 1
    t_verify  = B_d * (1 + k) * t_verify_token / N           latency-bound per verified token
                                                             (0 unless the profile sets it)

Decode is memory-bound (small T), so per-sequence cost comes from the recurrent state and the
KV reads; prefill of many tokens is compute-bound. With MTP each decoding request draws its
accepted count m by walking the positions (stop at the first rejection) and emits 1 + m
tokens (the profile's copy curve for a pass that copies the prompt, with probability
``speculation.copy_share`` of the request); the counters follow vLLM: drafts += 1, draft
tokens += k, accepted += m, and position i counts the drafts that accepted more than i tokens.

LoRA adapters (``lora.py``): a waiting request is admitted only when its adapter is in a slot
or can be loaded into one; a load lengthens the step that admits it by the switch cost.
"""

from __future__ import annotations

import math
import random
from collections import OrderedDict, deque
from dataclasses import dataclass, field

from sparkload.sim.lora import LoraSetup, LoraSlots
from sparkload.sim.profiles import PEAK_BANDWIDTH, STREAM_BANDWIDTH, Profile, SpecDecode
from sparkload.sim.speculation import copy_share


@dataclass(frozen=True)
class BatchShape:
    """What one step computes; the input of the pure cost function ``step_seconds``."""

    decode_seqs: int = 0
    prefill_seqs: int = 0
    prefill_tokens: int = 0
    context_tokens: int = 0  # tokens already in KV that the scheduled sequences attend to
    attention_pairs: float = 0.0  # sum over prefill chunks of n * (ctx + n / 2)

    def tokens(self, draft_tokens: int) -> int:
        return self.decode_seqs * (1 + draft_tokens) + self.prefill_tokens

    @property
    def seqs(self) -> int:
        return self.decode_seqs + self.prefill_seqs


@dataclass(frozen=True)
class StepCost:
    """One forward pass's time on each node of the TP group, by part (noise-free seconds)."""

    memory: float  # weights, KV cache and recurrent state streamed
    compute: float  # linear layers and attention on the tensor cores
    overlap_loss: float
    overhead: float  # t_fix: scheduling, sampling, graph launch
    draft: float
    comm: float  # all-reduces over the node link
    verify: float

    @property
    def seconds(self) -> float:
        overlap = roofline(self.memory, self.compute, self.overlap_loss)
        return self.overhead + overlap + self.draft + self.comm + self.verify

    @property
    def memory_share(self) -> float:
        """The share of the step spent streaming memory (with ``compute_share``: its power)."""
        return self.memory / self.seconds if self.seconds > 0 else 0.0

    @property
    def compute_share(self) -> float:
        """The share of the step the tensor cores compute (may overlap ``memory_share``)."""
        return self.compute / self.seconds if self.seconds > 0 else 0.0


def step_cost(profile: Profile, batch: BatchShape) -> StepCost:
    """The parts of one forward pass over ``batch`` (formula in the module doc)."""
    shape, cluster = profile.shape, profile.cluster
    n = cluster.tp
    k = profile.spec.num_draft_tokens if profile.spec else 0
    tokens = batch.tokens(k)
    weights = profile.weight_bytes / (n * profile.weight_efficiency * PEAK_BANDWIDTH)
    kv = batch.context_tokens * shape.kv_bytes_per_token / (n * STREAM_BANDWIDTH)
    state_passes = batch.decode_seqs * (2 + k) + 2 * batch.prefill_seqs
    state = state_passes * shape.state_bytes_per_seq / (n * STREAM_BANDWIDTH)
    attention = (
        4 * shape.attention_layers * shape.query_heads * shape.head_dim * batch.attention_pairs
    )
    linear = linear_seconds(profile, batch.prefill_tokens, tokens - batch.prefill_tokens)
    compute = (linear + attention / (profile.attention_flops or profile.prefill_flops)) / n
    spec = profile.spec
    draft = (spec.draft_pass_s + k * spec.draft_token_s) / n if spec else 0.0
    comm = (2 * shape.layers + 2) * cluster.allreduce_s(tokens) + 3 * k * cluster.allreduce_s(
        batch.seqs
    )
    verify = batch.decode_seqs * (1 + k) * profile.verify_token_s / n
    return StepCost(
        weights + kv + state,
        compute,
        profile.overlap_loss,
        profile.step_overhead_s,
        draft,
        comm,
        verify,
    )


def step_seconds(profile: Profile, batch: BatchShape) -> float:
    """Noise-free duration of one forward pass over ``batch``."""
    return step_cost(profile, batch).seconds


def roofline(memory: float, compute: float, loss: float) -> float:
    """Memory and compute of the same kernels overlap, except a share ``loss`` of the smaller."""
    return max(memory, compute) + loss * min(memory, compute)


def linear_seconds(profile: Profile, prefill_tokens: int, decode_tokens: int) -> float:
    """FLOP time of the linear layers (one node): prefill rows at the prefill rate, decode rows
    at the (slower, small-M) decode rate.

    With ``decode_joins_prefill`` the step's rows form one GEMM per layer, so decode rows that
    ride in a prefill chunk run at the chunk's rate: the GEMM takes the longer of all rows at
    the prefill rate and the decode rows alone at the decode rate. This is why chunked prefill
    lets decodes progress almost for free (Sarathi-Serve; vLLM's tuning guide: co-locating
    compute-bound prefill with memory-bound decode), and why a budget that swallows a whole
    prompt in one step stalls every running stream for its full length instead.
    """
    gemm = 2 * profile.shape.active_params
    prefill = gemm * prefill_tokens / profile.prefill_flops
    decode = gemm * decode_tokens / (profile.decode_flops or profile.prefill_flops)
    if not profile.decode_joins_prefill:
        return prefill + decode
    return max(gemm * (prefill_tokens + decode_tokens) / profile.prefill_flops, decode)


@dataclass
class Sequence:
    """One request inside the engine. The server reads ``cached_tokens`` and ``generated``."""

    request_id: str
    prompt_tokens: int
    max_tokens: int
    block_hashes: tuple[int, ...]
    copy_share: float = 0.0  # share of verify passes that copy the prompt (``speculation``)
    # the request's own per-draft acceptance (its category's, ``--category-acceptance``): every
    # draft position at this rate in place of the profile's curves (None: the profile's)
    draft_acceptance: float | None = None
    adapter: str | None = None  # the LoRA adapter it asks for (None: the base model)
    admitted_order: int = -1
    cached_tokens: int = 0
    computed: int = 0  # tokens in KV (the newest sampled token enters it in the next step)
    generated: int = 0
    finished: bool = False
    # verify steps by drafts accepted (index j: steps that accepted exactly j; length k + 1)
    acceptance_histogram: list[int] = field(default_factory=list)

    @property
    def prefill_target(self) -> int:
        """Tokens that must be in KV before the next decode: all but the newest sampled one."""
        return self.prompt_tokens + max(self.generated - 1, 0)

    @property
    def decoding(self) -> bool:
        return self.generated > 0 and self.computed >= self.prefill_target


@dataclass(frozen=True)
class Emission:
    """Tokens produced for one request by one step (several with MTP)."""

    request_id: str
    tokens: int
    finished: bool


@dataclass(frozen=True)
class Step:
    duration_s: float
    emissions: tuple[Emission, ...]
    batch: BatchShape
    cost: StepCost  # what the step did, by part: its power (``power.py``)
    scheduled: tuple[str, ...] = ()  # requests this step schedules for the first time


@dataclass
class Counters:
    """Monotonic totals, named after the vLLM metrics they feed."""

    prompt_tokens: int = 0
    generation_tokens: int = 0
    prefix_cache_queries: int = 0
    prefix_cache_hits: int = 0
    preemptions: int = 0
    spec_drafts: int = 0
    spec_draft_tokens: int = 0
    spec_accepted_tokens: int = 0
    spec_accepted_per_pos: list[int] = field(default_factory=list)


class PrefixCache:
    """LRU set of prompt-block hashes (a hash covers its block and everything before it)."""

    def __init__(self, capacity_blocks: int) -> None:
        self._blocks: OrderedDict[int, None] = OrderedDict()
        self._capacity = capacity_blocks

    def leading_hits(self, hashes: tuple[int, ...]) -> int:
        hits = 0
        for block in hashes:
            if block not in self._blocks:
                break
            self._blocks.move_to_end(block)
            hits += 1
        return hits

    def insert(self, hashes: tuple[int, ...]) -> None:
        for block in hashes:
            self._blocks[block] = None
            self._blocks.move_to_end(block)
        while len(self._blocks) > self._capacity:
            self._blocks.popitem(last=False)


class Engine:
    """Continuous batching over simulated steps. Deterministic for a given seed and input."""

    def __init__(self, profile: Profile, seed: int = 0, lora: LoraSetup | None = None) -> None:
        self.profile = profile
        self.lora = LoraSlots(lora or LoraSetup())  # adapters in slots (``lora.py``)
        self._rng = random.Random(seed)
        self._draft_tokens = profile.spec.num_draft_tokens if profile.spec else 0
        self._capacity_blocks = profile.kv_capacity_tokens() // profile.block_size
        self._prefix_cache = PrefixCache(self._capacity_blocks)
        self._arrived: list[Sequence] = []  # added since the last step was scheduled
        self._waiting: deque[Sequence] = deque()
        self._running: list[Sequence] = []
        self._admissions = 0
        self.counters = Counters(spec_accepted_per_pos=[0] * self._draft_tokens)

    # --- requests in and out -------------------------------------------------------------
    def add(
        self,
        request_id: str,
        prompt_tokens: int,
        max_tokens: int,
        block_hashes: tuple[int, ...] = (),
        draft_acceptance: float | None = None,
        adapter: str | None = None,
    ) -> Sequence:
        prompt_tokens, max_tokens = max(1, prompt_tokens), max(1, max_tokens)
        share = copy_share(prompt_tokens, max_tokens)
        seq = Sequence(
            request_id, prompt_tokens, max_tokens, block_hashes, share, draft_acceptance, adapter
        )
        seq.acceptance_histogram = [0] * (self._draft_tokens + 1) if self.profile.spec else []
        self._arrived.append(seq)
        return seq

    def abort(self, request_id: str) -> None:
        """Drop a request wherever it is (client went away, fault ended it)."""
        self._arrived = [s for s in self._arrived if s.request_id != request_id]
        self._waiting = deque(s for s in self._waiting if s.request_id != request_id)
        self._running = [s for s in self._running if s.request_id != request_id]

    def has_work(self) -> bool:
        return bool(self._arrived or self._waiting or self._running)

    # --- gauges --------------------------------------------------------------------------
    @property
    def num_running(self) -> int:
        return len(self._running)

    @property
    def num_waiting(self) -> int:
        return len(self._waiting) + len(self._arrived)

    def kv_usage(self) -> float:
        return min(1.0, self._used_blocks() / self._capacity_blocks)

    def kv_cache_blocks(self) -> tuple[int, int]:
        return self._capacity_blocks, self.profile.block_size

    # --- the loop ------------------------------------------------------------------------
    def step(self) -> Step:
        """Schedule one step, price it, and advance every scheduled sequence.

        With async scheduling the next step is planned while the current one runs, so a
        request that arrived during a busy step can only join the step after next.
        """
        lagging = self.profile.async_scheduling and bool(self._running)
        if not lagging:
            self._waiting.extend(self._arrived)
            self._arrived = []
        self._make_room()
        budget = self.profile.scheduled_token_budget()
        decodes = [s for s in self._running if s.decoding]
        decodes = decodes[: budget // (1 + self._draft_tokens)]
        budget -= len(decodes) * (1 + self._draft_tokens)
        chunks, first, loading = self._schedule_prefills(budget)
        batch = self._batch_shape(decodes, chunks)
        cost = step_cost(self.profile, batch)
        duration = cost.seconds * self._jitter() + loading
        emissions = [self._advance_decode(s) for s in decodes]
        emissions += [e for s, n in chunks if (e := self._advance_prefill(s, n))]
        self._running = [s for s in self._running if not s.finished]
        if lagging:
            self._waiting.extend(self._arrived)
            self._arrived = []
        return Step(duration, tuple(emissions), batch, cost, first)

    def _schedule_prefills(
        self, budget: int
    ) -> tuple[list[tuple[Sequence, int]], tuple[str, ...], float]:
        """Partial prefills first, then waiting requests in order, within the token budget;
        the requests scheduled for the first time (a preempted one's return is not); and the
        seconds the step spends loading their LoRA adapters (``lora.py``: a request whose
        adapter finds no slot waits, the next ones may go)."""
        chunks: list[tuple[Sequence, int]] = []
        first: list[str] = []
        for seq in (s for s in self._running if not s.decoding):
            if budget <= 0:
                return chunks, tuple(first), 0.0
            n = min(seq.prefill_target - seq.computed, budget)
            chunks.append((seq, n))
            budget -= n
        loading, skipped = 0.0, []
        while self._waiting and budget > 0 and len(self._running) < self.profile.max_num_seqs:
            seq = self._waiting[0]
            if self._free_blocks() < self._blocks_for(seq.prefill_target + 1 + self._draft_tokens):
                break
            load = self.lora.admit(seq.adapter, {s.adapter for s in self._running if s.adapter})
            if load is None:
                skipped.append(self._waiting.popleft())
                continue
            loading += load
            self._waiting.popleft()
            if seq.admitted_order < 0:
                self._lookup_prefix(seq)
                first.append(seq.request_id)
            seq.admitted_order = self._admissions
            self._admissions += 1
            self._running.append(seq)
            n = min(seq.prefill_target - seq.computed, budget)
            chunks.append((seq, n))
            budget -= n
        self._waiting.extendleft(reversed(skipped))
        return chunks, tuple(first), loading

    def _lookup_prefix(self, seq: Sequence) -> None:
        """Count the query and skip whole cached blocks, keeping at least one token to compute."""
        if not self.profile.prefix_caching:
            return
        block = self.profile.block_size
        hits = self._prefix_cache.leading_hits(seq.block_hashes)
        seq.cached_tokens = min(hits * block, (seq.prompt_tokens - 1) // block * block)
        seq.computed = seq.cached_tokens
        self.counters.prefix_cache_queries += seq.prompt_tokens
        self.counters.prefix_cache_hits += seq.cached_tokens

    def _batch_shape(
        self, decodes: list[Sequence], chunks: list[tuple[Sequence, int]]
    ) -> BatchShape:
        return BatchShape(
            decode_seqs=len(decodes),
            prefill_seqs=len(chunks),
            prefill_tokens=sum(n for _, n in chunks),
            context_tokens=sum(s.computed for s in decodes) + sum(s.computed for s, _ in chunks),
            attention_pairs=sum(n * (s.computed + n / 2) for s, n in chunks),
        )

    def _advance_decode(self, seq: Sequence) -> Emission:
        accepted = self._sample_accepted(seq) if self.profile.spec else 0
        tokens = min(1 + accepted, seq.max_tokens - seq.generated)
        return self._emit(seq, tokens)

    def _advance_prefill(self, seq: Sequence, tokens: int) -> Emission | None:
        seq.computed += tokens
        if seq.computed < seq.prefill_target or seq.generated:
            return None  # more chunks to go, or a recompute after preemption resuming silently
        self._prefix_cache.insert(seq.block_hashes[: seq.prompt_tokens // self.profile.block_size])
        self.counters.prompt_tokens += seq.prompt_tokens
        return self._emit(seq, 1)

    def _emit(self, seq: Sequence, tokens: int) -> Emission:
        seq.generated += tokens
        seq.computed = seq.prefill_target
        seq.finished = seq.generated >= seq.max_tokens
        self.counters.generation_tokens += tokens
        return Emission(seq.request_id, tokens, seq.finished)

    def _copying(self, spec: SpecDecode, share: float) -> bool:
        """Does this verify pass copy the prompt? Draws only when the answer is uncertain."""
        if spec.copy_acceptance is None or share <= 0.0:
            return False
        return share >= 1.0 or self._rng.random() < share

    def _curve(self, spec: SpecDecode, seq: Sequence) -> tuple[float, ...]:
        """The conditional acceptance of this verify pass: the request's own rate at every
        position, else the profile's copy or novel curve (``_copying``)."""
        if seq.draft_acceptance is not None:
            return (seq.draft_acceptance,) * self._draft_tokens
        return spec.curve(self._copying(spec, seq.copy_share))

    def _sample_accepted(self, seq: Sequence) -> int:
        """Walk the draft positions; update vLLM's spec-decode counters and the request's
        own histogram (vLLM's per-request ``speculative_decoding``)."""
        counters, spec = self.counters, self.profile.spec
        assert spec is not None
        accepted = 0
        for p in self._curve(spec, seq):
            if self._rng.random() >= p:
                break
            counters.spec_accepted_per_pos[accepted] += 1
            accepted += 1
        counters.spec_drafts += 1
        counters.spec_draft_tokens += self._draft_tokens
        counters.spec_accepted_tokens += accepted
        seq.acceptance_histogram[accepted] += 1
        return accepted

    def _jitter(self) -> float:
        sigma = self.profile.step_jitter
        return math.exp(self._rng.gauss(-sigma * sigma / 2, sigma)) if sigma else 1.0

    # --- KV blocks -----------------------------------------------------------------------
    def _blocks_for(self, tokens: int) -> int:
        return -(-tokens // self.profile.block_size)

    def _used_blocks(self) -> int:
        return sum(self._blocks_for(s.computed + 1 + self._draft_tokens) for s in self._running)

    def _free_blocks(self) -> int:
        return self._capacity_blocks - self._used_blocks()

    def _make_room(self) -> None:
        """Preempt the newest requests (recomputed later) until every running one can grow."""
        while self._free_blocks() < 0 and len(self._running) > 1:
            victim = max(self._running, key=lambda s: s.admitted_order)
            self._running.remove(victim)
            victim.computed = 0
            self._waiting.appendleft(victim)
            self.counters.preemptions += 1


def frontend_seconds(profile: Profile, rng: random.Random) -> float:
    """Per-request API-server time before the engine sees the request (runs beside the engine)."""
    return profile.frontend_extra_s + rng.expovariate(1.0 / profile.frontend_mean_s)
