"""Server control in whole runs against a scripted server: the cache reset comes before each
level's first request (in a distributed run too), a refusal costs one line and a manifest note
and the run goes on, the profile wraps its level's measured requests, /server_info is kept
redacted, and an unknown --model stops the run before any request."""

from __future__ import annotations

import pytest

from sparkload.records import EXIT_BAD_INPUT
from sparkload.redact import HIDDEN
from tests.conftest import run_locust
from tests.servers import Script, scripted

pytestmark = pytest.mark.e2e  # starts Locust processes

TWO_LEVELS = ["--ladder", "1,2", "--requests-per-user", "1", "--max-tokens", "4"]
CHAT = "/v1/chat/completions"
RESET = "/reset_prefix_cache"
SERVED = {RESET: (200, b'{"success": true}')}
PROFILER = {"/start_profile": (200, b""), "/stop_profile": (200, b"")}


def run_against(server, tmp_path, *args: str):
    return run_locust(
        ["--headless", "-H", server.url, *TWO_LEVELS, "--no-server-metrics", *args],
        tmp_path / "results",
        timeout=90,
    )


def posts(server) -> list[str]:
    return [line.split(" ")[1] for line in server.seen if line.startswith("POST ")]


def test_the_cache_is_reset_before_each_levels_first_request(tmp_path):
    with scripted(Script(tokens=4, routes=SERVED)) as server:
        run = run_against(server, tmp_path, "--reset-prefix-cache")
    assert run.returncode == 0, run.output
    # level 1: its reset, a warm-up, 1 request; level 2: its reset, a warm-up, 2 requests
    assert posts(server) == [RESET, CHAT, CHAT, RESET, CHAT, CHAT, CHAT]
    assert "control" not in run.manifest["servers"][server.url]  # nothing was refused


def test_a_distributed_runs_master_resets_before_each_levels_first_request(tmp_path):
    with scripted(Script(tokens=4, routes=SERVED)) as server:
        run = run_against(server, tmp_path, "--reset-prefix-cache", "--processes", "2")
    assert run.returncode == 0, run.output
    assert run.manifest["client"]["runner"] == "master"
    assert posts(server) == [RESET, CHAT, CHAT, RESET, CHAT, CHAT, CHAT]


def test_a_server_that_refuses_the_reset_costs_one_line_and_a_note_and_the_run_goes_on(tmp_path):
    with scripted(Script(tokens=4)) as server:  # no dev mode: every route of its own is a 404
        run = run_against(server, tmp_path, "--reset-prefix-cache")
    assert run.returncode == 0, run.output
    lines = [line for line in run.output.splitlines() if "refused reset_prefix_cache" in line]
    assert len(lines) == 1, run.output
    notes = run.manifest["servers"][server.url]["control"]
    assert [(note["action"], note["level_index"]) for note in notes] == [
        ("reset_prefix_cache", 0),
        ("reset_prefix_cache", 1),
    ]
    assert "404 Not Found" in notes[0]["problem"]
    assert len(run.records) == 2 + 3  # every request of both levels, warm-ups included


def test_the_profile_wraps_the_chosen_levels_measured_requests(tmp_path):
    with scripted(Script(tokens=4, routes=PROFILER)) as server:
        run = run_against(server, tmp_path, "--server-profile", "2")
    assert run.returncode == 0, run.output
    # level 2 is a warm-up, then its 2 measured requests between the start and the stop
    assert posts(server) == [CHAT, CHAT, CHAT, "/start_profile", CHAT, CHAT, "/stop_profile"]


def test_a_profile_level_beyond_the_plan_is_refused_before_the_load(tmp_path):
    with scripted(Script(tokens=4, routes=PROFILER)) as server:
        run = run_against(server, tmp_path, "--server-profile", "3")
    assert run.returncode == EXIT_BAD_INPUT, run.output
    assert "--server-profile 3: the plan has 2 level(s)" in run.output
    assert posts(server) == []


def test_server_info_is_kept_in_the_manifest_with_its_secrets_hidden(tmp_path):
    said = {"vllm_config": {"model": "m"}, "vllm_env": {"HF_TOKEN": "hf_abcdefghijkl"}}
    with scripted(Script(tokens=4, server_info=said)) as server:
        run = run_against(server, tmp_path, "--api-key", "sk-test-key-123")
    assert run.returncode == 0, run.output
    info = run.manifest["servers"][server.url]["info"]
    assert info == {"vllm_config": {"model": "m"}, "vllm_env": {"HF_TOKEN": HIDDEN}}


def test_a_server_without_server_info_leaves_no_trace_of_it(tmp_path):
    with scripted(Script(tokens=4)) as server:
        run = run_against(server, tmp_path)
    assert run.returncode == 0, run.output
    assert "info" not in run.manifest["servers"][server.url]


def test_an_unknown_model_exits_2_naming_it_and_sends_no_request(tmp_path):
    with scripted(Script(tokens=4, models=("a", "b"))) as server:
        run = run_against(server, tmp_path, "--model", "nope")
    assert run.returncode == EXIT_BAD_INPUT, run.output
    errors = [line for line in run.output.splitlines() if "error" in line.lower()]
    assert errors == [
        f"sparkload: error: --model 'nope' is not served by {server.url}: "
        f"{server.url}/v1/models offers 'a', 'b'"
    ]
    assert posts(server) == []
    assert run.run_dir is None
