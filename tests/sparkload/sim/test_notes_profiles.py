"""The Qwen3.8-27B notes builds: composition, start-up refusal and mechanisms, virtually."""

import pytest

from sparkload.sim.engine import Engine
from sparkload.sim.notes_profiles import StartupError, compose
from sparkload.sim.speculation import copy_share, parse_spec
from sparkload.sim.virtual import aggregate_tokens_per_s, run_level

NVFP4, INT4, FP8 = "qwen3.8-nvfp4", "qwen3.8-int4", "qwen3.8-fp8"
EDIT = (1900, 1500)  # prompt tokens, output tokens, as the edit workload sends them
FRESH = (100, 400)


def run(profile, shape, concurrency=1, rounds=1, identical=False):
    engine = Engine(profile, seed=0)
    prompts = [0] * (concurrency * rounds) if identical else list(range(concurrency * rounds))
    return engine, run_level(engine, concurrency, prompts, *shape, seed=0)


def acceptance_pct(engine):
    c = engine.counters
    return 100 * c.spec_accepted_tokens / c.spec_draft_tokens


def test_a_one_line_spec_has_nothing_to_copy():
    assert copy_share(*FRESH) == 0.0


def test_a_chat_turn_has_nothing_to_copy():
    assert copy_share(128, 128) == 0.0


def test_an_edit_copies_at_both_output_lengths_the_notes_ran():
    assert copy_share(1900, 1500) == copy_share(1900, 3000) == 1.0


def test_spec_names_method_and_depth():
    assert str(parse_spec("dspark:14")) == "dspark:14" and parse_spec("none").k == 0


@pytest.mark.parametrize("bad", ["dspark", "mtp:0", "eagle:3", "none:2", "dspark:x"])
def test_malformed_spec_is_refused(bad):
    with pytest.raises(ValueError):
        parse_spec(bad)


def test_dspark_14_refuses_to_start_at_the_default_budget_with_the_notes_figure():
    with pytest.raises(StartupError, match="max_num_scheduled_tokens = -1280"):
        compose(NVFP4, "dspark:14")


def test_dspark_14_starts_at_a_16384_budget():
    assert compose(NVFP4, "dspark:14", 16384).scheduled_token_budget() == 16384 - 13 * 256


def test_dspark_7_at_the_default_budget_schedules_512_tokens_a_step():
    assert compose(NVFP4).scheduled_token_budget() == 512


def test_mtp_reserves_no_draft_slots():
    assert compose(FP8, "mtp:15").scheduled_token_budget() == 2048


def test_kv_capacity_is_the_measured_one_at_the_default_budget():
    assert [compose(b).kv_capacity_tokens() for b in (FP8, INT4, NVFP4)] == [
        635_895,
        728_038,
        1_323_090,
    ]


def test_kv_capacity_shrinks_with_a_larger_budget_where_the_notes_saw_it():
    assert compose(INT4, "dspark:7", 16384).kv_capacity_tokens() == 716_736
    assert compose(NVFP4, "dspark:7", 16384).kv_capacity_tokens() == 1_323_090


def test_edit_requests_accept_about_99_percent_at_k7():
    engine, _ = run(compose(NVFP4), EDIT)
    assert acceptance_pct(engine) == pytest.approx(98.7, abs=1.0)


def test_fresh_requests_accept_the_builds_fresh_rate_at_k7():
    engine, _ = run(compose(NVFP4), FRESH, rounds=4)
    assert acceptance_pct(engine) == pytest.approx(36.9, abs=3.0)


def test_k14_copy_curve_gives_the_notes_tokens_per_pass():
    spec = compose(NVFP4, "dspark:14", 16384).spec
    assert spec.expected_tokens_per_step(copying=True) == pytest.approx(10.62, rel=0.05)
    assert 100 * spec.acceptance_rate(copying=True) == pytest.approx(68.7, abs=3.0)


def test_per_position_counters_follow_the_copy_curve():
    engine, _ = run(compose(NVFP4, "dspark:14", 16384), EDIT)
    c = engine.counters
    reach = [a / c.spec_drafts for a in c.spec_accepted_per_pos]
    assert reach[:5] == [1.0] * 5 and reach[-1] < 0.1


def test_four_bit_beats_fp8_single_stream():
    _, nvfp4 = run(compose(NVFP4, "dspark:7", 16384), EDIT)
    _, fp8 = run(compose(FP8, "dspark:7", 16384), EDIT)
    assert aggregate_tokens_per_s(nvfp4) > 1.15 * aggregate_tokens_per_s(fp8)


def test_four_bit_advantage_is_gone_at_c16():
    _, nvfp4 = run(compose(NVFP4, "dspark:7", 16384), EDIT, concurrency=16)
    _, fp8 = run(compose(FP8, "dspark:7", 16384), EDIT, concurrency=16)
    assert aggregate_tokens_per_s(nvfp4) == pytest.approx(aggregate_tokens_per_s(fp8), rel=0.05)


def test_k14_wins_single_stream_and_loses_at_c8():
    k7, k14 = compose(NVFP4, "dspark:7", 16384), compose(NVFP4, "dspark:14", 16384)
    single = [aggregate_tokens_per_s(run(p, EDIT)[1]) for p in (k7, k14)]
    fleet = [aggregate_tokens_per_s(run(p, EDIT, concurrency=8)[1]) for p in (k7, k14)]
    assert single[1] > single[0] and fleet[1] < fleet[0]


def fleet_tok_s(profile, concurrency):
    """Aggregate tok/s of edit streams, three requests per user (past the first wave)."""
    return aggregate_tokens_per_s(run(profile, EDIT, concurrency=concurrency, rounds=3)[1])


def test_k14_already_loses_to_k7_at_c4():
    k7, k14 = compose(NVFP4, "dspark:7", 16384), compose(NVFP4, "dspark:14", 16384)
    assert fleet_tok_s(k14, 4) < fleet_tok_s(k7, 4)


def test_a_16384_budget_costs_c8_throughput_but_helps_a_single_stream():
    default, wide = compose(NVFP4), compose(NVFP4, "dspark:7", 16384)
    assert fleet_tok_s(wide, 8) < 0.99 * fleet_tok_s(default, 8)
    assert fleet_tok_s(wide, 1) > fleet_tok_s(default, 1)


def test_chunk_steps_carry_the_running_decodes_at_the_default_budget():
    engine = Engine(compose(NVFP4), seed=0)
    engine.add("running", *EDIT)
    while not engine.step().emissions:
        pass  # prefill the first request
    engine.add("newcomer", *EDIT)
    mixed = engine.step().batch
    assert mixed.decode_seqs == 1 and mixed.prefill_tokens == 512 - 8


def test_identical_prompts_are_served_from_the_prefix_cache():
    engine, _ = run(compose(NVFP4), EDIT, concurrency=4, rounds=2, identical=True)
    assert engine.counters.prefix_cache_hits >= 4 * 1536  # every second-round request hits


def test_without_prefix_caching_identical_prompts_never_hit():
    engine, _ = run(compose(FP8, "none", prefix_caching=False), EDIT, concurrency=2, identical=True)
    assert engine.counters.prefix_cache_hits == 0


def test_no_speculation_emits_one_token_per_step():
    engine, _ = run(compose(FP8, "none"), FRESH)
    assert engine.counters.spec_drafts == 0 and engine.counters.generation_tokens == 400
