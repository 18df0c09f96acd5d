"""vLLM's per-request ``metrics`` as the simulator serves them: in the usage chunk of a stream
and in a whole body, in vLLM 0.32's shape, and drafted at a category's own rate."""

import json
import subprocess
import sys

import pytest
import requests

from tests.servers import running_sim

pytestmark = pytest.mark.e2e  # starts simulator processes

TIMEOUT = 10
TIMES = {
    "time_to_first_token_ms",
    "queue_time_ms",
    "generation_time_ms",
    "mean_itl_ms",
    "tokens_per_second",
}
SPEC = {
    "mean_acceptance_length",
    "draft_acceptance_rate",
    "acceptance_histogram",
    "num_spec_steps",
    "num_accepted_draft_tokens",
    "num_draft_tokens",
    "num_spec_tokens",
}
K = 3  # fp8-mtp's draft tokens


@pytest.fixture(scope="module")
def mtp_url():
    rates = "coding=0.9,creative=0.3"
    with running_sim(
        "--profile", "fp8-mtp", "--time-scale", "20", "--category-acceptance", rates
    ) as url:
        yield url


def chat(url: str, stream: bool, max_tokens: int = 48, category: str | None = None) -> dict:
    """The request's ``metrics`` (the usage chunk's when streamed) and its completion tokens."""
    body = {
        "messages": [{"role": "user", "content": "Explain queues. " * 20}],
        "max_tokens": max_tokens,
        "stream": stream,
        "stream_options": {"include_usage": True},
    }
    headers = {"X-Sparkload-Category": category} if category else {}
    response = requests.post(
        f"{url}/v1/chat/completions", json=body, headers=headers, timeout=TIMEOUT
    )
    assert response.status_code == 200
    if not stream:
        return response.json()
    events = [line[6:] for line in response.text.splitlines() if line.startswith("data: ")]
    chunks = [json.loads(e) for e in events if e != "[DONE]"]
    assert all("metrics" not in c for c in chunks[:-1])  # only the last, the usage chunk
    return chunks[-1]


def test_the_usage_chunk_carries_vllm_s_metrics(mtp_url):
    last = chat(mtp_url, stream=True)
    assert last["choices"] == [] and last["usage"]["completion_tokens"] == 48
    assert set(last["metrics"]) == TIMES | {"speculative_decoding"}
    assert set(last["metrics"]["speculative_decoding"]) == SPEC


def test_a_whole_body_carries_them_too(mtp_url):
    body = chat(mtp_url, stream=False)
    assert set(body["metrics"]) == TIMES | {"speculative_decoding"}


def test_the_server_s_times_hold_together(mtp_url):
    metrics = chat(mtp_url, stream=True)["metrics"]
    assert metrics["queue_time_ms"] >= 0
    assert metrics["time_to_first_token_ms"] > 0 and metrics["generation_time_ms"] > 0
    decode = metrics["generation_time_ms"]  # vLLM's: first token -> last
    assert metrics["mean_itl_ms"] == pytest.approx(decode / 47, rel=1e-3, abs=1e-2)
    inference = metrics["time_to_first_token_ms"] + decode  # scheduled -> last
    assert metrics["tokens_per_second"] == pytest.approx(48 / inference * 1000, rel=1e-2)


def test_the_histogram_sums_to_the_verify_steps(mtp_url):
    spec = chat(mtp_url, stream=True, max_tokens=120)["metrics"]["speculative_decoding"]
    histogram = spec["acceptance_histogram"]
    assert len(histogram) == K + 1 and spec["num_spec_tokens"] == K
    assert sum(histogram) == spec["num_spec_steps"]
    assert sum(j * n for j, n in enumerate(histogram)) == spec["num_accepted_draft_tokens"]
    assert spec["num_draft_tokens"] == K * spec["num_spec_steps"]
    assert 1 <= spec["mean_acceptance_length"] <= K + 1


def test_the_steps_account_for_the_streamed_tokens(mtp_url):
    """One model of drafting: the steps the histogram counts streamed the reply's tokens (the
    first from the prefill; the last step may be cut at max_tokens)."""
    spec = chat(mtp_url, stream=True, max_tokens=120)["metrics"]["speculative_decoding"]
    drawn = sum((1 + j) * n for j, n in enumerate(spec["acceptance_histogram"]))
    assert 0 <= drawn - (120 - 1) <= K


def mean_length(url: str, category: str | None, requests_: int = 6) -> float:
    """Pooled over the requests: 1 + accepted / steps."""
    accepted = steps = 0
    for _ in range(requests_):
        spec = chat(url, stream=True, max_tokens=150, category=category)["metrics"][
            "speculative_decoding"
        ]
        accepted += spec["num_accepted_draft_tokens"]
        steps += spec["num_spec_steps"]
    return 1 + accepted / steps


def test_two_categories_draft_at_the_rates_set(mtp_url):
    coding, creative = mean_length(mtp_url, "coding"), mean_length(mtp_url, "creative")
    assert coding == pytest.approx(1 + 0.9 + 0.9**2 + 0.9**3, abs=0.25)
    assert creative == pytest.approx(1 + 0.3 + 0.3**2 + 0.3**3, abs=0.25)


def test_a_category_not_listed_drafts_at_the_profile_s_acceptance(mtp_url):
    profile = 1 + 0.86 + 0.86 * 0.82 + 0.86 * 0.82 * 0.78  # fp8-mtp's curve
    assert mean_length(mtp_url, "math") == pytest.approx(profile, abs=0.25)


def test_a_profile_that_does_not_draft_serves_no_speculative_part():
    with running_sim("--profile", "fp8", "--time-scale", "20") as url:
        metrics = chat(url, stream=True)["metrics"]
    assert set(metrics) == TIMES


def test_a_bad_category_acceptance_is_one_line_and_exit_2():
    done = subprocess.run(
        [sys.executable, "-m", "sparkload.sim", "--category-acceptance", "coding=1.5"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2
    assert done.stderr.strip().count("\n") == 0 and "--category-acceptance" in done.stderr


def test_fixed_timing_serves_its_own_schedule():
    """No engine, no queue: the first token at the fixed TTFT, the rest a fixed gap apart."""
    with running_sim("--profile", "fixed", "--fixed-ttft-ms", "80", "--fixed-itl-ms", "5") as url:
        metrics = chat(url, stream=True, max_tokens=11)["metrics"]
    assert metrics["queue_time_ms"] == 0.0
    assert metrics["time_to_first_token_ms"] == pytest.approx(80.0)
    assert metrics["mean_itl_ms"] == pytest.approx(5.0)
    assert "speculative_decoding" not in metrics
