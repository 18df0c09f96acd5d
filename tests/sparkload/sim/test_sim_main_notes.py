"""``sparkload sim`` options for the notes builds, and ``POST /v1/completions``."""

import json

import pytest
import requests

from sparkload.sim.__main__ import build_parser, main
from tests.servers import running_sim

TIMEOUT = 10


def exit_code(args: list[str]) -> int:
    """``main``'s status, whether it returns it or argparse exits with it."""
    try:
        return main(args)
    except SystemExit as exit_:
        return int(exit_.code or 0)


def test_every_option_states_its_default():
    actions = [a for a in build_parser()._actions if a.dest != "help"]
    assert [a.dest for a in actions if "default" not in (a.help or "")] == []


def test_dspark_14_at_the_default_budget_exits_2_with_one_line(capsys):
    assert main(["--profile", "qwen3.8-nvfp4", "--spec", "dspark:14"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "-1280" in err and "Traceback" not in err


@pytest.mark.parametrize(
    "args",
    [
        ["--profile", "qwen3.8-fp8", "--spec", "eagle:3"],
        ["--profile", "qwen3.8-fp8", "--max-num-batched-tokens", "many"],
        ["--profile", "qwen3.8-fp8", "--max-num-batched-tokens", "0"],
        ["--profile", "fp8", "--spec", "mtp:3"],
    ],
)
def test_bad_values_exit_2_with_one_line(args, capsys):
    assert exit_code(args) == 2
    assert capsys.readouterr().err.count("\n") == 1


@pytest.fixture(scope="module")
def url():
    with running_sim("--profile", "qwen3.8-nvfp4", "--time-scale", "100") as base:
        yield base


def completion(url: str, **body) -> requests.Response:
    payload = {"prompt": "Say something about load tests.", "max_tokens": 12, **body}
    return requests.post(f"{url}/v1/completions", json=payload, timeout=TIMEOUT)


def test_streamed_completion_carries_text_chunks_then_usage_then_done(url):
    response = completion(url, stream=True, stream_options={"include_usage": True})
    events = [line[6:] for line in response.text.splitlines() if line.startswith("data: ")]
    chunks = [json.loads(e) for e in events[:-1]]
    assert events[-1] == "[DONE]"
    assert all(c["object"] == "text_completion" for c in chunks)
    assert "".join(c["choices"][0]["text"] for c in chunks[:-1])
    assert chunks[-2]["choices"][0]["finish_reason"] == "length"
    assert chunks[-1]["choices"] == [] and chunks[-1]["usage"]["completion_tokens"] == 12


def test_non_streamed_completion_returns_the_text_and_usage(url):
    body = completion(url).json()
    assert body["choices"][0]["text"] and body["usage"]["completion_tokens"] == 12


def test_completion_without_a_prompt_is_a_400(url):
    assert completion(url, prompt="").status_code == 400


def test_metrics_report_the_kv_cache_capacity_as_vllm_does():
    with running_sim("--profile", "qwen3.8-nvfp4", "--time-scale", "100") as url:
        text = requests.get(url + "/metrics", timeout=5).text
    line = next(line for line in text.splitlines() if line.startswith("vllm:cache_config_info{"))
    labels = dict(
        part.split("=") for part in line[line.index("{") + 1 : line.index("}")].split(",")
    )
    tokens = int(labels["num_gpu_blocks"].strip('"')) * int(labels["block_size"].strip('"'))
    assert 1_323_090 - 512 < tokens <= 1_323_090  # the notes' NVFP4 KV capacity, in whole blocks
