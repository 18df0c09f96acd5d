"""--worker-token: a worker with a wrong token is refused, named, and counts for nothing."""

from __future__ import annotations

import json
import socket

import pytest

from sparkload.records.requests_files import read_records
from tests.conftest import free_port
from tests.processes import processes

pytestmark = pytest.mark.e2e  # a master and two worker processes

TOKEN = "token-0d9c8b7a6f5e4d3c2b1a09f8e7d6c5b4"


@pytest.fixture(scope="module")
def door_run(tmp_path_factory):
    """A master with the token waiting for one worker; a worker with a wrong token comes
    first (and is sent away), then one with the right token."""
    directory = tmp_path_factory.mktemp("door")
    port = str(free_port())
    worker = ["--worker", "--master-port", port]
    with processes(directory) as started:
        started.start(
            "master",
            [
                "--headless",
                "--master",
                "--expect-workers",
                "1",
                "--master-bind-host",
                "127.0.0.1",
                "--master-bind-port",
                port,
                "--ladder",
                "1,2",
                "--requests-per-user",
                "2",
                "--results-dir",
                str(directory / "results"),
            ],
            env={"SPARKLOAD_WORKER_TOKEN": TOKEN},
        )
        started.start("wrong", worker, env={"SPARKLOAD_WORKER_TOKEN": TOKEN[::-1]})
        wrong_code = started.wait("wrong", timeout=60)
        started.start("right", worker, env={"SPARKLOAD_WORKER_TOKEN": TOKEN})
        code = started.wait("master")
        outputs = {name: started.output(name) for name in ("master", "wrong", "right")}
    assert code == 0, outputs["master"]
    (run_dir,) = (directory / "results").iterdir()
    manifest = json.loads((run_dir / "manifest.json").read_text())
    records = read_records(run_dir)
    return wrong_code, outputs, manifest, records


def test_the_wrong_worker_is_refused_and_named_in_the_masters_log_and_manifest(door_run):
    _code, outputs, manifest, _records = door_run
    (refused,) = manifest["refused_workers"]
    assert refused["reason"] == "wrong worker token"
    assert refused["node"].startswith(socket.gethostname() + "_")
    assert f"refused worker {refused['node']}: wrong worker token" in outputs["master"]


def test_the_wrong_worker_leaves_with_exit_code_2_saying_why(door_run):
    code, outputs, _manifest, _records = door_run
    assert code == 2
    assert "the master's proof does not match this worker's token" in outputs["wrong"]


def test_the_run_completes_with_the_right_workers_exact_counts(door_run):
    _code, _outputs, manifest, records = door_run
    assert manifest["status"] == "complete"
    assert [level["received"] for level in manifest["levels"]] == [2, 4]
    assert len(records) == 2 + 4 + 2 and {r["worker"] for r in records} == {"0"}
    assert [w["index"] for w in manifest["workers"]] == [0]
