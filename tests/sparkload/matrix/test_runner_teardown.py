"""A target's teardown command: run after the target whatever happened, so no server outlives
the matrix."""

from __future__ import annotations

import shlex
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
import requests

from sparkload.matrix import runner
from tests.conftest import ROOT, free_port
from tests.matrix_helpers import (
    FAST,
    SPARKLOAD,
    default_sigint,
    run_sparkload,
    summary,
    write_matrix,
)

pytestmark = pytest.mark.e2e  # starts Locust, simulator or server processes


def served_target(folder: Path, label: str) -> dict:
    """An endpoints target whose deploy command starts a simulator in the background, as a
    serve script starts vLLM, and whose teardown command stops it."""
    port = free_port()
    pid = folder / f"{label}.pid"
    sim = [sys.executable, "-m", "sparkload.sim", "--port", str(port), "--time-scale", "40"]
    return {
        "label": label,
        "variant": "fp8",
        "endpoints": [f"http://127.0.0.1:{port}"],
        "deploy": f"{shlex.join(sim)} > {folder / label}.log 2>&1 & echo $! > {pid}",
        "health_timeout": 60,
        "teardown": f"kill $(cat {pid}) && echo {label} stopped",
    }


def stays_down(url: str, within_s: float = 10.0) -> bool:
    """Whether ``url`` stops answering within ``within_s`` (a stopped server closes its port)."""
    deadline = time.monotonic() + within_s
    while time.monotonic() < deadline:
        try:
            requests.get(f"{url}/health", timeout=1)
        except requests.exceptions.ConnectionError:
            return True
        time.sleep(0.2)
    return False


@pytest.fixture(scope="module")
def served_matrix(tmp_path_factory):
    root = tmp_path_factory.mktemp("served-matrix")
    target = served_target(root, "served")
    path = write_matrix(
        root / "m.yaml",
        {**FAST, "ladder": [1], "results_dir": str(root / "results"), "targets": [target]},
    )
    return run_sparkload("matrix", str(path)), root / "results", target["endpoints"][0]


def test_the_teardown_command_stops_the_server_the_deploy_command_started(served_matrix):
    finished, results, url = served_matrix
    assert finished.returncode == 0, finished.stdout + finished.stderr
    assert summary(results)["served"]["status"] == "complete"
    assert stays_down(url)


def test_the_teardown_command_runs_after_the_run_and_its_output_is_logged(served_matrix):
    finished, results, _ = served_matrix
    log = (results / "logs" / "served.log").read_text()
    assert log.index("$ ") < log.index("served stopped")
    assert "tearing down: kill" in finished.stdout


def test_a_target_skipped_by_its_health_check_is_torn_down_too(tmp_path):
    marker = tmp_path / "torn-down"
    target = {
        "label": "down",
        "variant": "fp8",
        "endpoints": [f"http://127.0.0.1:{free_port()}"],
        "health_timeout": 1,
        "teardown": f"touch {marker}",
    }
    path = write_matrix(
        tmp_path / "m.yaml", {**FAST, "results_dir": str(tmp_path / "results"), "targets": [target]}
    )
    assert run_sparkload("matrix", str(path)).returncode == 1
    assert summary(tmp_path / "results")["down"]["status"] == "skipped"
    assert marker.exists()


def test_a_failing_teardown_command_is_in_the_summary(tmp_path):
    target = {
        "label": "down",
        "variant": "fp8",
        "endpoints": [f"http://127.0.0.1:{free_port()}"],
        "health_timeout": 1,
        "teardown": "echo no such server; exit 3",
    }
    path = write_matrix(
        tmp_path / "m.yaml", {**FAST, "results_dir": str(tmp_path / "results"), "targets": [target]}
    )
    run_sparkload("matrix", str(path))
    reason = summary(tmp_path / "results")["down"]["reason"]
    assert reason.endswith("; teardown command failed (exit 3): no such server")


def test_ctrl_c_during_a_run_still_tears_the_target_down(tmp_path):
    target = served_target(tmp_path, "served")
    path = write_matrix(
        tmp_path / "m.yaml",
        {
            **FAST,
            "ladder": [1, 2, 4],
            "requests_per_user": 20,
            "results_dir": str(tmp_path / "results"),
            "targets": [target],
        },
    )
    proc = subprocess.Popen(
        [SPARKLOAD, "matrix", str(path)],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        stdin=subprocess.DEVNULL,
        text=True,
        cwd=ROOT,
        preexec_fn=default_sigint,
    )
    output = []
    try:
        deadline = time.monotonic() + 60
        for line in proc.stdout:  # wait until the run is under load
            output.append(line)
            if "sparkload run " in line or time.monotonic() > deadline:
                break
        proc.send_signal(signal.SIGINT)
        output.append(proc.communicate(timeout=60)[0])
    finally:
        proc.kill()
    assert proc.returncode == runner.EXIT_INTERRUPTED, "".join(output)
    assert summary(tmp_path / "results")["served"]["status"] == "stopped"
    assert stays_down(target["endpoints"][0])
