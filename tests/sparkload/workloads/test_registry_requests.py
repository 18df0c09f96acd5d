"""What each workload puts in a request: prompt text, output length, sampling extras."""

from __future__ import annotations

import json

import pytest

from sparkload.body import BodyTemplate
from sparkload.errors import ConfigError
from sparkload.records import WORKLOAD_NAMES, WORKLOAD_TRACE
from sparkload.sim.textlength import CHARS_PER_TOKEN
from sparkload.workloads import filler, registry
from sparkload.workloads.contract import PlannedRequest, Slot, UserState, Workload
from tests.options import run_options


def load(*args: str) -> Workload:
    return registry.load(run_options(*args))


def plan(workload: Workload, index: int = 0, user: int = 0, level: int = 0) -> PlannedRequest:
    """The request ``workload`` plans for the first request of ``user`` when the seeded order
    deals ``index``, at level ``level``."""
    return workload.next_request(UserState(user, lambda: index), Slot(level))


def body(*args: str) -> dict:
    """The body of the first request of a run of ``locust ... ARGS``."""
    opts = run_options(*args)
    workload = registry.load(opts)
    template = BodyTemplate.for_run(opts, workload.sampling, workload.max_tokens, "m")
    return json.loads(template.encode(plan(workload)))


def test_every_workload_name_has_a_workload():
    # the trace's is chosen by --trace
    assert set(registry.WORKLOADS) == {*WORKLOAD_NAMES, WORKLOAD_TRACE}


def test_chat_is_the_default_and_sends_no_sampling_extras():
    assert (load().name, load().max_tokens) == ("chat", 128)
    assert set(body()) == {"model", "max_tokens", "messages", "stream", "stream_options"}


def test_chat_prompts_are_the_prompt_file_lines_unchanged():
    workload = load()
    assert plan(workload, index=3).text == workload.prompts[3]


def test_fresh_asks_for_400_tokens_and_pins_the_length():
    sent = body("--workload", "fresh")
    assert (sent["max_tokens"], sent["ignore_eos"], sent["min_tokens"]) == (400, True, 400)


def test_edit_asks_for_3000_tokens_and_pins_the_length():
    sent = body("--workload", "edit")
    assert sent["max_tokens"] == 3000 and sent["ignore_eos"] is True


def test_an_explicit_max_tokens_overrides_the_workload_length():
    assert load("--workload", "edit", "--max-tokens", "1500").max_tokens == 1500


def test_output_tokens_is_the_run_length():
    assert load("--output-tokens", "32").max_tokens == 32


def test_max_tokens_and_output_tokens_that_disagree_are_a_config_error():
    with pytest.raises(ConfigError, match="--max-tokens and --output-tokens disagree"):
        run_options("--max-tokens", "16", "--output-tokens", "32")


def test_ignore_eos_no_drops_the_pinning_extras():
    sent = body("--workload", "fresh", "--ignore-eos", "no")
    assert "ignore_eos" not in sent and "min_tokens" not in sent


@pytest.mark.parametrize("name", ["fresh", "edit"])
def test_fresh_and_edit_follow_the_notes_method_greedy_with_thinking_off(name):
    sent = body("--workload", name)
    assert sent["temperature"] == 0
    assert sent["chat_template_kwargs"] == {"enable_thinking": False}


def test_the_notes_method_is_overridable_and_a_null_removes_a_key():
    sent = body(
        "--workload",
        "edit",
        "--temperature",
        "0.7",
        "--extra-body",
        '{"chat_template_kwargs": null}',
    )
    assert sent["temperature"] == 0.7 and "chat_template_kwargs" not in sent


def test_ignore_eos_without_a_value_pins_chat_too():
    sent = body("--ignore-eos")
    assert (sent["ignore_eos"], sent["min_tokens"]) == (True, 128)


def test_a_cache_busting_prompt_starts_with_a_unique_nonce():
    workload = load("--workload", "fresh")
    first, second = (plan(workload).text for _ in range(2))
    assert first != second
    assert first.startswith("[request ") and first.split("\n", 1)[1] == second.split("\n", 1)[1]


def test_no_64_character_prefix_block_is_shared_between_cache_busted_prompts():
    workload = load("--workload", "edit")
    texts = [plan(workload).text for _ in range(20)]
    assert len({text[:64] for text in texts}) == 20


def test_identical_prompts_send_the_same_text_every_time():
    workload = load("--workload", "edit", "--identical-prompts")
    texts = {plan(workload, index=i, user=u).text for i in range(5) for u in range(4)}
    assert len(texts) == 1


def test_edit_streams_edit_different_files_at_the_same_time():
    workload = load("--workload", "edit")
    indices = [plan(workload, user=u).prompt_index for u in range(8)]
    assert len(set(indices)) == 8


def test_an_edit_stream_moves_to_the_next_file_with_each_request():
    workload = load("--workload", "edit")
    user = workload.new_user(3, lambda: 0)
    indices = []
    for _ in range(3):
        indices.append(workload.next_request(user, Slot(0)).prompt_index)
        user.planned += 1  # as the user's session counts
    assert indices == [3, 4, 5]


def test_edit_prompts_hold_a_whole_source_file_with_several_classes():
    workload = load("--workload", "edit")
    assert workload.describe()["count"] >= 8
    for prompt in workload.prompts:
        assert prompt.count("\nclass ") >= 3
        assert 5000 <= len(prompt) <= 12000  # ~2,000 tokens of code


def test_records_keep_the_workload_and_the_prompt_length():
    request = plan(load("--workload", "fresh"))
    assert request.extra == {
        "workload": "fresh",
        "identical": False,
        "prompt_chars": len(request.text),
    }


def test_prefill_runs_one_c1_level_per_size_with_the_runs_per_size():
    args = ("--workload", "prefill", "--prefill-sizes", "100,200,300", "--prefill-runs", "3")
    o = run_options(*args)
    assert (o.plan.ladder, o.plan.requests_per_user, load(*args).max_tokens) == ((1, 1, 1), 3, 1)


def test_prefill_asks_for_one_output_token_whatever_max_tokens_says():
    assert load("--workload", "prefill", "--max-tokens", "50").max_tokens == 1


def test_prefill_prompt_size_follows_the_level_index():
    workload = load("--workload", "prefill", "--prefill-sizes", "1000,3000")
    small = plan(workload, level=0)
    large = plan(workload, level=1)
    assert (small.extra["target_tokens"], large.extra["target_tokens"]) == (1000, 3000)
    assert len(large.text) == pytest.approx(3000 * CHARS_PER_TOKEN, rel=0.02)


def test_prefill_requests_differ_in_content_not_only_in_their_nonce():
    workload = load("--workload", "prefill", "--prefill-sizes", "2000")
    # each starts at a random one of about 75 sentences: of five, some must differ
    texts = {plan(workload).text.split("\n", 1)[1] for _ in range(5)}
    assert len(texts) > 1


def test_prefill_text_is_the_same_for_the_same_seed():
    assert filler.filler_text(5000, seed=7) == filler.filler_text(5000, seed=7)


@pytest.mark.parametrize("mode", [["--step-duration", "10"], ["--arrival-rate", "2"]])
def test_prefill_with_a_time_based_mode_is_a_config_error(mode):
    with pytest.raises(ConfigError, match="prefill runs its own C=1 ladder"):
        run_options("--workload", "prefill", *mode)


def test_prefill_with_output_tokens_is_a_config_error():
    with pytest.raises(ConfigError, match="prefill asks for 1 output token"):
        run_options("--workload", "prefill", "--output-tokens", "8")


@pytest.mark.parametrize("name", ["fresh", "edit", "prefill"])
def test_input_tokens_makes_chat_prompts_only(name):
    with pytest.raises(ConfigError, match=f"--workload {name} has its own"):
        run_options("--workload", name, "--input-tokens", "10")


def test_input_tokens_with_cache_bust_is_a_config_error():
    with pytest.raises(ConfigError, match="--input-tokens and --cache-bust"):
        run_options("--input-tokens", "10", "--cache-bust")


def test_the_manifest_entry_names_the_workload_and_its_parameters():
    entry = load("--workload", "edit", "--identical-prompts").manifest()
    assert entry == {
        "name": "edit",
        "max_tokens": 3000,
        "ignore_eos": True,
        "identical_prompts": True,
        "cache_bust": True,
    }
