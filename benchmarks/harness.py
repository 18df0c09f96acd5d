"""What the client benchmarks share: the reference server as a child process, and one run of
the main job."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from sparkload.records.requests_files import read_records  # noqa: E402
from sparkload.run.simulator_process import ServerProcess  # noqa: E402

LOCUST = str(Path(sys.executable).with_name("locust"))
RUN_DEADLINE = 600  # seconds one run of the main job may take


def reference_server(*args: str) -> ServerProcess:
    """benchmarks/reference_server.py with ``args``; ``.start()`` returns its URL."""
    return ServerProcess(
        [sys.executable, str(ROOT / "benchmarks" / "reference_server.py"), *args],
        ready_prefix="reference-server listening on ",
        name="the reference server",
    )


def run_main_job(
    host: str,
    workdir: Path,
    *args: str,
    watch: Callable[[subprocess.Popen], None] | None = None,
    checkout: Path = ROOT,
) -> tuple[dict, list[dict]]:
    """Run ``locust -f locustfiles/chat.py --headless -H host ARGS``; ``watch(process)`` is called
    every 0.2 s while it runs. ``checkout``: another checkout's main job (its own sparkload
    package), to measure before and after in one run. Returns the run's manifest and records."""
    results = workdir / "results"
    process = subprocess.Popen(
        [
            LOCUST,
            "-f",
            str(checkout / "locustfiles" / "chat.py"),
            "--headless",
            "-H",
            host,
            "--results-dir",
            str(results),
            *args,
        ],
        cwd=checkout,
        env=dict(os.environ, PYTHONPATH=str(checkout.resolve())),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        stdin=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + RUN_DEADLINE
    while process.poll() is None and time.monotonic() < deadline:
        if watch:
            watch(process)
        time.sleep(0.2)
    if process.poll() is None:
        process.kill()
        raise SystemExit(f"the run did not finish within {RUN_DEADLINE} s")
    run_dir = next(results.iterdir())
    manifest = json.loads((run_dir / "manifest.json").read_text())
    records = read_records(run_dir)
    return manifest, records
