"""The timing engine: a step model and a scheduler, tested without a network."""

from dataclasses import replace

from sparkload.sim.engine import BatchShape, Engine, linear_seconds, step_seconds
from sparkload.sim.profiles import get_profile


def run_to_completion(engine: Engine, max_steps: int = 10_000) -> list:
    steps = []
    while engine.has_work() and len(steps) < max_steps:
        steps.append(engine.step())
    return steps


def test_decode_step_time_grows_with_batch_size():
    profile = get_profile("fp8")
    times = [
        step_seconds(profile, BatchShape(decode_seqs=b, context_tokens=200 * b)) for b in (1, 4, 16)
    ]
    assert times[0] < times[1] < times[2]


def test_decode_step_at_batch_one_is_weight_streaming_time_plus_overhead():
    profile = get_profile("fp8")
    t = step_seconds(profile, BatchShape(decode_seqs=1))
    weights = profile.weight_bytes / (profile.weight_efficiency * 273e9)
    assert weights + profile.step_overhead_s < t < weights + profile.step_overhead_s + 0.005


def test_long_prefill_is_compute_bound():
    profile = get_profile("fp8")
    t = step_seconds(profile, BatchShape(prefill_seqs=1, prefill_tokens=8192))
    assert t > 2 * profile.shape.active_params * 8192 / profile.prefill_flops


def test_tensor_parallel_lowers_step_time_at_batch_one():
    batch = BatchShape(decode_seqs=1, context_tokens=200)
    tp1, tp2, tp4 = (step_seconds(get_profile("nvfp4-mtp", tp), batch) for tp in (1, 2, 4))
    assert tp1 > tp2 > tp4


def test_allreduce_latency_is_a_parameter_of_the_step_time():
    batch = BatchShape(decode_seqs=1)
    tuned = step_seconds(get_profile("fp8", 2, allreduce_latency_s=25e-6), batch)
    stock = step_seconds(get_profile("fp8", 2, allreduce_latency_s=450e-6), batch)
    assert stock - tuned > 0.05


def test_allreduce_costs_nothing_on_one_node():
    batch = BatchShape(decode_seqs=1)
    assert step_seconds(get_profile("fp8", 1, 25e-6), batch) == step_seconds(
        get_profile("fp8", 1, 450e-6), batch
    )


def test_chunked_prefill_never_exceeds_the_token_budget():
    profile = replace(get_profile("fp8"), max_num_batched_tokens=512, step_jitter=0.0)
    engine = Engine(profile)
    for i in range(6):
        engine.add(f"r{i}", prompt_tokens=700, max_tokens=4)
    steps = run_to_completion(engine)
    assert all(s.batch.tokens(0) <= 512 for s in steps)
    assert max(s.batch.prefill_tokens for s in steps) == 512


def test_long_prompt_is_prefilled_in_several_chunks_before_its_first_token():
    profile = replace(get_profile("fp8"), max_num_batched_tokens=256)
    engine = Engine(profile)
    engine.add("long", prompt_tokens=1000, max_tokens=2)
    steps = run_to_completion(engine)
    first_token_step = next(i for i, s in enumerate(steps) if s.emissions)
    assert first_token_step == 3  # 256 + 256 + 256 + 232 tokens


def test_every_request_gets_exactly_max_tokens():
    engine = Engine(get_profile("awq-mtp"), seed=3)
    for i in range(5):
        engine.add(f"r{i}", prompt_tokens=128, max_tokens=37)
    produced: dict[str, int] = {}
    for step in run_to_completion(engine):
        for e in step.emissions:
            produced[e.request_id] = produced.get(e.request_id, 0) + e.tokens
    assert produced == {f"r{i}": 37 for i in range(5)}


def test_mtp_emits_several_tokens_per_step():
    engine = Engine(get_profile("fp8-mtp"), seed=1)
    engine.add("r", prompt_tokens=128, max_tokens=128)
    sizes = [e.tokens for s in run_to_completion(engine) for e in s.emissions]
    assert max(sizes) == 4  # 1 + k with k = 3
    assert len(sizes) < 128 / 2


def test_non_speculative_profile_emits_one_token_per_step():
    engine = Engine(get_profile("fp8"))
    engine.add("r", prompt_tokens=128, max_tokens=20)
    sizes = {e.tokens for s in run_to_completion(engine) for e in s.emissions}
    assert sizes == {1}


def test_spec_decode_counters_are_consistent_with_each_other():
    engine = Engine(get_profile("nvfp4-mtp"), seed=7)
    for i in range(4):
        engine.add(f"r{i}", prompt_tokens=64, max_tokens=200)
    run_to_completion(engine)
    c = engine.counters
    k = get_profile("nvfp4-mtp").spec.num_draft_tokens
    assert c.spec_draft_tokens == k * c.spec_drafts
    assert sum(c.spec_accepted_per_pos) == c.spec_accepted_tokens
    assert c.spec_accepted_per_pos == sorted(c.spec_accepted_per_pos, reverse=True)


def test_spec_decode_counters_match_the_profile_acceptance():
    profile = get_profile("fp8-mtp")
    engine = Engine(profile, seed=11)
    for i in range(8):
        engine.add(f"r{i}", prompt_tokens=64, max_tokens=2000)
    run_to_completion(engine)
    c = engine.counters
    tau = 1 + c.spec_accepted_tokens / c.spec_drafts
    assert abs(tau - profile.spec.expected_tokens_per_step()) < 0.05
    rate = c.spec_accepted_tokens / c.spec_draft_tokens
    assert abs(rate - profile.spec.acceptance_rate()) < 0.02


def test_same_seed_gives_the_same_steps():
    def trace(seed: int) -> list:
        engine = Engine(get_profile("awq-mtp"), seed=seed)
        for i in range(3):
            engine.add(f"r{i}", prompt_tokens=100 + i, max_tokens=50)
        return [(s.duration_s, s.emissions) for s in run_to_completion(engine)]

    assert trace(5) == trace(5)
    assert trace(5) != trace(6)


def test_repeated_prompt_hits_the_prefix_cache_in_whole_blocks():
    engine = Engine(replace(get_profile("fp8"), block_size=16))
    blocks = tuple(range(8))  # a 128-token prompt: 8 blocks of 16
    engine.add("first", 128, 4, blocks)
    run_to_completion(engine)
    again = engine.add("again", 128, 4, blocks)
    steps = run_to_completion(engine)
    assert again.cached_tokens == 112  # the last block is recomputed: one token must be
    assert steps[0].batch.prefill_tokens == 16
    assert engine.counters.prefix_cache_hits == 112
    assert engine.counters.prefix_cache_queries == 256


def test_a_repeated_short_prompt_is_never_cached_with_the_hybrid_models_large_blocks():
    engine = Engine(get_profile("fp8"))  # 512-token pages: a 128-token prompt has no full block
    engine.add("first", 128, 4, (7,))
    run_to_completion(engine)
    again = engine.add("again", 128, 4, (7,))
    run_to_completion(engine)
    assert again.cached_tokens == 0 and engine.counters.prefix_cache_hits == 0


def test_new_request_waits_for_the_running_step_under_async_scheduling():
    profile = get_profile("fp8-mtp")
    assert profile.async_scheduling
    engine = Engine(profile)
    engine.add("running", 128, 50)
    engine.step()
    engine.add("late", 128, 5)
    assert engine.step().batch.prefill_seqs == 0
    assert engine.step().batch.prefill_seqs == 1


def test_requests_beyond_kv_capacity_wait():
    profile = get_profile("fp8")
    engine = Engine(profile)
    capacity = profile.kv_capacity_tokens()
    engine.add("big", capacity - 2000, 10)
    engine.add("next", 4000, 10)
    engine.step()
    assert engine.num_running == 1
    assert engine.num_waiting == 1


def test_report_profiles_price_decode_and_prefill_rows_separately():
    profile = get_profile("fp8")
    assert linear_seconds(profile, 500, 64) == linear_seconds(profile, 500, 0) + linear_seconds(
        profile, 0, 64
    )


def test_decode_rows_ride_in_a_large_prefill_chunk_at_the_chunk_rate():
    profile = replace(get_profile("fp8"), decode_flops=30e12, decode_joins_prefill=True)
    alone = linear_seconds(profile, 0, 64)
    chunk = linear_seconds(profile, 448, 0)
    mixed = linear_seconds(profile, 448, 64)
    assert mixed < chunk + alone / 2  # most of a decode step's GEMM time is absorbed
    assert mixed == 2 * profile.shape.active_params * 512 / profile.prefill_flops


def test_a_small_chunk_cannot_make_the_decode_rows_cheaper_than_alone():
    profile = replace(get_profile("fp8"), decode_flops=30e12, decode_joins_prefill=True)
    assert linear_seconds(profile, 16, 64) == linear_seconds(profile, 0, 64)


def test_verify_token_cost_adds_per_verified_token():
    base = get_profile("fp8-mtp")  # k = 3
    slow = replace(base, verify_token_s=0.001)
    batch = BatchShape(decode_seqs=4, context_tokens=800)
    extra = step_seconds(slow, batch) - step_seconds(base, batch)
    assert abs(extra - 4 * (1 + 3) * 0.001) < 1e-12


# ----- drafting per request: its own histogram, its category's rate -------------------------
def emitted(engine: Engine, request_id: str) -> list[int]:
    """The request's tokens per step, its first (the prefill's) excluded."""
    sizes = [
        e.tokens
        for s in run_to_completion(engine)
        for e in s.emissions
        if e.request_id == request_id
    ]
    return sizes[1:]


def test_each_verify_step_is_counted_once_in_the_request_s_histogram():
    engine = Engine(get_profile("fp8-mtp"), seed=5)
    seq = engine.add("r", prompt_tokens=128, max_tokens=300)
    steps = emitted(engine, "r")
    assert len(seq.acceptance_histogram) == 3 + 1
    assert sum(seq.acceptance_histogram) == len(steps)


def test_the_histogram_says_the_tokens_each_step_streamed():
    engine = Engine(get_profile("fp8-mtp"), seed=5)
    seq = engine.add("r", prompt_tokens=128, max_tokens=300)
    steps = emitted(engine, "r")
    drawn = sum((1 + j) * n for j, n in enumerate(seq.acceptance_histogram))
    # the last step may be cut at max_tokens, never by more than a step's k drafts
    assert 0 <= drawn - sum(steps) <= 3


def test_a_request_s_own_rate_of_one_accepts_every_draft():
    engine = Engine(get_profile("fp8-mtp"), seed=5)
    seq = engine.add("r", prompt_tokens=128, max_tokens=200, draft_acceptance=1.0)
    run_to_completion(engine)
    assert seq.acceptance_histogram[:3] == [0, 0, 0] and seq.acceptance_histogram[3] > 0


def test_a_request_s_own_rate_of_zero_accepts_none():
    engine = Engine(get_profile("fp8-mtp"), seed=5)
    seq = engine.add("r", prompt_tokens=128, max_tokens=50, draft_acceptance=0.0)
    run_to_completion(engine)
    assert seq.acceptance_histogram[1:] == [0, 0, 0] and seq.acceptance_histogram[0] == 49


def test_two_rates_give_the_mean_acceptance_lengths_they_set():
    engine = Engine(get_profile("fp8-mtp"), seed=9)
    high = engine.add("high", prompt_tokens=128, max_tokens=3000, draft_acceptance=0.9)
    low = engine.add("low", prompt_tokens=128, max_tokens=3000, draft_acceptance=0.3)
    run_to_completion(engine)

    def mean_length(histogram: list[int]) -> float:
        return 1 + sum(j * n for j, n in enumerate(histogram)) / sum(histogram)

    # k = 3 drafts accepted in turn at rate r: 1 + r + r^2 + r^3
    assert abs(mean_length(high.acceptance_histogram) - (1 + 0.9 + 0.81 + 0.729)) < 0.1
    assert abs(mean_length(low.acceptance_histogram) - (1 + 0.3 + 0.09 + 0.027)) < 0.1


def test_a_profile_without_drafting_keeps_no_histogram():
    engine = Engine(get_profile("fp8"))
    seq = engine.add("r", prompt_tokens=64, max_tokens=10)
    run_to_completion(engine)
    assert seq.acceptance_histogram == []
