"""Each fault kind's wire behaviour, forced per request with the X-Sparkload-Fault header."""

import json
import subprocess
import sys
import textwrap

import pytest
import requests

from tests.servers import running_sim

pytestmark = pytest.mark.e2e  # starts Locust, simulator or server processes

MAX_TOKENS = 8


@pytest.fixture(scope="module")
def url():
    with running_sim("--profile", "fixed", "--fixed-ttft-ms", "5", "--fixed-itl-ms", "1") as url:
        yield url


def send(url: str, fault: str | None = None, read_timeout: float = 10) -> requests.Response:
    headers = {"X-Sparkload-Fault": fault} if fault else {}
    body = {
        "messages": [{"role": "user", "content": "hello"}],
        "max_tokens": MAX_TOKENS,
        "stream": True,
        "stream_options": {"include_usage": True},
    }
    return requests.post(
        f"{url}/v1/chat/completions",
        json=body,
        headers=headers,
        stream=True,
        timeout=(5, read_timeout),
    )


def read_data_lines(response: requests.Response, limit: int = 10_000) -> list[str]:
    lines = []
    for line in response.iter_lines():
        if line.startswith(b"data: "):
            lines.append(line[6:].decode())
        if len(lines) >= limit:
            break
    return lines


def test_no_fault_stream_is_complete(url):
    lines = read_data_lines(send(url))
    assert lines[-1] == "[DONE]"


@pytest.mark.parametrize("kind, status", [("http_500", 500), ("http_429", 429)])
def test_http_faults_answer_with_status_and_error_object(url, kind, status):
    response = send(url, kind)
    assert response.status_code == status
    assert response.json()["error"]["code"] == status


def test_disconnect_breaks_the_connection_mid_stream(url):
    response = send(url, "disconnect")
    lines = []
    with pytest.raises(requests.exceptions.RequestException):
        for line in response.iter_lines():
            lines.append(line)
    assert any(line.startswith(b"data: {") for line in lines)
    assert b"data: [DONE]" not in lines


def test_malformed_sse_sends_one_line_that_is_not_json_then_finishes(url):
    lines = read_data_lines(send(url, "malformed_sse"))
    broken = []
    for line in lines[:-1]:
        try:
            json.loads(line)
        except ValueError:
            broken.append(line)
    assert len(broken) == 1 and broken[0].startswith("{")
    assert lines[-1] == "[DONE]"


def test_error_event_is_an_error_object_in_a_200_stream_then_done(url):
    response = send(url, "error_event")
    lines = read_data_lines(response)
    assert response.status_code == 200
    assert json.loads(lines[-2])["error"]["type"] == "InternalServerError"
    assert lines[-1] == "[DONE]"


def test_stall_stops_sending_and_leaves_the_client_to_time_out(url):
    response = send(url, "stall", read_timeout=1)
    lines = []
    with pytest.raises(requests.exceptions.ConnectionError, match="timed out"):
        for line in response.iter_lines():
            lines.append(line)
    assert b"data: [DONE]" not in lines


def test_no_done_finishes_cleanly_with_usage_but_without_done(url):
    lines = read_data_lines(send(url, "no_done"))
    assert json.loads(lines[-1])["usage"]["completion_tokens"] == MAX_TOKENS
    assert "[DONE]" not in lines


def test_huge_keeps_streaming_past_max_tokens(url):
    response = send(url, "huge")
    lines = read_data_lines(response, limit=10 * MAX_TOKENS)
    response.close()
    assert len(lines) == 10 * MAX_TOKENS and "[DONE]" not in lines


def test_unknown_forced_fault_is_a_400(url):
    assert send(url, "meltdown").status_code == 400


def test_fault_rates_with_a_seed_fail_the_same_requests():
    def statuses() -> list[int]:
        with running_sim(
            "--profile",
            "fixed",
            "--fixed-ttft-ms",
            "1",
            "--fixed-itl-ms",
            "0",
            "--faults",
            "http_500=0.3,http_429=0.2",
            "--fault-seed",
            "9",
        ) as u:
            return [send(u).status_code for _ in range(30)]

    first = statuses()
    assert first == statuses()
    assert {200, 429, 500} == set(first)


LOAD_SIDE_SCRIPT = textwrap.dedent("""
    from gevent import monkey; monkey.patch_all()
    import json, sys
    from sparkload.body import BodyTemplate
    from sparkload.apis.chat import ChatStream
    from sparkload.transport.client import StreamRequest, Connection, build_headers, measure
    from sparkload.records import RequestRecord
    from sparkload.workloads.contract import PlannedRequest
    url, kinds = sys.argv[1], sys.argv[2:]
    out = {}
    for kind in kinds:
        headers = {**build_headers(None), "X-Sparkload-Fault": kind}
        body = BodyTemplate(None, 8).encode(PlannedRequest("hi", 8))
        request = StreamRequest("/v1/chat/completions", body, headers, 2.0, ChatStream)
        record = RequestRecord(kind, 1, 0, "measure", "local", 0, url, "m", 0, 8, 0.0)
        out[kind] = measure(Connection(url, timeout=2.0), request, record).error_kind
    print(json.dumps(out))
""")


def test_each_fault_ends_as_the_right_failure_class_on_the_load_side(url):
    expected = {
        "http_500": "http_500",
        "http_429": "http_429",
        "disconnect": "disconnect",
        "malformed_sse": "malformed_sse",
        "error_event": "server_error_event",
        "stall": "timeout",
        "no_done": "disconnect",
        "huge": "timeout",
    }
    result = subprocess.run(
        [sys.executable, "-c", LOAD_SIDE_SCRIPT, url, *expected],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert json.loads(result.stdout) == expected, result.stderr[-2000:]
