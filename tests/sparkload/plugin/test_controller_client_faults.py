"""Client faults: a lost worker or a killed master never loses the records already made."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import time
from pathlib import Path

import pytest

from sparkload.cli import main as sparkload_main
from sparkload.records.requests_files import read_records
from tests.conftest import free_port, locust_command

pytestmark = pytest.mark.e2e  # starts Locust, simulator or server processes

DEADLINE = 90  # seconds any single process here may run


def wait_for_records(results: Path, count: int, timeout: float = 60) -> Path:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        for path in results.glob("*/manifest.json"):
            if len(read_records(path.parent)) >= count:
                return path.parent
        time.sleep(0.2)
    raise AssertionError(f"fewer than {count} records after {timeout} s")


def start(args: list[str], **kwargs) -> subprocess.Popen:
    return subprocess.Popen(locust_command(*args), stdin=subprocess.DEVNULL, text=True, **kwargs)


def test_a_killed_worker_is_reported_and_the_run_stops_cleanly_keeping_its_records(
    simulator, tmp_path
):
    host = simulator("awq-mtp", 10.0)
    port = str(free_port())
    master = start(
        [
            "--headless",
            "-H",
            host,
            "--master",
            "--expect-workers",
            "2",
            "--master-bind-port",
            port,
            "--ladder",
            "4",
            "--requests-per-user",
            "20",
            "--results-dir",
            str(tmp_path),
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
    )
    workers = [
        start(
            ["--worker", "--master-port", port],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        for _ in range(2)
    ]
    try:
        run_dir = wait_for_records(tmp_path, 4)
        workers[0].send_signal(signal.SIGKILL)
        output, _ = master.communicate(timeout=DEADLINE)
    finally:
        for process in (master, *workers):
            process.kill()
            process.wait()
    assert master.returncode == 3, output
    assert "stopped responding" in output
    manifest = json.loads((run_dir / "manifest.json").read_text())
    assert manifest["status"] == "aborted" and "stopped responding" in manifest["abort_reason"]
    records = read_records(run_dir)
    assert 4 <= len(records) < 1 + 80


def test_a_master_killed_with_sigkill_leaves_readable_records_that_analysis_reports_as_incomplete(
    simulator, tmp_path, capsys
):
    host = simulator("awq-mtp", 10.0)
    port = str(free_port())
    master = start(
        [
            "--headless",
            "-H",
            host,
            "--master",
            "--expect-workers",
            "1",
            "--master-bind-port",
            port,
            "--ladder",
            "4",
            "--requests-per-user",
            "20",
            "--results-dir",
            str(tmp_path / "results"),
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    worker = start(
        ["--worker", "--master-port", port], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    try:
        run_dir = wait_for_records(tmp_path / "results", 6)
        os.kill(master.pid, signal.SIGKILL)
        master.wait(timeout=DEADLINE)
    finally:
        for process in (master, worker):
            process.kill()
            process.wait()
    records = read_records(run_dir)  # killed: the open part's records are its pending lines
    assert len(records) >= 6 and all(record["schema"] == 1 for record in records)
    assert json.loads((run_dir / "manifest.json").read_text())["status"] == "running"
    assert (
        sparkload_main(["report", str(run_dir), "--out", str(tmp_path / "report"), "--no-charts"])
        == 0
    )
    assert "INCOMPLETE" in (tmp_path / "report" / "report.md").read_text()


def test_sigterm_stops_a_headless_run_cleanly_marking_it_stopped(tmp_path):
    run = start(
        [
            "--headless",
            "--ladder",
            "1",
            "--requests-per-user",
            "40",
            "--results-dir",
            str(tmp_path),
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
    )
    try:
        run_dir = wait_for_records(tmp_path, 3)
        run.send_signal(signal.SIGTERM)
        output, _ = run.communicate(timeout=DEADLINE)
    finally:
        run.kill()
        run.wait()
    assert "SIGTERM received" in output and "Traceback" not in output
    assert json.loads((run_dir / "manifest.json").read_text())["status"] == "stopped"
    assert read_records(run_dir) and all(read_records(run_dir))
