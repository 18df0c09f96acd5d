"""What a user sets on the requests reaches the server, end to end through Locust; what the
path does to the streams is flagged per level."""

from __future__ import annotations

import json
from collections import Counter

import pytest

from sparkload.cli import main as sparkload_main
from tests.conftest import run_locust
from tests.servers import Script, scripted

pytestmark = pytest.mark.e2e  # starts Locust processes

TENANT = "t1-tenant-secret-9f8e7d"
LADDER = ["--ladder", "1,2", "--requests-per-user", "2", "--max-tokens", "4"]


def run_against(server, tmp_path, *args: str):
    return run_locust(
        ["--headless", "-H", server.url, *LADDER, "--no-server-metrics", *args],
        tmp_path / "results",
        timeout=90,
    )


def posts(server) -> list[tuple[str, dict]]:
    return [(head, json.loads(body)) for head, body in server.requests]


def test_extra_body_and_header_arrive_in_every_request(tmp_path):
    extra = '{"chat_template_kwargs": {"enable_thinking": false}, "temperature": 0}'
    with scripted(Script(tokens=4)) as server:
        run = run_against(
            server, tmp_path, "--extra-body", extra, "--header", f"X-Tenant: {TENANT}"
        )
    assert run.returncode == 0, run.output
    sent = posts(server)
    assert len(sent) == len(run.records) == 2 + 4 + 2  # measured + one warm-up per level
    for head, body in sent:
        assert f"X-Tenant: {TENANT}" in head.split("\r\n")
        assert body["chat_template_kwargs"] == {"enable_thinking": False}
        assert body["temperature"] == 0
    request = run.manifest["request"]
    assert (request["headers"], request["extra_body"]["temperature"]) == (["X-Tenant"], 0)


def test_a_header_value_appears_in_no_output(tmp_path):
    with scripted(Script(tokens=4)) as server:
        run = run_against(
            server, tmp_path, "--header", f"X-Tenant: {TENANT}", "--csv", str(tmp_path / "loc")
        )
    assert run.returncode == 0, run.output
    assert TENANT not in run.output
    files = [p for p in tmp_path.rglob("*") if p.is_file()]
    assert len(files) >= 5
    for path in files:
        assert TENANT.encode() not in path.read_bytes(), path


def test_a_malformed_extra_body_is_one_line_and_exit_2_before_anything_is_sent(tmp_path):
    with scripted(Script(tokens=4)) as server:
        run = run_against(server, tmp_path, "--extra-body", '{"temperature": 0,}')
    assert run.returncode == 2
    errors = [line for line in run.output.splitlines() if "error" in line.lower()]
    assert errors == [errors[0]] and "--extra-body: not valid JSON" in errors[0], run.output
    assert "Traceback" not in run.output
    assert server.requests == []


def test_completions_run_the_ladder_with_exact_counts(tmp_path):
    with scripted(Script(tokens=4, api="completions")) as server:
        run = run_against(server, tmp_path, "--api", "completions")
    assert run.returncode == 0, run.output
    assert Counter((r["level"], r["phase"]) for r in run.records) == {
        (1, "measure"): 2,
        (2, "measure"): 4,
        (1, "warmup"): 1,
        (2, "warmup"): 1,
    }
    assert all(r["status"] == "ok" and r["output_tokens"] == 4 for r in run.records)
    assert all(h.startswith("POST /v1/completions ") and "prompt" in b for h, b in posts(server))


def test_a_collapsed_stream_is_flagged_on_its_level(tmp_path):
    with scripted(Script(tokens=4, hold=0.3, collapse=True)) as server:
        run = run_against(server, tmp_path)
    assert run.returncode == 0, run.output
    for record in run.records:
        assert record["ttft"] <= record["latency"]
        assert record.get("itl") is None or record["itl"] >= 0  # None: no gap was measured
    for level in run.manifest["levels"]:
        assert any(flag.startswith("collapsed stream") for flag in level["stream_flags"]), level
    assert "(C=1) stream check: collapsed stream" in run.output


def test_a_normal_stream_raises_no_stream_flag(tmp_path):
    with scripted(Script(tokens=4, gap=0.004, prefill=0.02)) as server:
        run = run_against(server, tmp_path)
    assert run.returncode == 0, run.output
    assert [level["stream_flags"] for level in run.manifest["levels"]] == [[], []]


def test_the_servers_identity_and_version_are_in_the_manifest(tmp_path):
    with scripted(Script(tokens=4)) as server:
        run = run_against(server, tmp_path, "--metadata", "rack=b7")
    entry = run.manifest["servers"][server.url]
    # the look-up's Server header, and the Via of the streamed responses
    assert entry["headers"] == {"server": "scripted", "via": "1.1 test-proxy"}
    assert (entry["version"], entry["version_source"]) == ("9.9.9-scripted", "/version")
    assert run.manifest["metadata"] == {"rack": "b7"}


def test_a_level_served_from_the_prompt_cache_is_flagged_in_the_report(tmp_path):
    with scripted(Script(tokens=4, cached_prompt=True)) as server:
        run = run_against(server, tmp_path)
    assert run.returncode == 0, run.output
    assert all(r["cached_tokens"] == r["prompt_tokens"] == 5 for r in run.records)
    assert sparkload_main(["report", str(run.run_dir), "--no-charts", "--quiet"]) == 0
    report = (run.run_dir / "report" / "report.md").read_text()
    assert "of the prompt tokens were served from the prompt cache" in report
    assert "prompts **reused**" in report


def test_with_cache_bust_no_prompt_text_is_sent_twice_across_two_runs(tmp_path):
    with scripted(Script(tokens=4)) as server:
        for _ in range(2):
            assert run_against(server, tmp_path, "--cache-bust").returncode == 0
    prompts = [body["messages"][0]["content"] for _, body in posts(server)]
    assert len(prompts) == 2 * 8 and len(set(prompts)) == len(prompts)


def test_without_cache_bust_the_chat_prompts_are_reused_across_runs(tmp_path):
    with scripted(Script(tokens=4)) as server:
        for _ in range(2):
            assert run_against(server, tmp_path).returncode == 0
    prompts = [body["messages"][0]["content"] for _, body in posts(server)]
    assert len(set(prompts)) < len(prompts)
