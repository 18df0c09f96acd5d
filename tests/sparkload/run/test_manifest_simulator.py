"""The manifest's simulator entry and variant name say how the simulator a run started answers."""

from __future__ import annotations

import pytest

from sparkload.errors import ConfigError
from sparkload.run.manifest import simulated_variant, simulator_entry
from tests.options import run_options


def simulator(*args: str):
    return run_options(*args).simulator


def test_a_plain_runs_simulator_entry_writes_no_agent_fields():
    written = simulator_entry(simulator(), tp=1).to_dict()
    assert "reasoning_tokens" not in written and "tool_call_rate" not in written
    assert (written["spec"], written["max_num_batched_tokens"]) == ("mtp:3", 8192)


def test_the_agent_answers_a_run_changed_are_written_and_only_those():
    written = simulator_entry(
        simulator("--sim-reasoning-tokens", "64", "--sim-no-reasoning-usage"), tp=1
    ).to_dict()
    assert (written["reasoning_tokens"], written["reasoning_usage"]) == (64, False)
    assert "tool_call_rate" not in written and "tool_parser_holdback" not in written


def test_a_thinking_simulator_does_not_share_a_variant_name_with_a_plain_one():
    assert simulated_variant(simulator()) == "awq-mtp"
    assert simulated_variant(simulator("--sim-reasoning-tokens", "64")) == "awq-mtp-think64"


def test_the_simulator_entry_records_the_weights_format_drafting_aside():
    with_mtp = simulator_entry(simulator("--sim-profile", "fp8-mtp"), tp=1)
    without = simulator_entry(simulator("--sim-profile", "fp8"), tp=1)
    assert (with_mtp.quantization, with_mtp.spec) == ("fp8", "mtp:3")
    assert (without.quantization, without.spec) == ("fp8", "none")
    build = simulator_entry(simulator("--sim-profile", "qwen3.8-fp8", "--sim-spec", "none"), tp=1)
    assert build.quantization == "qwen3.8-fp8"


def test_the_categories_own_acceptance_is_written_only_when_set():
    assert "category_acceptance" not in simulator_entry(simulator(), tp=1).to_dict()
    written = simulator_entry(
        simulator("--sim-category-acceptance", "coding=0.9,creative=0.3"), tp=1
    ).to_dict()
    assert written["category_acceptance"] == {"coding": 0.9, "creative": 0.3}


def test_a_bad_category_acceptance_is_one_line_naming_the_option():
    with pytest.raises(ConfigError, match=r"^--sim-category-acceptance: 'coding=2' is not"):
        simulator("--sim-category-acceptance", "coding=2")


def test_the_lora_adapters_their_slots_and_switch_are_written_only_when_served():
    assert "lora" not in simulator_entry(simulator(), tp=1).to_dict()
    written = simulator_entry(
        simulator("--sim-lora", "a, b", "--sim-lora-switch-ms", "150"), tp=1
    ).to_dict()
    assert (written["lora"], written["max_loras"], written["lora_switch_ms"]) == (
        ["a", "b"],
        1,
        150,
    )


def test_an_adapter_named_twice_is_one_line_naming_the_option():
    with pytest.raises(ConfigError, match=r"^--sim-lora: 'a,a': give distinct names"):
        simulator("--sim-lora", "a,a")
