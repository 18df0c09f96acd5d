"""``sparkload sim --block-size``: the prefix cache's page, and a conversation served from it."""

from __future__ import annotations

import json

import pytest
import requests

from sparkload.sim.__main__ import build_parser, engine_profile
from tests.servers import running_sim
from tests.sparkload.sim.test_sim_main_notes import exit_code

FIRST = "Tell me about the river gauge readings of the last week, station by station. " * 4


def test_the_block_size_defaults_to_the_profiles_page():
    assert engine_profile(build_parser().parse_args([])).block_size == 512


def test_the_block_size_option_sets_the_page_of_any_engine_profile():
    for profile in ("awq-mtp", "qwen3.8-nvfp4"):
        args = build_parser().parse_args(["--profile", profile, "--block-size", "16"])
        assert engine_profile(args).block_size == 16


@pytest.mark.parametrize(
    "args", [["--block-size", "0"], ["--profile", "fixed", "--block-size", "16"]]
)
def test_a_block_size_that_cannot_be_is_one_line_and_exit_2(args, capsys):
    assert exit_code(args) == 2
    assert capsys.readouterr().err.count("\n") == 1


def usage(url: str, messages: list[dict]) -> dict:
    body = {
        "messages": messages,
        "max_tokens": 8,
        "stream": True,
        "stream_options": {"include_usage": True},
    }
    response = requests.post(f"{url}/v1/chat/completions", json=body, timeout=30)
    events = [line[6:] for line in response.text.splitlines() if line.startswith("data: {")]
    return json.loads(events[-1])["usage"]


@pytest.mark.e2e  # starts the simulator
def test_a_conversations_next_turn_is_served_its_history_from_the_cache():
    first = [{"role": "user", "content": FIRST}]
    second = [
        *first,
        {"role": "assistant", "content": "Here they are."},
        {"role": "user", "content": "And today?"},
    ]
    with running_sim("--block-size", "16", "--time-scale", "100") as url:
        before = usage(url, first)
        after = usage(url, second)
        metrics = requests.get(f"{url}/metrics", timeout=5).text
    assert before["prompt_tokens_details"]["cached_tokens"] == 0
    assert after["prompt_tokens_details"]["cached_tokens"] == before["prompt_tokens"] // 16 * 16
    hits = next(line for line in metrics.splitlines() if line.startswith("vllm:prefix_cache_hits"))
    assert float(hits.split()[-1]) == before["prompt_tokens"] // 16 * 16
