"""Secrets stay on the host that uses them: the master sends workers none, a worker uses its
own, and neither the API key nor the worker token crosses the master's port."""

from __future__ import annotations

import json

import pytest

from tests.conftest import free_port
from tests.processes import processes, recording_relay
from tests.servers import Script, scripted

pytestmark = pytest.mark.e2e  # a master and a worker process

MASTERS_KEY = "sk-master-0123456789abcdef"
WORKERS_KEY = "sk-worker-fedcba9876543210"
TOKEN = "token-5f0b8d2e4c6a41f3b9d7e5c3a1f2e4d6"


def master_args(url: str, port: int, results: str) -> list[str]:
    return [
        "--headless",
        "--master",
        "--expect-workers",
        "1",
        "--master-bind-host",
        "127.0.0.1",
        "--master-bind-port",
        str(port),
        "-H",
        url,
        "--api-key",
        MASTERS_KEY,
        "--ladder",
        "1,2",
        "--requests-per-user",
        "2",
        "--max-tokens",
        "8",
        "--results-dir",
        results,
    ]


@pytest.fixture(scope="module")
def keyless_worker_run(tmp_path_factory):
    """A master with --api-key and --worker-token; a worker with the token and no key, through
    a relay that keeps every byte between them."""
    directory = tmp_path_factory.mktemp("keyless")
    port = free_port()
    with scripted(Script(tokens=8)) as server, recording_relay(port) as (relay_port, seen):
        with processes(directory) as started:
            started.start(
                "master",
                master_args(server.url, port, str(directory / "results")),
                env={"SPARKLOAD_WORKER_TOKEN": TOKEN},
            )
            started.start(
                "worker",
                ["--worker", "--master-port", str(relay_port)],
                env={"SPARKLOAD_WORKER_TOKEN": TOKEN},
            )
            code = started.wait("master")
            outputs = started.output("master"), started.output("worker")
        assert code == 0, outputs[0]
        return server, bytes(seen), outputs


def from_the_worker(server) -> list[str]:
    """The heads of every request the worker sent: the run's POSTs, and the GETs that open its
    users' connections (they accept an event stream; the master's look-ups do not)."""
    warm_ups = [head for head in server.lookups if "text/event-stream" in head]
    return [head for head, _body in server.requests] + warm_ups


def test_no_request_the_server_receives_from_the_worker_carries_the_masters_key(
    keyless_worker_run,
):
    server, _seen, _outputs = keyless_worker_run
    assert len(server.requests) == 2 + 4 + 2  # every request of the run, warm-ups included
    assert not [head for head in from_the_worker(server) if MASTERS_KEY in head]
    assert not [head for head in from_the_worker(server) if "authorization" in head.lower()]


def test_the_master_uses_its_own_key_for_what_it_asks_the_target(keyless_worker_run):
    server, _seen, _outputs = keyless_worker_run
    own = [head for head in server.lookups if "text/event-stream" not in head]
    assert any("GET /v1/models" in head for head in own)
    assert all(f"Bearer {MASTERS_KEY}" in head for head in own)


def test_neither_the_key_nor_the_token_crosses_the_masters_port(keyless_worker_run):
    server, seen, _outputs = keyless_worker_run
    assert server.url.encode() in seen  # the relay did carry the run's options
    assert MASTERS_KEY.encode() not in seen
    assert TOKEN.encode() not in seen


def test_a_keyless_worker_says_its_requests_carry_no_key(keyless_worker_run):
    _server, _seen, (_master, worker) = keyless_worker_run
    assert "this worker none of its own: its requests carry no API key" in worker


def test_a_worker_sends_the_key_of_its_own_secrets_file(tmp_path):
    secrets = tmp_path / "worker.env"
    secrets.write_text(f"OPENAI_API_KEY={WORKERS_KEY}\n")
    port = free_port()
    with scripted(Script(tokens=8)) as server, processes(tmp_path) as started:
        started.start("master", master_args(server.url, port, str(tmp_path / "results")))
        started.start(
            "worker", ["--worker", "--master-port", str(port), "--secrets-file", str(secrets)]
        )
        code = started.wait("master")
        output = started.output("master")
    assert code == 0, output
    heads = from_the_worker(server)
    assert heads and all(f"Bearer {WORKERS_KEY}" in head for head in heads)
    manifest = json.loads(next((tmp_path / "results").glob("*/manifest.json")).read_text())
    assert manifest["workers"][0]["secrets"] == {"api_key": True, "headers": []}
