"""A run stopped before its plan finished (Ctrl-C, SIGTERM) exits 130, never 0: its manifest
says "stopped" and every request that finished is in its records."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
import requests

from sparkload.records import EXIT_INTERRUPTED
from sparkload.records.requests_files import read_records
from tests.conftest import ROOT, free_port, locust_command, wait_until_up

pytestmark = pytest.mark.e2e  # starts Locust and the simulator

DEADLINE = 90  # seconds the stopped run may take to close
SPARKLOAD = [sys.executable, "-m", "sparkload.cli", "run"]
LADDER = ["--headless", "--ladder", "1,2,4", "--requests-per-user", "3"]


def wait_for_records(results: Path, count: int, timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        for path in results.glob("*/manifest.json"):
            if len(read_records(path.parent)) >= count:
                return
        time.sleep(0.1)
    raise AssertionError(f"fewer than {count} records after {timeout} s")


def stop_mid_ladder(command: list[str], stop: signal.Signals, tmp_path: Path) -> tuple[int, str]:
    """Start the run, send ``stop`` once its first records are in, return its exit and output.
    SIGINT is restored in the child: a shell's background job starts with it ignored."""
    run = subprocess.Popen(
        [
            *command,
            *LADDER,
            "--results-dir",
            str(tmp_path),
            "--json-file",
            str(tmp_path / "locust"),
        ],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        cwd=ROOT,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    try:
        wait_for_records(tmp_path, 2)
        run.send_signal(stop)
        output, _ = run.communicate(timeout=DEADLINE)
    finally:
        run.kill()
        run.wait()
    return run.returncode, output


def locust_end_to_end_count(tmp_path: Path) -> int:
    """Requests Locust counted (its E2E rows, warm-up included, as the records are), from the
    JSON it writes once its users have stopped."""
    entries = json.loads((tmp_path / "locust.json").read_text())
    return sum(entry["num_requests"] for entry in entries if entry["method"] == "E2E")


def assert_stopped_with_every_record(tmp_path: Path) -> None:
    (manifest,) = tmp_path.glob("*/manifest.json")
    assert json.loads(manifest.read_text())["status"] == "stopped"
    records = read_records(manifest.parent)
    assert len(records) == locust_end_to_end_count(tmp_path) > 0


def test_ctrl_c_mid_ladder_exits_130_with_the_run_stopped_and_its_records_kept(tmp_path):
    code, output = stop_mid_ladder(SPARKLOAD, signal.SIGINT, tmp_path)
    assert code == EXIT_INTERRUPTED, output
    assert_stopped_with_every_record(tmp_path)


def test_sigterm_mid_ladder_exits_130_as_ctrl_c_does(tmp_path):
    code, output = stop_mid_ladder(SPARKLOAD, signal.SIGTERM, tmp_path)
    assert code == EXIT_INTERRUPTED, output
    assert_stopped_with_every_record(tmp_path)


def test_ctrl_c_under_plain_locust_exits_130_too(tmp_path):
    code, output = stop_mid_ladder(locust_command(), signal.SIGINT, tmp_path)
    assert code == EXIT_INTERRUPTED, output
    assert_stopped_with_every_record(tmp_path)


def test_ctrl_c_during_a_web_ui_run_closes_it_stopped_before_the_simulator_goes(tmp_path):
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    run = subprocess.Popen(
        [*SPARKLOAD, "--web-port", str(port), "--results-dir", str(tmp_path)],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    try:
        wait_until_up(url)
        requests.post(
            url + "/swarm", data={"ladder": "1,2,4", "requests_per_user": "20"}, timeout=10
        )
        wait_for_records(tmp_path, 3)
        run.send_signal(signal.SIGINT)
        output, _ = run.communicate(timeout=DEADLINE)
    finally:
        run.kill()
        run.wait()
    assert run.returncode == EXIT_INTERRUPTED, output
    (manifest,) = tmp_path.glob("*/manifest.json")
    assert json.loads(manifest.read_text())["status"] == "stopped"
    records = read_records(manifest.parent)
    assert [r for r in records if r["status"] != "ok"] == []  # no request cut by a gone target
