"""The whole path, end to end through Locust: a partly buffered stream is flagged and fails
--check, gateways are named from their streamed responses, and a proxy's refusal before the load
names the proxy."""

from __future__ import annotations

import pytest

from sparkload.records import EXIT_BAD_INPUT, EXIT_CHECK_FAILED, STREAM_PARTIAL_BURST
from tests.conftest import run_locust
from tests.servers import NGINX_502, Script, scripted

pytestmark = pytest.mark.e2e  # starts Locust processes

# Headers held until 40 of 64 tokens are made (10 ms each), then headers and those 40 events in
# one write, the rest one every 10 ms; and the same server streaming every token as it is made.
PARTLY_BUFFERED = Script(tokens=64, gap=0.01, prefill=0.01, burst=40)
STREAMING = Script(tokens=64, gap=0.01, prefill=0.01)
ONE_LEVEL = ["--ladder", "2", "--requests-per-user", "2", "--max-tokens", "64"]


def run_against(server, tmp_path, *args: str):
    return run_locust(
        ["--headless", "-H", server.url, *ONE_LEVEL, "--no-server-metrics", *args],
        tmp_path / "results",
        timeout=90,
    )


def check_lines(output: str) -> list[str]:
    return [line for line in output.splitlines() if line.startswith("check ")]


def test_a_partly_buffered_stream_is_flagged_and_fails_a_check_its_figures_would_pass(tmp_path):
    with scripted(PARTLY_BUFFERED) as server:
        run = run_against(server, tmp_path, "--check", "ttft_p90_ms<=100000")
    assert run.returncode == EXIT_CHECK_FAILED, run.output
    (level,) = run.manifest["levels"]
    assert STREAM_PARTIAL_BURST in level["stream_flag_kinds"]
    assert "40 of 64 tokens of the median request arrived in one burst" in level["stream_flags"][0]
    (line,) = check_lines(run.output)
    assert line.startswith("check failed: ")
    assert "C=2: stream check: partial burst: 40 of 64" in line
    assert "level 1 (C=2) stream check: partial burst" in run.output  # the console said it too


def test_the_same_server_streaming_passes_the_same_check(tmp_path):
    with scripted(STREAMING) as server:
        run = run_against(server, tmp_path, "--check", "ttft_p90_ms<=100000")
    assert run.returncode == 0, run.output
    assert run.manifest["levels"][0]["stream_flags"] == []
    assert check_lines(run.output) == ["check passed: 1 bound holds at every level (1 level)"]
    assert "C=2) stream check" not in run.output  # no flag, no warning


def test_stream_flags_is_a_bound_a_clean_stream_holds(tmp_path):
    with scripted(STREAMING) as server:
        run = run_against(server, tmp_path, "--check", "stream_flags<=0")
    assert run.returncode == 0, run.output
    assert check_lines(run.output) == ["check passed: 1 bound holds at every level (1 level)"]


def test_a_gateway_that_names_itself_only_on_streamed_responses_is_in_the_manifest(tmp_path):
    script = Script(tokens=4, extra_headers=b"Server: scripted\r\nx-litellm-version: 9.9.9\r\n")
    with scripted(script) as server:
        run = run_against(server, tmp_path, "--max-tokens", "4")
    assert run.returncode == 0, run.output
    headers = run.manifest["servers"][server.url]["headers"]
    assert headers == {"server": "scripted", "x-litellm-version": "9.9.9"}


NGINX_502_RESPONSE = (
    b"HTTP/1.1 502 Bad Gateway\r\nServer: nginx/1.22.1\r\nContent-Type: text/html\r\n"
    b"Content-Length: %d\r\n\r\n%s" % (len(NGINX_502), NGINX_502)
)


def test_a_proxy_answering_502_to_everything_stops_the_run_before_the_load_naming_it(tmp_path):
    script = Script(raw_response=NGINX_502_RESPONSE, raw_for_lookups=True)
    with scripted(script) as server:
        run = run_against(server, tmp_path)
    assert run.returncode == EXIT_BAD_INPUT
    errors = [line for line in run.output.splitlines() if line.startswith("sparkload: error:")]
    assert errors == [
        f"sparkload: error: nginx/1.22.1 answered 502 Bad Gateway for {server.url}/v1/models: "
        "the model server behind it is down?"
    ]
    assert "Traceback" not in run.output and server.requests == []
