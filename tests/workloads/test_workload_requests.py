"""What each workload puts in a request: prompt text, output length, sampling extras."""

from __future__ import annotations

import pytest
from locust.argument_parser import LocustArgumentParser

from sparkload import config as options
from sparkload import workloads
from sparkload.errors import ConfigError
from sparkload.plugin.options import register
from sparkload.sim.textlength import CHARS_PER_TOKEN


def opts(*args: str) -> options.RunOptions:
    parser = LocustArgumentParser()
    register(parser)
    return options.from_namespace(parser.parse_args(list(args)))


def test_chat_is_the_default_and_sends_no_sampling_extras():
    workload = workloads.load(opts())
    assert (workload.name, workload.max_tokens, workload.sampling) == ("chat", 128, {})


def test_chat_prompts_are_the_prompt_file_lines_unchanged():
    workload = workloads.load(opts())
    assert workload.request(3, user=0, level_index=0).text == workload.prompts[3]


def test_fresh_asks_for_400_tokens_and_pins_the_length():
    workload = workloads.load(opts("--workload", "fresh"))
    assert workload.max_tokens == 400
    assert (workload.sampling["ignore_eos"], workload.sampling["min_tokens"]) == (True, 400)


def test_edit_asks_for_3000_tokens_and_pins_the_length():
    workload = workloads.load(opts("--workload", "edit"))
    assert workload.max_tokens == 3000 and workload.sampling["ignore_eos"] is True


def test_an_explicit_max_tokens_overrides_the_workload_length():
    assert workloads.load(opts("--workload", "edit", "--max-tokens", "1500")).max_tokens == 1500


def test_ignore_eos_no_drops_the_pinning_extras():
    sampling = workloads.load(opts("--workload", "fresh", "--ignore-eos", "no")).sampling
    assert "ignore_eos" not in sampling and "min_tokens" not in sampling


@pytest.mark.parametrize("name", ["fresh", "edit"])
def test_fresh_and_edit_follow_the_notes_method_greedy_with_thinking_off(name):
    sampling = workloads.load(opts("--workload", name)).sampling
    assert sampling["temperature"] == 0
    assert sampling["chat_template_kwargs"] == {"enable_thinking": False}


def test_the_notes_method_is_overridable_and_a_null_removes_a_key():
    parsed = opts(
        "--workload",
        "edit",
        "--temperature",
        "0.7",
        "--extra-body",
        '{"chat_template_kwargs": null}',
    )
    extras = parsed.body_extras(workloads.load(parsed).sampling)
    assert extras["temperature"] == 0.7 and "chat_template_kwargs" not in extras


def test_ignore_eos_without_a_value_pins_chat_too():
    assert workloads.load(opts("--ignore-eos")).sampling == {"ignore_eos": True, "min_tokens": 128}


def test_a_cache_busting_prompt_starts_with_a_unique_nonce():
    workload = workloads.load(opts("--workload", "fresh"))
    first, second = (workload.request(0, user=0, level_index=0).text for _ in range(2))
    assert first != second
    assert first.startswith("[request ") and first.split("\n", 1)[1] == second.split("\n", 1)[1]


def test_no_64_character_prefix_block_is_shared_between_cache_busted_prompts():
    workload = workloads.load(opts("--workload", "edit"))
    texts = [workload.request(0, user=0, level_index=0).text for _ in range(20)]
    assert len({text[:64] for text in texts}) == 20


def test_identical_prompts_send_the_same_text_every_time():
    workload = workloads.load(opts("--workload", "edit", "--identical-prompts"))
    texts = {workload.request(i, user=u, level_index=0).text for i in range(5) for u in range(4)}
    assert len(texts) == 1


def test_edit_streams_edit_different_files_at_the_same_time():
    workload = workloads.load(opts("--workload", "edit"))
    indices = [workload.request(0, user=u, level_index=0).index for u in range(8)]
    assert len(set(indices)) == 8


def test_edit_prompts_hold_a_whole_source_file_with_several_classes():
    workload = workloads.load(opts("--workload", "edit"))
    assert workload.source["count"] >= 8
    for prompt in workload.prompts:
        assert prompt.count("\nclass ") >= 3
        assert 5000 <= len(prompt) <= 12000  # ~2,000 tokens of code


def test_records_keep_the_workload_and_the_prompt_length():
    request = workloads.load(opts("--workload", "fresh")).request(0, user=0, level_index=0)
    assert request.extra == {
        "workload": "fresh",
        "identical": False,
        "prompt_chars": len(request.text),
    }


def test_prefill_runs_one_c1_level_per_size_with_the_runs_per_size():
    o = opts("--workload", "prefill", "--prefill-sizes", "100,200,300", "--prefill-runs", "3")
    assert (o.ladder, o.requests_per_user, o.max_tokens) == ((1, 1, 1), 3, 1)


def test_prefill_prompt_size_follows_the_level_index():
    workload = workloads.load(opts("--workload", "prefill", "--prefill-sizes", "1000,3000"))
    small = workload.request(0, user=0, level_index=0)
    large = workload.request(0, user=0, level_index=1)
    assert (small.extra["target_tokens"], large.extra["target_tokens"]) == (1000, 3000)
    assert len(large.text) == pytest.approx(3000 * CHARS_PER_TOKEN, rel=0.02)


def test_prefill_requests_differ_in_content_not_only_in_their_nonce():
    workload = workloads.load(opts("--workload", "prefill", "--prefill-sizes", "2000"))
    a, b = (workload.request(0, user=0, level_index=0).text.split("\n", 1)[1] for _ in range(2))
    assert a != b


def test_prefill_text_is_the_same_for_the_same_seed():
    assert workloads.filler_text(5000, seed=7) == workloads.filler_text(5000, seed=7)


def test_prefill_with_a_time_based_mode_is_a_config_error():
    with pytest.raises(ConfigError):
        opts("--workload", "prefill", "--step-duration", "10")


def test_the_manifest_entry_names_the_workload_and_its_parameters():
    entry = workloads.load(opts("--workload", "edit", "--identical-prompts")).manifest()
    assert entry == {
        "name": "edit",
        "max_tokens": 3000,
        "ignore_eos": True,
        "identical_prompts": True,
        "cache_bust": True,
    }
