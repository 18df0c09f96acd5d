"""Deployment profiles of the simulator: Qwen3.6-27B variants on one or several DGX Sparks.

A profile is plain data: the hardware, the model's shape, the variant's weight bytes and kernel
efficiency, the engine limits, the speculative-decoding setup and the cluster link. The timing
model that turns these numbers into step times lives in ``engine.py``; its docstring explains
the formula. Every number below says where it comes from. Three kinds of source:

* **spec** - a published hardware or model-card figure;
* **notes** - ``reference/vllm-and-spark-notes.md`` (vLLM source facts, public calibration points);
* **fit** - chosen so that the quantization report's own method (concurrency ladder 1..16,
  10 x C requests of ~128 prompt and 128 output tokens, closed loop) lands on the report's means
  (``reference/report_means.csv``); ``benchmarks/sim_calibration.py`` checks it.

Shared by all variants (spec / notes):

* GB10 LPDDR5x peak bandwidth 273 GB/s; plain streaming kernels reach ~220 GB/s (notes s.4),
  used for KV-cache reads, recurrent-state traffic and the MTP draft head.
* Qwen3.6-27B: 64 layers = 16 x (3 Gated-DeltaNet + 1 full attention), hidden 5120, 24 query
  heads of dim 256 in the attention layers, ~26e9 parameters touched per token (the 27e9 minus
  the input embedding, which is a lookup), KV cache only in the 16 attention layers:
  64 KiB/token in BF16 (the report sets no ``--kv-cache-dtype``).
* Gated-DeltaNet recurrent state: 48 layers x 48 value heads x 128 x 128 fp32 = 151 MB per
  sequence. A decode step reads it and writes it back (302 MB, 1.37 ms at 220 GB/s per
  sequence). That is the report's ITL slope for FP8 and NVFP4 alike: (142.24 - 121.87) / 15 =
  1.36 ms and (120.80 - 100.40) / 15 = 1.36 ms per extra concurrent request. With MTP the
  verify pass also writes one state per draft position (so a rejected draft can roll back):
  (2 + k) x 151 MB per sequence, which reproduces the steeper ITL growth of the MTP variants.
* Engine limits (report s.1.8): ``max_num_batched_tokens`` 8192 (NVFP4 variants: vLLM's default,
  2048 on GB10, notes s.4); ``max_num_seqs`` 256; ``gpu_memory_utilization`` 0.8 of ~121 GiB.
* Step overhead t_fix 3 ms (notes s.5: 2-5 ms for scheduling, sampling, graph launch).
* Memory and compute overlap imperfectly: half of the smaller of the two times is added to the
  larger (fit; a pure roofline max() leaves AWQ-MTP's ITL at C=16 ~15 % too low).
* The first generated token of the report's runs is Qwen3's ``<think>`` tag, which vLLM's qwen3
  reasoning parser swallows (notes s.2: think-tag tokens produce no chunk). It counts in usage
  but is never streamed, so the first visible token comes one decode step after prefill. This
  is why the report's C=1 TTFT is about two step times (FP8: 270.57 ms vs 121.87 ms ITL).
  A request with thinking off has no tag to swallow (the template writes the empty think
  block), so ``server.py`` hides nothing for it.
* Frontend time, per request, not blocking the engine (fit): the API server's parse, chat
  template and tokenisation plus the client's own request set-up, exponential with mean 12 ms.
  Its spread gives TTFT a p90/p50 of ~1.05-1.15 at C=1 (report s.7.1: 1.02-1.35).
* Step jitter: lognormal, sigma 3 % per step (notes s.5: +-3-5 %); ITL p90/p50 of the non-MTP
  variants stays ~1.00-1.02 as in the report because 127 steps average it out.

How TTFT rises with load (the mechanism, not a fit per level): a request that arrives while a
step runs waits for it; all the prefills that arrived together share the next step, which is
compute-bound once they add up to more than a few hundred tokens (without MTP the closed loop
keeps users in lock-step, so up to C prompts land at once); and its first visible token needs
one more decode step, longer at higher batch. Prefill throughput F (fit to the C=16 TTFT):
180 TFLOPS FP8, 120 AWQ (Marlin dequantises to BF16), 250 NVFP4 (FP4 tensor cores; the report
says NVFP4 is fastest in prefill, s.2.4) - above the notes' 50-140 TFLOPS from short-prompt
measurements, so treat them as effective values for ~2,000-token mixed steps. The MTP variants
also schedule asynchronously (fit: their TTFT jumps by ~1-2.6 steps from C=1 to C=2, the
non-MTP ones by ~0.7-1.1): the next step is planned while the current one runs, so a request
arriving during a busy step joins the step after next.

Per variant (weight bytes: spec / notes; kernel efficiency and MTP acceptance: fit):

=========  ========  ===========  ======================================================
variant    weights   efficiency   why
=========  ========  ===========  ======================================================
FP8        28.0 GB   0.871        FP8 block-128 linear layers + BF16 lm_head (notes s.4)
NVFP4      17.0 GB   0.639        4-bit; SM121 lacks tcgen05/TMEM, so NVFP4 GEMMs stream
                                  weights far below peak (report s.6.4.2)
AWQ        17.0 GB   0.745        4-bit weights on Marlin W4A16 kernels, faster than NVFP4
                                  on SM121 (notes s.4)
=========  ========  ===========  ======================================================

Efficiency = achieved fraction of the 273 GB/s peak while streaming weights, fitted to the C=1
ITL: FP8 121.87 ms = 3 ms + 28.0 GB / (0.871 x 273 GB/s) + 1.4 ms state.

MTP (report s.1.4: one MTP layer; vLLM ``--speculative-config`` method ``mtp``): k = 3 draft
tokens per step (the report does not state k; 3 is the common Qwen3.5/3.6 recipe value and the
(2 + k) state-write slope above agrees with it). Each draft token costs 9 ms (notes s.5: the MTP
layer plus the 1.27e9-parameter lm_head, 7-12 ms). Conditional acceptance per position, fitted
to the C=1 ITL: FP8-MTP (0.86, 0.82, 0.78) -> tau 3.12, acceptance rate 0.71; AWQ-MTP
(0.90, 0.86, 0.82) -> tau 3.31, 0.77; NVFP4-MTP (0.84, 0.80, 0.74) -> tau 3.01, 0.67, in line
with the notes' mean length ~3.0 for Qwen3.6-27B. Sampling the accepted count per step gives
the MTP variants their ITL p90/p50 of ~1.05-1.10 (report: 1.05-1.12).

NVFP4-MTP's C=1 TTFT (519 ms) is ~250 ms above what its step times explain, and the report
blames the NVFP4 + MTP path (s.6.4.3). Its ITL at C=16 shows that this cost did not stall other
sequences, so it is modelled as extra per-request frontend time (fit, 180 ms, the rest comes
from its slower steps), not as engine work; every other profile has none.

Tensor parallelism (``with_tp``): weights, KV, recurrent state, FLOPs and the draft head split N
ways; each step adds 2 all-reduces per layer plus 2 (embedding, logits) and 3 per draft pass,
each costing ``allreduce_latency_s + bytes / link_bandwidth`` with bytes = tokens x 5120 x 2 B.
Defaults: 50 us per all-reduce (tuned NCCL over RoCE, notes s.3: 40-60 us; ``--allreduce-us``
sets it, ~450 us reproduces SGLang's "stock" TP2 figure) and 16 GB/s NCCL bus bandwidth (notes:
12-20 GB/s on the 200 Gb/s ConnectX-7). The step overhead t_fix and the frontend do not split.

What TP2/TP4 predict, and why: decode streams weights, so the weight term halves or quarters
while 130-139 all-reduces add a fixed ~7 ms per step. C=1 ITL, TP1 -> TP2 -> TP4: FP8
122 -> 69 -> 39 ms; NVFP4 102 -> 59 -> 34 ms; FP8-MTP 49 -> 27 -> 15 ms; AWQ-MTP 36 -> 21 -> 12 ms;
NVFP4-MTP 44 -> 25 -> 14 ms. Speed-ups are sub-linear (~1.75x, ~3.1x) because t_fix and the
all-reduces do not shrink; with 450 us per all-reduce FP8 TP2 is no faster than TP1, which is
what a mistuned link looks like (SGLang's TP2 result in the notes). TTFT shrinks less than ITL
because the frontend time remains. Batched throughput scales better than single-stream speed
because the per-sequence recurrent-state traffic also splits N ways, and the KV capacity grows
N-fold plus the memory the weights no longer take.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

GB = 1e9
MB = 1e6
PEAK_BANDWIDTH = 273 * GB  # GB10 LPDDR5x, spec
STREAM_BANDWIDTH = 220 * GB  # plain streaming kernels, notes s.4
USABLE_MEMORY = 121 * 2**30  # CUDA-visible memory per Spark, notes s.4
SUPPORTED_TP = (1, 2, 4)


@dataclass(frozen=True)
class ModelShape:
    """Qwen3.6-27B's shape, the parts that cost time (model card, report s.1.1)."""

    active_params: float = 26e9  # parameters multiplied per token (embedding lookup excluded)
    hidden: int = 5120
    layers: int = 64
    attention_layers: int = 16
    query_heads: int = 24
    head_dim: int = 256
    kv_bytes_per_token: float = 64 * 1024  # 16 layers x 2 x 4 KV heads x 256 x 2 B (BF16)
    state_bytes_per_seq: float = 151 * MB  # 48 GDN layers x 48 heads x 128 x 128 x 4 B


@dataclass(frozen=True)
class SpecDecode:
    """MTP speculative decoding: k draft tokens per step, conditional acceptance per position.

    ``acceptance[i]`` is P(draft i+1 accepted | drafts 1..i accepted); drafts are checked in
    order and the first rejection ends the run, so a step emits 1 + m tokens (m accepted).
    """

    acceptance: tuple[float, ...]
    draft_token_s: float = 0.009  # MTP layer + lm_head per draft token, notes s.5
    # Acceptance while the output copies the prompt (an edit); None: ``acceptance`` always.
    copy_acceptance: tuple[float, ...] | None = None
    draft_pass_s: float = 0.0  # a separate drafter's forward pass, once per step
    # Draft slots reserved in the token budget: (k - 1) x max_num_seqs (a parallel drafter).
    reserves_draft_slots: bool = False

    @property
    def num_draft_tokens(self) -> int:
        return len(self.acceptance)

    def curve(self, copying: bool = False) -> tuple[float, ...]:
        """The conditional acceptance in force: the copy curve while copying, if there is one."""
        return self.copy_acceptance if copying and self.copy_acceptance else self.acceptance

    def reach_probabilities(self, copying: bool = False) -> tuple[float, ...]:
        """r_i = P(at least i+1 drafts accepted): what vLLM's per-position counters estimate."""
        reach, product = [], 1.0
        for p in self.curve(copying):
            product *= p
            reach.append(product)
        return tuple(reach)

    def expected_tokens_per_step(self, copying: bool = False) -> float:
        """Mean tokens a request emits per verify pass, bonus token included (tau)."""
        return 1.0 + sum(self.reach_probabilities(copying))

    def acceptance_rate(self, copying: bool = False) -> float:
        """Expected accepted / draft tokens, vLLM's "draft acceptance rate"."""
        return sum(self.reach_probabilities(copying)) / self.num_draft_tokens


@dataclass(frozen=True)
class Cluster:
    """Tensor parallelism over N Sparks joined by ConnectX-7 (notes s.3)."""

    tp: int = 1
    allreduce_latency_s: float = 50e-6
    link_bandwidth: float = 16 * GB

    def allreduce_s(self, tokens: int) -> float:
        """One all-reduce of ``tokens`` hidden vectors in BF16; free on a single node."""
        if self.tp == 1:
            return 0.0
        return self.allreduce_latency_s + tokens * ModelShape.hidden * 2 / self.link_bandwidth


@dataclass(frozen=True)
class Profile:
    """One deployment: variant, engine limits, cluster. Everything the engine needs."""

    name: str
    model_name: str
    weight_bytes: float
    weight_efficiency: float  # fraction of peak bandwidth reached while streaming weights
    spec: SpecDecode | None = None
    # the weights' format, drafting aside: a variant with MTP shares its base's (the analysis
    # pairs the two by it, whatever they are called)
    quantization: str = ""
    frontend_extra_s: float = 0.0  # fixed per-request frontend time beyond the shared mean
    async_scheduling: bool = False  # the next step is planned while the current one runs
    max_num_batched_tokens: int = 8192
    max_num_seqs: int = 256
    gpu_memory_utilization: float = 0.8
    step_overhead_s: float = 0.003
    prefill_flops: float = 180e12
    decode_flops: float | None = None  # rate for decode/verify tokens; None: prefill_flops
    attention_flops: float | None = None  # rate for attention FLOPs; None: prefill_flops
    kv_tokens: int | None = None  # measured KV capacity; None: derived from memory
    prefix_caching: bool = True
    overlap_loss: float = 0.5  # share of the smaller of memory/compute time not hidden
    # Step-model switches for the notes' builds (``notes_profiles``); the report's variants keep
    # the defaults, under which ``engine.step_seconds`` is the formula they were fitted with.
    decode_joins_prefill: bool = False  # decode rows share a prefill chunk's GEMMs (Sarathi)
    verify_token_s: float = 0.0  # latency-bound work per verified decode token, additive
    frontend_mean_s: float = 0.012
    hidden_first_tokens: int = 1  # the <think> tag the reasoning parser swallows
    step_jitter: float = 0.03
    # KV page and prefix-cache granularity. vLLM aligns a hybrid model's attention page with its
    # Gated-DeltaNet state page, hundreds of tokens (assumed 512 here), so the report's ~128-token
    # prompts can never be served from the prefix cache even when the tool reuses them.
    block_size: int = 512
    shape: ModelShape = ModelShape()
    cluster: Cluster = Cluster()

    @property
    def tp(self) -> int:
        return self.cluster.tp

    def scheduled_token_budget(self) -> int:
        """Tokens one step may schedule: the batch budget less any reserved draft slots.

        Negative means the engine cannot start (``notes_profiles`` refuses such a profile).
        """
        if self.spec is None or not self.spec.reserves_draft_slots:
            return self.max_num_batched_tokens
        return self.max_num_batched_tokens - (self.spec.num_draft_tokens - 1) * self.max_num_seqs

    def kv_capacity_tokens(self) -> int:
        """KV tokens that fit beside the weights (split over the TP group), or as measured."""
        if self.kv_tokens is not None:
            return self.kv_tokens * self.tp
        free = self.gpu_memory_utilization * USABLE_MEMORY * self.tp - self.weight_bytes
        return int(free / self.shape.kv_bytes_per_token)


def _variant(
    name: str, quantization: str, weight_bytes: float, efficiency: float, **extra
) -> Profile:
    return Profile(
        name=name,
        model_name=f"qwen3.6-27b-{name}",
        weight_bytes=weight_bytes,
        weight_efficiency=efficiency,
        quantization=quantization,
        **extra,
    )


PROFILES: dict[str, Profile] = {
    profile.name: profile
    for profile in (
        _variant("fp8", "fp8", 28.0 * GB, 0.871),
        _variant(
            "fp8-mtp",
            "fp8",
            28.0 * GB,
            0.871,
            spec=SpecDecode((0.86, 0.82, 0.78)),
            async_scheduling=True,
        ),
        _variant(
            "awq-mtp",
            "awq",
            17.0 * GB,
            0.745,
            spec=SpecDecode((0.90, 0.86, 0.82)),
            async_scheduling=True,
            prefill_flops=120e12,
        ),
        _variant(
            "nvfp4", "nvfp4", 17.0 * GB, 0.639, max_num_batched_tokens=2048, prefill_flops=250e12
        ),
        _variant(
            "nvfp4-mtp",
            "nvfp4",
            17.0 * GB,
            0.639,
            spec=SpecDecode((0.84, 0.80, 0.74)),
            async_scheduling=True,
            max_num_batched_tokens=2048,
            prefill_flops=250e12,
            frontend_extra_s=0.18,
        ),
    )
}


def with_tp(profile: Profile, tp: int, allreduce_latency_s: float | None = None) -> Profile:
    """The same variant on a TP group of ``tp`` Sparks (served model name unchanged)."""
    if tp not in SUPPORTED_TP:
        raise ValueError(f"tensor parallel size must be one of {SUPPORTED_TP}, not {tp}")
    cluster = replace(profile.cluster, tp=tp)
    if allreduce_latency_s is not None:
        cluster = replace(cluster, allreduce_latency_s=allreduce_latency_s)
    return replace(profile, cluster=cluster)


def get_profile(name: str, tp: int = 1, allreduce_latency_s: float | None = None) -> Profile:
    """Look a profile up by name; ``KeyError`` lists the known names."""
    if name not in PROFILES:
        raise KeyError(f"unknown profile {name!r}; known: {', '.join(PROFILES)}")
    return with_tp(PROFILES[name], tp, allreduce_latency_s)
