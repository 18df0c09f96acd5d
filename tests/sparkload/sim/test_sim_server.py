"""The HTTP shell: routes, the SSE stream's shape, metrics, process behaviour."""

import json
import signal
import subprocess
import sys

import pytest
import requests
import sseclient
from prometheus_client.parser import text_string_to_metric_families

from tests.servers import READY_PREFIX, running_sim

pytestmark = pytest.mark.e2e  # starts Locust, simulator or server processes

TIMEOUT = 10


@pytest.fixture(scope="module")
def mtp_url():
    with running_sim("--profile", "fp8-mtp", "--time-scale", "50") as url:
        yield url


def chat(url: str, **body) -> requests.Response:
    payload = {
        "messages": [{"role": "user", "content": "Tell me about load tests. " * 20}],
        "max_tokens": 24,
        **body,
    }
    return requests.post(
        f"{url}/v1/chat/completions", json=payload, timeout=TIMEOUT, stream=bool(body.get("stream"))
    )


def sse_payloads(response: requests.Response) -> list[str]:
    """Event data as an independent SSE parser (sseclient-py) reads it, not our own reader."""
    return [event.data for event in sseclient.SSEClient(response.iter_content(None)).events()]


def stream_chunks(url: str, **body) -> list:
    response = chat(url, stream=True, **body)
    assert response.status_code == 200
    return [p if p == "[DONE]" else json.loads(p) for p in sse_payloads(response)]


def test_stream_starts_with_a_role_chunk_then_the_first_token(mtp_url):
    chunks = stream_chunks(mtp_url)
    assert chunks[0]["choices"][0]["delta"] == {"role": "assistant", "content": ""}
    assert chunks[1]["choices"][0]["delta"]["content"]


def test_stream_ends_with_finish_reason_usage_and_done(mtp_url):
    chunks = stream_chunks(mtp_url, stream_options={"include_usage": True})
    assert chunks[-3]["choices"][0]["finish_reason"] == "length"
    assert chunks[-2]["choices"] == [] and chunks[-2]["usage"]["completion_tokens"] == 24
    assert chunks[-1] == "[DONE]"


def test_stream_without_include_usage_has_no_usage_chunk(mtp_url):
    chunks = stream_chunks(mtp_url)
    assert all("usage" not in c for c in chunks[:-1])


def test_mtp_stream_carries_several_tokens_in_some_chunks(mtp_url):
    chunks = stream_chunks(
        mtp_url,
        max_tokens=64,
        stream_options={"include_usage": True, "continuous_usage_stats": True},
    )
    counts = [c["usage"]["completion_tokens"] for c in chunks[1:-2]]
    steps = [b - a for a, b in zip(counts, counts[1:], strict=False)]
    assert max(steps) > 1
    assert counts[-1] == 64


def test_reasoning_tokens_come_first_when_thinking_is_enabled(mtp_url):
    chunks = stream_chunks(mtp_url, max_tokens=60, chat_template_kwargs={"enable_thinking": True})
    deltas = [c["choices"][0]["delta"] for c in chunks[1:-1]]
    kinds = ["reasoning" if "reasoning" in d else "content" for d in deltas if d]
    assert kinds[0] == "reasoning" and kinds[-1] == "content"
    assert kinds == sorted(kinds, key=lambda k: k == "content")


def test_repeated_prompt_reports_cached_tokens(mtp_url):
    # ~680 tokens: longer than one 512-token page of the hybrid model, so one page is reusable
    body = {
        "messages": [{"role": "user", "content": "A repeated prompt of some length. " * 80}],
        "max_tokens": 4,
    }
    chat(mtp_url, **body)
    usage = chat(mtp_url, **body).json()["usage"]
    assert usage["prompt_tokens_details"]["cached_tokens"] > 0


def test_non_streaming_response_is_a_chat_completion(mtp_url):
    body = chat(mtp_url).json()
    assert body["object"] == "chat.completion"
    assert body["choices"][0]["message"]["role"] == "assistant"
    assert body["usage"]["completion_tokens"] == 24


def test_wrong_model_is_404_with_an_openai_error(mtp_url):
    response = chat(mtp_url, model="gpt-4")
    assert response.status_code == 404
    assert response.json()["error"]["type"] == "NotFoundError"


def test_missing_messages_is_400(mtp_url):
    response = requests.post(
        f"{mtp_url}/v1/chat/completions", json={"max_tokens": 3}, timeout=TIMEOUT
    )
    assert response.status_code == 400


def test_models_lists_the_served_model(mtp_url):
    body = requests.get(f"{mtp_url}/v1/models", timeout=TIMEOUT).json()
    assert body["object"] == "list"
    assert [m["id"] for m in body["data"]] == ["qwen3.6-27b-fp8-mtp"]


def test_health_is_ok(mtp_url):
    assert requests.get(f"{mtp_url}/health", timeout=TIMEOUT).status_code == 200


def test_metrics_parse_and_carry_vllm_names(mtp_url):
    chat(mtp_url)
    text = requests.get(f"{mtp_url}/metrics", timeout=TIMEOUT).text
    samples = {s.name for f in text_string_to_metric_families(text) for s in f.samples}
    assert {
        "vllm:num_requests_running",
        "vllm:num_requests_waiting",
        "vllm:kv_cache_usage_perc",
        "vllm:prompt_tokens_total",
        "vllm:generation_tokens_total",
        "vllm:prefix_cache_queries_total",
        "vllm:prefix_cache_hits_total",
        "vllm:time_to_first_token_seconds_bucket",
        "vllm:inter_token_latency_seconds_bucket",
        "vllm:e2e_request_latency_seconds_count",
        "vllm:spec_decode_num_drafts_total",
        "vllm:spec_decode_num_draft_tokens_total",
        "vllm:spec_decode_num_accepted_tokens_total",
        "vllm:spec_decode_num_accepted_tokens_per_pos_total",
    } <= samples


def test_metrics_acceptance_counters_give_the_profiles_tokens_per_step(mtp_url):
    from sparkload.sim.profiles import get_profile

    chat(mtp_url, max_tokens=1500)
    text = requests.get(f"{mtp_url}/metrics", timeout=TIMEOUT).text
    values = {
        (s.name, s.labels.get("position")): s.value
        for f in text_string_to_metric_families(text)
        for s in f.samples
    }
    drafts = values[("vllm:spec_decode_num_drafts_total", None)]
    accepted = values[("vllm:spec_decode_num_accepted_tokens_total", None)]
    per_pos = [
        values[("vllm:spec_decode_num_accepted_tokens_per_pos_total", str(i))] for i in range(3)
    ]
    assert per_pos == sorted(per_pos, reverse=True) and sum(per_pos) == accepted
    expected = get_profile("fp8-mtp").spec.expected_tokens_per_step()
    assert abs(1 + accepted / drafts - expected) < 0.15


def test_non_mtp_profile_has_no_spec_decode_metrics():
    with running_sim("--profile", "nvfp4", "--time-scale", "50") as url:
        text = requests.get(f"{url}/metrics", timeout=TIMEOUT).text
    assert "vllm:num_requests_running" in text and "spec_decode" not in text


@pytest.mark.parametrize("tp", ["2", "4"])
def test_tp_profiles_serve(tp):
    with running_sim("--profile", "nvfp4-mtp", "--tp", tp, "--time-scale", "50") as url:
        assert chat(url, max_tokens=8).json()["usage"]["completion_tokens"] == 8


def test_reasoning_field_can_use_the_old_name():
    with running_sim(
        "--profile",
        "fixed",
        "--fixed-itl-ms",
        "1",
        "--reasoning-tokens",
        "3",
        "--reasoning-field",
        "reasoning_content",
    ) as url:
        chunks = stream_chunks(url, max_tokens=5)
    assert "reasoning_content" in chunks[1]["choices"][0]["delta"]


def test_timing_log_has_one_line_per_request(tmp_path):
    log = tmp_path / "timing.jsonl"
    with running_sim("--profile", "fixed", "--fixed-itl-ms", "1", "--timing-log", str(log)) as url:
        for _ in range(3):
            assert chat(url, stream=True, max_tokens=5).content.endswith(b"data: [DONE]\n\n")
    lines = [json.loads(line) for line in log.read_text().splitlines()]
    assert len(lines) == 3
    assert lines[0]["tokens"] == 5 and lines[0]["chunks"] == 5
    assert lines[0]["server_ttft_s"] > 0 and lines[0]["mean_chunk_gap_s"] > 0


def test_bad_fault_spec_exits_2_with_one_line():
    result = subprocess.run(
        [sys.executable, "-m", "sparkload.sim", "--faults", "boom=0.1"],
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
    )
    assert result.returncode == 2
    assert len(result.stderr.strip().splitlines()) == 1
    assert "boom" in result.stderr


def test_sigterm_ends_the_server_with_exit_code_0():
    proc = subprocess.Popen(
        [sys.executable, "-m", "sparkload.sim", "--port", "0"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert proc.stdout.readline().startswith(READY_PREFIX)
    proc.send_signal(signal.SIGTERM)
    assert proc.wait(timeout=TIMEOUT) == 0
    assert proc.stderr.read() == ""
