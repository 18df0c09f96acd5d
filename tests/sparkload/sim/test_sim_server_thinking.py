"""The think tag: generated and swallowed with thinking on, never there with thinking off."""

import json
import time

import pytest
import requests
from prometheus_client.parser import text_string_to_metric_families

from tests.servers import running_sim

pytestmark = pytest.mark.e2e  # starts simulator processes

TIMEOUT = 10
THINKING_OFF = {"chat_template_kwargs": {"enable_thinking": False}}


@pytest.fixture(scope="module")
def url():
    with running_sim("--profile", "awq-mtp") as url:  # real time: TTFTs compare as measured
        yield url


def stream(url: str, max_tokens: int, **body) -> tuple[list[dict], float]:
    """The stream's chunks and the client's TTFT in seconds (to the first content delta)."""
    payload = {
        "messages": [{"role": "user", "content": "Tell me about load tests."}],
        "max_tokens": max_tokens,
        "stream": True,
        "stream_options": {"include_usage": True},
        **body,
    }
    sent = time.perf_counter()
    response = requests.post(
        f"{url}/v1/chat/completions", json=payload, timeout=TIMEOUT, stream=True
    )
    chunks, ttft = [], float("nan")
    for line in response.iter_lines():
        if not line.startswith(b"data: ") or line == b"data: [DONE]":
            continue
        chunk = json.loads(line[6:])
        if ttft != ttft and any(c["delta"].get("content") for c in chunk["choices"]):
            ttft = time.perf_counter() - sent
        chunks.append(chunk)
    return chunks, ttft


def content(chunks: list[dict]) -> str:
    return "".join(c["delta"].get("content") or "" for chunk in chunks for c in chunk["choices"])


def server_ttft(url: str) -> tuple[float, float]:
    """(sum, count) of the simulator's TTFT histogram."""
    text = requests.get(f"{url}/metrics", timeout=TIMEOUT).text
    family = next(
        f
        for f in text_string_to_metric_families(text)
        if f.name == "vllm:time_to_first_token_seconds"
    )
    values = {s.name: s.value for s in family.samples}
    return values["vllm:time_to_first_token_seconds_sum"], values[
        "vllm:time_to_first_token_seconds_count"
    ]


def mean_ttfts(url: str, requests_sent: int, **body) -> tuple[float, float]:
    """Mean TTFT of ``requests_sent`` one-by-one requests: (the client's, the server's)."""
    before_sum, before_count = server_ttft(url)
    client = [stream(url, 2, **body)[1] for _ in range(requests_sent)]
    after_sum, after_count = server_ttft(url)
    assert after_count - before_count == requests_sent
    return sum(client) / requests_sent, (after_sum - before_sum) / requests_sent


def test_thinking_off_streams_the_first_generated_token(url):
    chunks, ttft = stream(url, 1, **THINKING_OFF)
    assert content(chunks)
    assert chunks[-1]["usage"]["completion_tokens"] == 1
    assert ttft > 0


def test_thinking_left_on_swallows_the_first_generated_token_as_the_think_tag(url):
    chunks, ttft = stream(url, 1)
    assert content(chunks) == ""
    assert chunks[-1]["usage"]["completion_tokens"] == 1
    assert ttft != ttft  # no visible token, so no TTFT


def test_completions_endpoint_has_no_think_tag(url):
    body = {"prompt": "Tell me about load tests.", "max_tokens": 1}
    reply = requests.post(f"{url}/v1/completions", json=body, timeout=TIMEOUT).json()
    assert reply["choices"][0]["text"]


def test_thinking_off_server_ttft_agrees_with_the_clients(url):
    client, server = mean_ttfts(url, 4, **THINKING_OFF)
    assert abs(client - server) < 0.015  # loopback and the client's own parsing, no engine step


def test_thinking_on_server_ttft_is_one_decode_step_before_the_clients(url):
    """vLLM times TTFT at the engine's first token, the think tag the client never sees."""
    client, server = mean_ttfts(url, 4)
    assert client - server > 0.04  # awq-mtp's C=1 decode step: ~120 ms
