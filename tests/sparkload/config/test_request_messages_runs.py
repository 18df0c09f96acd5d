"""``--api messages`` end to end (issue 43): a server that speaks Anthropic's stream gets
Anthropic's headers (``x-api-key`` from ``$ANTHROPIC_API_KEY``, ``anthropic-version``, no
``Authorization``) and its figures land in the records exactly as sent; an ``error`` event
mid-stream is a classified failure with nothing lost; the simulator serves the API as it serves
chat."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import run_locust
from tests.servers import Script, scripted

pytestmark = pytest.mark.e2e  # starts Locust and the simulator

STREAM = Path(__file__).parents[1] / "apis" / "data" / "anthropic_messages_thinking_tool.sse"
KEY = "sk-ant-sparkload-test-0123456789"
LADDER = ["--ladder", "1,2", "--requests-per-user", "2", "--max-tokens", "48"]


def answer(body: bytes) -> bytes:
    return (
        b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nServer: scripted\r\n"
        b"Content-Length: %d\r\n\r\n%s" % (len(body), body)
    )


def run_against(server, tmp_path, env: dict | None = None):
    return run_locust(
        ["--headless", "-H", server.url, *LADDER, "--api", "messages", "--no-server-metrics"],
        tmp_path / "results",
        timeout=90,
        env={"OPENAI_API_KEY": "", **(env or {})},
    )


def test_anthropics_stream_lands_in_the_records_as_sent_with_anthropics_headers(tmp_path):
    with scripted(Script(raw_response=answer(STREAM.read_bytes()))) as server:
        run = run_against(server, tmp_path, {"ANTHROPIC_API_KEY": KEY})
    assert run.returncode == 0, run.output
    assert len(run.records) == 2 + 4 + 2  # measured + one warm-up per level
    for r in run.records:
        assert (r["status"], r["finish_reason"], r["tool_calls"], r["tool_args_valid"]) == (
            "ok",
            "tool_calls",
            1,
            True,
        )
        assert (r["prompt_tokens"], r["cached_tokens"], r["output_tokens"]) == (2160, 2048, 37)
        assert (r["reasoning_tokens"], r["reasoning_counted_by"]) == (4, "chunks")
    for head, _ in server.requests:
        lines = head.split("\r\n")
        assert lines[0].startswith("POST /v1/messages ")
        assert f"x-api-key: {KEY}" in lines and "anthropic-version: 2023-06-01" in lines
        assert not any(line.lower().startswith("authorization:") for line in lines)
    assert KEY not in run.output
    for path in (p for p in tmp_path.rglob("*") if p.is_file()):
        assert KEY.encode() not in path.read_bytes(), path


def test_an_error_event_mid_stream_is_a_classified_failure_with_nothing_lost(tmp_path):
    stream = STREAM.read_bytes()
    cut = stream.index(b"event: content_block_start", stream.index(b"text_delta"))
    error = b'event: error\ndata: {"type":"error","error":{"type":"overloaded_error",'
    error += b'"message":"Overloaded"}}\n\n'
    with scripted(Script(raw_response=answer(stream[:cut] + error))) as server:
        run = run_against(server, tmp_path)
    assert len(run.records) == len(server.requests) == 8  # every request has its record
    for r in run.records:
        assert (r["status"], r["error_kind"], r["error"]) == (
            "error",
            "server_error_event",
            "overloaded_error: Overloaded",
        )
        assert (r["chunks"], r["reasoning_tokens"]) == (4 + 3, 4)  # what came before it
        assert r["ttft"] is not None and r["ttfo"] is not None  # the answer had begun


def test_the_simulator_serves_messages_as_it_serves_chat(simulator, tmp_path):
    host = simulator("fixed", 1.0, "--fixed-ttft-ms", "40", "--fixed-itl-ms", "6")
    runs = {
        api: run_locust(["--headless", "-H", host, *LADDER, "--api", api], tmp_path / api)
        for api in ("chat", "messages")
    }
    for run in runs.values():
        assert run.returncode == 0, run.output
    chat, messages = (
        [r for r in runs[api].records if r["phase"] == "measure"] for api in ("chat", "messages")
    )
    assert len(messages) == 6 and all(r["status"] == "ok" for r in messages)
    for record in messages:
        assert record["response_id"].startswith("msg-")
        assert (record["output_tokens"], record["tokens_counted_by"]) == (48, "usage")
        assert record["finish_reason"] == "length"
    assert sorted(r["prompt_tokens"] for r in messages) == sorted(r["prompt_tokens"] for r in chat)
    ttft = [sum(r["ttft"] for r in records) / len(records) for records in (chat, messages)]
    assert 0.5 < ttft[1] / ttft[0] < 2.0, ttft  # the same engine's timing: a loose bound


def test_an_agent_session_runs_its_tool_steps_on_the_messages_api(tmp_path):
    run = run_locust(
        ["--headless", "--workload", "agent", "--tool-turns", "2", "--ladder", "1"]
        + ["--requests-per-user", "1", "--max-tokens", "48", "--api", "messages"]
        + ["--sim-profile", "fixed", "--sim-tool-call-rate", "1"],
        tmp_path / "results",
    )
    assert run.returncode == 0, run.output
    steps = [r for r in run.records if r["phase"] == "measure"]
    assert steps and all(r["status"] == "ok" for r in steps)
    calls = [r for r in steps if r["step"] == "tool_call"]
    assert calls and all(r["tool_calls"] == 1 and r["tool_args_valid"] for r in calls)
    prompts = [r["prompt_tokens"] for r in steps]
    assert prompts == sorted(prompts) and len(set(prompts)) == len(prompts)  # results went back
