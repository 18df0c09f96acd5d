"""Qwen3.8-27B on one DGX Spark: the measurement notes' system, composed from parts.

A deployment here is a build (the checkpoint) x a speculation setting (``none``, ``mtp:K``,
``dspark:K``) x a batch token budget x prefix caching on or off; ``compose`` turns one
combination into a ``Profile`` for the engine. Nothing is fitted per table cell: the cells
come out of the mechanisms below. Sources are marked as in ``profiles.py``: **notes** is
``seeds/qwen3.8-27b-4bit-single-spark-measurements.txt`` (section numbers s.N), **ref** is
``reference/vllm-and-spark-notes.md``, **fit** is chosen so that
``benchmarks/sim_notes_calibration.py`` (the notes' workload shapes in virtual time) lands on
the notes' figures.

Mechanisms, and the figures that pin them:

* **Single stream is bandwidth-bound.** A decode step streams every weight read per token once:
  the checkpoint less its BF16 input embedding (248,320 x 5,120 x 2 B = 2.54 GB, a lookup),
  at 83 % of the 273 GB/s peak (fit: stock FP8 without speculation, 7.88 tok/s, notes s.5).
  Fewer bytes is why 4-bit wins at c1 (notes s.1: 1.46x fresh).
* **Batches turn decode compute-bound.** Every verified token (B sequences x (1 + k)) costs
  2 x 26e9 FLOPs at an effective 30 TFLOPS (fit: the c8/c16 aggregates, notes s.3b/s.4a) - far
  below the ~83 TFLOPS a long prefill reaches, because small-M GEMMs run latency-bound on
  SM121. Memory and compute overlap imperfectly (a share ``overlap_loss`` of the smaller is
  added to the larger; fit). Once the compute term dominates, weight bytes stop mattering: FP8
  catches 4-bit by c16 (notes s.4a), and MixedInt4, whose Marlin kernels also run prefill
  slower, falls behind NVFP4 (s.1b).
* **Draft depth costs batch capacity** (notes s.3a: k=14 is +21 % at c1, -2.4 % at c4, -4.6 %
  at c8). Each verified token also pays ``VERIFY_TOKEN_S`` that no roofline hides (fit, 0.76
  ms): the Gated-DeltaNet layers verify a draft with their recurrent kernel, which walks each
  sequence's 1 + k positions one after another and neither streams weights nor fills the
  tensor cores, so it adds to the step instead of overlapping the GEMMs. (The recurrent
  state is also written once per verified position: (2 + k) x 151 MB per sequence,
  ``profiles.py``.) At c1 the 7 extra positions of k=14 cost ~16 ms a step (verify, state
  writes, drafter) and its longer accepted runs (10.6 vs 7.9 tokens a pass) win; at c4 they
  cost 4 x 7 such tokens on top of GEMMs no longer hidden under the weight read, and k=14
  falls behind k=7 (the ranking inverts). The drafter itself is one forward pass per step
  plus a small cost per drafted position (fit).
* **The batch budget: chunked prefill lets decodes ride along** (vLLM's tuning guide: smaller
  ``max_num_batched_tokens`` "achieve better inter-token latency because there are fewer
  prefills slowing down decodes", and chunked prefill co-locates compute-bound prefill with
  memory-bound decode; Sarathi-Serve, ref s.5). A DSpark drafter reserves (k - 1) x
  max_num_seqs draft slots in the budget (notes s.2: k=14 at vLLM's default 2,048 gives
  2,048 - 13 x 256 = -1,280 and the engine refuses to start), so k=7 at the default schedules
  512 tokens a step: a ~1,900-token prompt is prefilled in four chunks, each also carrying
  every running decode. Those decode rows join the chunk's GEMMs, whose M is a few hundred
  rows, and run at the chunk's rate rather than the small-M decode rate
  (``decode_joins_prefill``, ``engine.linear_seconds``): the streams keep advancing almost
  for free while a newcomer is prefilled. At 16,384 the whole prompt (or several) goes in one
  long step that stalls every running stream for its full length, so concurrent throughput
  falls (notes s.3a: c8 246 -> 229 tok/s, c4 168 -> 161) while a lone stream, which has no
  one to carry, saves the extra chunk steps and gains a little (59.05 -> 61.89). The model
  gives the direction of all three but smaller sizes (about -2 % at c8, -1 % at c4, +0.2-0.5 %
  at c1; ``benchmarks/sim_notes_calibration.py``). The budget also shrinks the KV pool
  (activations grow with it): 728,038 -> 716,736 tokens for MixedInt4 (notes s.1, s.1b), 0.79
  tokens per budget token, assumed the same for FP8 (same BF16 KV); NVFP4 reports one capacity
  for both.
* **Acceptance depends on the request**, see ``speculation.py``: edit-heavy output is copied
  from the prompt, fresh output is not.
* **Prefix caching** (on unless ``prefix_caching=False``, the notes' "stock" row) lets
  identical prompts skip their whole 512-token pages (notes s.3: 277 vs 246 tok/s at c8).

Thinking is disabled in the notes' runs, so no hidden first token (``hidden_first_tokens`` 0).
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from sparkload.sim.profiles import GB, ModelShape, Profile, SpecDecode
from sparkload.sim.speculation import SpecChoice, parse_spec

DEFAULT_BUDGET = 2048  # vLLM's max_num_batched_tokens on GB10's "small" tier, ref s.4
MAX_NUM_SEQS = 256  # vLLM's default for the OpenAI server, ref s.4
EMBEDDING_BYTES = 248_320 * 5_120 * 2  # BF16 input embedding, a lookup: not streamed per step
# The next four and the two DSPARK_*_S below are one joint fit (a random search minimising the
# benchmark's deviations, the notes' rankings as constraints), each pinned mainly by the
# figures named.
WEIGHT_EFFICIENCY = 0.833  # fit: stock FP8 7.88 tok/s and the c1 edit rows (notes s.1, s.5)
DECODE_FLOPS = 30e12  # fit: c8/c16 aggregates of FP8 and NVFP4 (notes s.3b, s.4a)
OVERLAP_LOSS = 0.24  # fit: c4 aggregates (notes s.3a, s.4a)
VERIFY_TOKEN_S = 0.00076  # fit: k=14 vs k=7 at c1/c4/c8 (notes s.3a)
KV_LOSS_PER_BUDGET_TOKEN = (728_038 - 716_736) / (16_384 - DEFAULT_BUDGET)  # notes s.1, s.1b
MODEL = "qwen3.8-27b"

# DSpark, the edit-heavy curve: per-position reach at k=14 observed live (notes s.2). Its first
# seven positions alone give 98.6 % and 7.90 tokens per pass, the notes' k=7 edit figures (98.7 %,
# 7.91), so one curve serves every k <= 14.
DSPARK_COPY_REACH: tuple[float, ...] = (
    *(1.0, 1.0, 1.0, 1.0, 1.0, 0.959, 0.945),
    *(0.822, 0.630, 0.521, 0.288, 0.178, 0.110, 0.027),
)
DSPARK_PASS_S = 0.010  # fit: drafter forward once per step, c1 edit of FP8 and NVFP4 (notes s.1)
DSPARK_TOKEN_S = (
    0.0008  # fit: per drafted position, c1 k=14 vs k=7 and fresh k=14 (notes s.2, s.3a)
)
# MTP (one MTP layer run k times, drafting on its own outputs): constant conditional acceptance
# while copying (fit: FP8 + MTP k=3/8/15 edit, 21.3 / 32.2 / 39.0 tok/s, notes s.5); no fresh
# MTP figures, so the report's FP8-MTP mean (0.82, profiles.py) while writing new text.
MTP_COPY_ACCEPTANCE = 0.947  # fit, see above
MTP_NOVEL_ACCEPTANCE = 0.82
MTP_TOKEN_S = 0.009  # MTP layer + lm_head per draft token, ref s.5


@dataclass(frozen=True)
class Build:
    """One checkpoint: its bytes, KV pool, prefill speed and fresh-generation acceptance."""

    name: str
    checkpoint_bytes: float
    kv_tokens: int  # at the default budget
    kv_loss_per_budget_token: float
    kv_bytes_per_token: float
    prefill_flops: float  # linear layers during prefill
    attention_flops: float  # attention over the context (prefill fades with prompt length)
    fresh_acceptance_k7: float  # DSpark k=7 acceptance writing new text

    def kv_capacity(self, budget: int) -> int:
        return int(self.kv_tokens - self.kv_loss_per_budget_token * (budget - DEFAULT_BUDGET))


# KV bytes: 16 attention layers x 2 x 4 KV heads x 256 (ref s.4). FP8 and MixedInt4 hold ~40 GiB
# of BF16 KV (64 KiB/token); NVFP4's 1.85x tokens in a similar pool means FP8 KV (32 KiB/token).
# Prefill rates: least squares of time per token = 2P/F + 0.39 MFLOP x n/2 / F_attn over the
# notes' three prompt sizes (s.4), then adjusted for the engine's per-chunk costs (fit).
BUILDS: dict[str, Build] = {
    build.name: build
    for build in (
        Build(
            "qwen3.8-fp8",
            28.5 * 2**30,  # notes s.1
            635_895,  # notes s.1
            KV_LOSS_PER_BUDGET_TOKEN,
            64 * 1024,
            83e12,
            62e12,
            0.317,  # notes s.1
        ),
        Build(
            "qwen3.8-int4",
            20.8 * GB,  # MixedInt4-AutoRound, notes s.1
            728_038,  # notes s.1
            KV_LOSS_PER_BUDGET_TOKEN,
            64 * 1024,
            50e12,
            76e12,
            0.328,  # notes s.1
        ),
        Build(
            "qwen3.8-nvfp4",
            22.6 * GB,  # Unsloth, notes s.1
            1_323_090,  # notes s.1 and s.1b (the same at both budgets)
            0.0,
            32 * 1024,
            83e12,
            50e12,
            0.369,  # notes s.1
        ),
    )
}
DEFAULT_SPEC = "dspark:7"  # the notes' baseline for every build


class StartupError(ValueError):
    """The engine would refuse to start with this configuration (as vLLM does)."""


def geometric_acceptance(rate: float, k: int) -> float:
    """The constant conditional acceptance a whose k positions average ``rate`` (bisection)."""
    low, high = 0.0, 1.0
    for _ in range(60):
        mid = (low + high) / 2
        if sum(mid**i for i in range(1, k + 1)) / k < rate:
            low = mid
        else:
            high = mid
    return (low + high) / 2


def conditional(reach: tuple[float, ...]) -> tuple[float, ...]:
    """Per-position reach r_i to conditional acceptance p_i = r_i / r_(i-1)."""
    previous = (1.0, *reach[:-1])
    return tuple(r / p if p else 0.0 for r, p in zip(reach, previous, strict=True))


def speculation(build: Build, choice: SpecChoice) -> SpecDecode | None:
    """The drafter for ``choice`` on ``build``; ``StartupError`` for an unmodelled depth."""
    k = choice.k
    if choice.method == "none":
        return None
    if choice.method == "mtp":
        return SpecDecode(
            (MTP_NOVEL_ACCEPTANCE,) * k,
            draft_token_s=MTP_TOKEN_S,
            copy_acceptance=(MTP_COPY_ACCEPTANCE,) * k,
        )
    if k > len(DSPARK_COPY_REACH):
        raise StartupError(f"dspark:{k}: depths above {len(DSPARK_COPY_REACH)} are not modelled")
    novel = geometric_acceptance(build.fresh_acceptance_k7, 7)
    return SpecDecode(
        (novel,) * k,
        draft_token_s=DSPARK_TOKEN_S,
        copy_acceptance=conditional(DSPARK_COPY_REACH[:k]),
        draft_pass_s=DSPARK_PASS_S,
        reserves_draft_slots=True,
    )


def compose(
    build_name: str,
    spec: str = DEFAULT_SPEC,
    max_num_batched_tokens: int = DEFAULT_BUDGET,
    prefix_caching: bool = True,
) -> Profile:
    """The engine profile of one configuration; ``StartupError`` where vLLM would not start."""
    build = BUILDS[build_name]
    choice = parse_spec(spec)
    if max_num_batched_tokens < 1:
        raise StartupError("--max-num-batched-tokens must be a positive integer")
    profile = Profile(
        name=build.name,
        model_name=build.name.replace("qwen3.8", MODEL),
        weight_bytes=build.checkpoint_bytes - EMBEDDING_BYTES,
        weight_efficiency=WEIGHT_EFFICIENCY,
        spec=speculation(build, choice),
        quantization=build.name,
        max_num_batched_tokens=max_num_batched_tokens,
        max_num_seqs=MAX_NUM_SEQS,
        gpu_memory_utilization=0.85,  # notes, header
        prefill_flops=build.prefill_flops,
        decode_flops=DECODE_FLOPS,
        attention_flops=build.attention_flops,
        overlap_loss=OVERLAP_LOSS,
        decode_joins_prefill=True,  # chunked prefill carries the running decodes (see above)
        verify_token_s=VERIFY_TOKEN_S,
        kv_tokens=build.kv_capacity(max_num_batched_tokens),
        prefix_caching=prefix_caching,
        hidden_first_tokens=0,  # thinking disabled (notes, header)
        shape=replace(ModelShape(), kv_bytes_per_token=build.kv_bytes_per_token),
    )
    scheduled = profile.scheduled_token_budget()
    if scheduled <= 0:
        raise StartupError(
            f"max_num_scheduled_tokens = {scheduled}: {choice} reserves "
            f"{choice.k - 1} x {MAX_NUM_SEQS} draft slots, more than "
            f"--max-num-batched-tokens {max_num_batched_tokens}; raise it (e.g. 16384)"
        )
    return profile
