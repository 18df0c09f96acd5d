"""The web UI's form, posted as a browser would, without a browser: what a user may type."""

from __future__ import annotations

import subprocess
import time
from pathlib import Path

import pytest
import requests

from sparkload.records.requests_files import read_records
from tests.conftest import free_port, locust_command, wait_until_up

pytestmark = pytest.mark.e2e


def start_web_ui(tmp_path: Path, *extra: str) -> tuple[subprocess.Popen, str]:
    port = free_port()
    process = subprocess.Popen(
        locust_command(
            "--web-port", str(port), "--ladder", "1", "--requests-per-user", "3",
            "--sim-time-scale", "50", "--results-dir", str(tmp_path), *extra,
        ),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        stdin=subprocess.DEVNULL,
        text=True,
    )  # fmt: skip
    url = f"http://127.0.0.1:{port}"
    try:
        wait_until_up(url)
    except AssertionError:
        process.kill()
        raise
    return process, url


def records_written(results: Path, timeout: float) -> int:
    deadline = time.monotonic() + timeout
    count = 0
    while time.monotonic() < deadline:
        count = sum(len(read_records(f.parent)) for f in results.glob("*/manifest.json"))
        if count >= 3:
            break
        time.sleep(0.5)
    return count


def test_an_emptied_host_field_runs_against_the_built_in_simulator(tmp_path):
    process, url = start_web_ui(tmp_path)
    try:
        answer = requests.post(
            url + "/swarm", data={"user_count": 1, "spawn_rate": 1, "host": ""}, timeout=10
        )
        count = records_written(tmp_path, timeout=60)
    finally:
        process.terminate()
        _, stderr = process.communicate(timeout=30)
    assert answer.json()["success"] is True
    assert count >= 3
    assert "Traceback" not in stderr
