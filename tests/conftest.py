"""Shared fixtures: a simulator on 127.0.0.1 and a way to run Locust on it as a user would."""

from __future__ import annotations

import contextlib
import json
import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import locust  # noqa: F401 - gevent-patches the process first, as in every Locust process
import psutil
import pytest
import requests

from sparkload.records.requests_files import read_records
from sparkload.run.simulator_process import SimulatorProcess

ROOT = Path(__file__).resolve().parent.parent
LOCUSTFILE = ROOT / "locustfiles" / "chat.py"
LOCUST = str(Path(sys.executable).with_name("locust"))


@dataclass
class LocustRun:
    returncode: int
    output: str
    run_dir: Path | None

    @property
    def records(self) -> list[dict]:
        return read_records(self.run_dir)

    @property
    def manifest(self) -> dict:
        return json.loads((self.run_dir / "manifest.json").read_text())


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture
def simulator():
    """Start simulators on demand: ``simulator(profile, time_scale, *extra_args) -> url``."""
    started: list[SimulatorProcess] = []

    def start(profile: str = "fixed", time_scale: float = 1.0, *extra: str) -> str:
        sim = SimulatorProcess(["--profile", profile, "--time-scale", f"{time_scale:g}", *extra])
        started.append(sim)
        return sim.start()

    yield start
    for sim in started:
        sim.stop()


def kill_tree(process: subprocess.Popen) -> None:
    """SIGKILL a process this test started and every process under it (a wrapper such as
    faketime forks its command), then reap it."""
    try:
        children = psutil.Process(process.pid).children(recursive=True)
    except psutil.NoSuchProcess:
        children = []
    for child in children:
        with contextlib.suppress(psutil.NoSuchProcess):
            child.kill()
    if process.poll() is None:
        process.kill()
    process.wait()


def locust_command(*args: str) -> list[str]:
    return [LOCUST, "-f", str(LOCUSTFILE), *args]


@contextmanager
def locust_workers(count: int = 2) -> Iterator[str]:
    """``count`` Locust workers waiting for a master on a free port (yielded); they exit with
    the master's run and are waited for."""
    port = str(free_port())
    workers = [
        subprocess.Popen(
            locust_command("--worker", "--master-port", port),
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            stdin=subprocess.DEVNULL,
        )
        for _ in range(count)
    ]
    try:
        yield port
    finally:
        for worker in workers:
            try:
                worker.wait(timeout=30)
            except subprocess.TimeoutExpired:
                worker.kill()


def run_locust(
    args: list[str],
    results_dir: Path,
    timeout: float = 120,
    env: dict | None = None,
    cwd: Path | None = None,
) -> LocustRun:
    """Run ``locust -f locustfiles/chat.py ARGS`` to completion; find the run directory it wrote."""
    proc = subprocess.run(
        locust_command(*args, "--results-dir", str(results_dir)),
        capture_output=True,
        text=True,
        timeout=timeout,
        cwd=cwd or ROOT,
        env={**os.environ, **(env or {})},
        stdin=subprocess.DEVNULL,
    )
    runs = sorted(results_dir.glob("*/manifest.json")) if results_dir.exists() else []
    return LocustRun(proc.returncode, proc.stdout + proc.stderr, runs[-1].parent if runs else None)


def wait_until_up(url: str, timeout: float = 90) -> None:
    """Until ``url`` answers 200. Generous: on a loaded machine a web UI's first page can take
    seconds to render, so each try waits 10 s rather than giving up and asking again."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            if requests.get(url, timeout=10).status_code == 200:
                return
        except requests.RequestException:
            time.sleep(0.2)
    raise AssertionError(f"{url} did not come up in {timeout:g} s")
