"""The simulator serving LoRA adapters over HTTP, as vLLM with --lora-modules: listed with their
parent, answered under their own name, an unknown name refused; bad adapter options refused."""

import subprocess
import sys

import pytest
import requests

from tests.servers import running_sim

pytestmark = pytest.mark.e2e  # starts simulator processes

TIMEOUT = 10


@pytest.fixture(scope="module")
def url():
    args = ("--profile", "fixed", "--time-scale", "20", "--lora", "tenant-a,tenant-b")
    with running_sim(*args, "--lora-switch-ms", "100") as base:
        yield base


def chat(url: str, model: str) -> requests.Response:
    body = {"model": model, "messages": [{"role": "user", "content": "hi"}], "max_tokens": 3}
    return requests.post(f"{url}/v1/chat/completions", json=body, timeout=TIMEOUT)


def test_models_lists_each_adapter_with_the_base_as_its_parent(url):
    cards = requests.get(f"{url}/v1/models", timeout=TIMEOUT).json()["data"]
    assert [(c["id"], c["parent"]) for c in cards] == [
        ("sparkload-sim-fixed", None),
        ("tenant-a", "sparkload-sim-fixed"),
        ("tenant-b", "sparkload-sim-fixed"),
    ]


def test_an_adapters_request_is_answered_under_its_name(url):
    response = chat(url, "tenant-b")
    assert response.status_code == 200
    assert response.json()["model"] == "tenant-b"


def test_a_name_neither_the_model_nor_an_adapter_is_refused(url):
    response = chat(url, "tenant-z")
    assert response.status_code == 404
    assert "tenant-z" in response.json()["error"]["message"]


def test_tokenize_counts_for_an_adapter_as_for_its_base(url):
    asked = {"model": "tenant-a", "prompt": "twelve chars"}
    response = requests.post(f"{url}/tokenize", json=asked, timeout=TIMEOUT)
    assert response.status_code == 200 and response.json()["count"] == 3


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (["--lora", "a,a"], "--lora: 'a,a' names an adapter twice"),
        (["--max-loras", "0"], "--max-loras must be 1 or more"),
        (["--lora-switch-ms", "-1"], "--lora-switch-ms must be >= 0"),
    ],
)
def test_bad_adapter_options_are_one_line_and_exit_2(args, said):
    done = subprocess.run(
        [sys.executable, "-m", "sparkload.sim", "--port", "0", *args],
        capture_output=True,
        text=True,
        timeout=30,
        stdin=subprocess.DEVNULL,
    )
    assert done.returncode == 2
    assert said in done.stderr and "Traceback" not in done.stderr
