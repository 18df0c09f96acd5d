"""Server control's calls against scripted servers: a cache reset (vLLM's route, SGLang's, a
refusal, a reset asked again while blocks are held), /server_info kept redacted, and the run's
ServerControl: a refusal said once, a profile started at its level and stopped where it began."""

from __future__ import annotations

import json
import logging

from sparkload.redact import HIDDEN
from sparkload.run.servercontrol import (
    RESET,
    START_PROFILE,
    STOP_PROFILE,
    ServerControl,
    reset_cache,
    server_info,
)
from sparkload.transport.target import Endpoint
from tests.conftest import free_port
from tests.servers import Script, scripted

DONE = (200, b'{"success": true}')
HELD = (200, b'{"success": false}')
PROFILED = {"/start_profile": (200, b""), "/stop_profile": (200, b"")}


def posts(server) -> list[str]:
    return [line.split(" ")[1] for line in server.seen if line.startswith("POST ")]


def test_a_vllm_reset_is_one_post_to_reset_prefix_cache():
    with scripted(Script(routes={"/reset_prefix_cache": DONE})) as server:
        answer = reset_cache(server.url, {})
    assert answer.done
    assert posts(server) == ["/reset_prefix_cache"]


def test_a_server_without_vllms_route_is_asked_sglangs_flush_cache():
    with scripted(Script(routes={"/flush_cache": (200, b"")})) as server:
        answer = reset_cache(server.url, {})
    assert answer.done
    assert posts(server) == ["/reset_prefix_cache", "/flush_cache"]


def test_a_server_with_neither_route_refuses_with_its_status():
    with scripted(Script(routes={"/reset_prefix_cache": (404, b"{}")})) as server:
        answer = reset_cache(server.url, {})
    assert answer.problem == (
        "POST /reset_prefix_cache: 404 Not Found, POST /flush_cache: 404 Not Found"
    )


def test_a_reset_vllm_could_not_do_yet_is_asked_again_then_refused():
    with scripted(Script(routes={"/reset_prefix_cache": HELD})) as server:
        answer = reset_cache(server.url, {}, tries=2)
    assert answer.problem.startswith("POST /reset_prefix_cache: success=false")
    assert posts(server) == ["/reset_prefix_cache", "/reset_prefix_cache"]


def test_a_server_that_cannot_be_reached_is_a_refusal_not_an_exception():
    answer = reset_cache(f"http://127.0.0.1:{free_port()}", {})
    assert answer.problem.startswith("POST /reset_prefix_cache: ConnectionError")


def test_server_info_is_kept_with_its_secrets_hidden():
    said = {
        "vllm_config": {"model_config": {"model": "m", "hf_token": "hf_abcdefghijklmnop"}},
        "vllm_env": {"VLLM_PORT": 8000, "HF_TOKEN": "hf_abcdefghijklmnop"},
        "system_env": {"env_vars": "OPENAI_API_KEY=sk-run-key-1234 PATH=/usr/bin"},
    }
    with scripted(Script(server_info=said)) as server:
        kept = server_info(server.url, {}, ("sk-run-key-1234",))
    assert kept is not None
    assert kept["vllm_config"]["model_config"] == {"model": "m", "hf_token": HIDDEN}
    assert kept["vllm_env"] == {"VLLM_PORT": 8000, "HF_TOKEN": HIDDEN}
    assert "sk-run-key-1234" not in json.dumps(kept)
    assert "PATH=/usr/bin" in kept["system_env"]["env_vars"]


def test_a_server_without_server_info_gives_nothing():
    with scripted(Script()) as server:
        assert server_info(server.url, {}, ()) is None


def control_of(server, reset: bool = False, profile_level: int = 0) -> ServerControl:
    return ServerControl([Endpoint.parse(server.url)], {}, reset, profile_level)


def test_a_refusal_is_said_once_and_kept_for_every_level(caplog):
    with scripted(Script(routes={"/reset_prefix_cache": (405, b"{}")})) as server:
        control = control_of(server, reset=True)
        with caplog.at_level(logging.WARNING, logger="sparkload"):
            refused = [*control.before_level(0), *control.before_level(1)]
    lines = [r.getMessage() for r in caplog.records if "refused" in r.getMessage()]
    assert len(lines) == 1
    assert f"{server.url} refused {RESET} (POST /reset_prefix_cache: 405 Method" in lines[0]
    assert "POST /flush_cache: 404 Not Found) at level 1" in lines[0]
    assert [(url, r.action, r.level_index) for url, r in refused] == [
        (server.url, RESET, 0),
        (server.url, RESET, 1),
    ]


def test_no_reset_is_asked_without_the_option():
    with scripted(Script(routes={"/reset_prefix_cache": DONE})) as server:
        assert control_of(server).before_level(0) == []
    assert posts(server) == []


def test_the_profile_starts_at_its_level_only_and_stops_when_that_level_is_over():
    with scripted(Script(routes=PROFILED)) as server:
        control = control_of(server, profile_level=2)
        control.measuring(0)
        control.level_over(0)
        assert posts(server) == []
        assert control.measuring(1) == []
        assert posts(server) == ["/start_profile"]
        assert control.level_over(1) == []
    assert posts(server) == ["/start_profile", "/stop_profile"]


def test_a_run_that_ends_inside_the_profiled_level_stops_the_profile():
    with scripted(Script(routes=PROFILED)) as server:
        control = control_of(server, profile_level=1)
        control.measuring(0)
        control.level_over()
    assert posts(server) == ["/start_profile", "/stop_profile"]


def test_a_refused_start_is_not_followed_by_a_stop(caplog):
    with scripted(Script()) as server:  # no profiler: 404
        control = control_of(server, profile_level=1)
        with caplog.at_level(logging.WARNING, logger="sparkload"):
            refused = control.measuring(0) + control.level_over(0)
    assert [(r.action, r.problem) for _, r in refused] == [
        (START_PROFILE, "POST /start_profile: 404 Not Found")
    ]
    assert STOP_PROFILE not in caplog.text
    assert posts(server) == ["/start_profile"]
