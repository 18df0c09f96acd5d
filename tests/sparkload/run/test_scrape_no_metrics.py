"""A server without /metrics: one line says so, the run completes, no server_metrics.jsonl."""

from __future__ import annotations

import sys

import pytest

from sparkload.records import SERVER_METRICS_FILE
from sparkload.run.scrape import NO_METRICS_MESSAGE
from sparkload.run.simulator_process import ServerProcess
from tests.conftest import ROOT, run_locust

pytestmark = pytest.mark.e2e  # starts Locust, simulator or server processes


def test_a_server_without_metrics_gets_one_line_and_a_complete_run(tmp_path):
    server = ServerProcess(
        [
            sys.executable,
            str(ROOT / "benchmarks" / "reference_server.py"),
            "--port",
            "0",
            "--ttft-ms",
            "20",
            "--itl-ms",
            "2",
        ],
        ready_prefix="reference-server listening on ",
        name="the reference server",
    )
    url = server.start()
    try:
        run = run_locust(
            [
                "--headless",
                "-H",
                url,
                "--ladder",
                "1,2",
                "--requests-per-user",
                "1",
                "--max-tokens",
                "8",
            ],
            tmp_path,
        )
    finally:
        server.stop()
    assert run.returncode == 0, run.output
    assert len([line for line in run.output.splitlines() if NO_METRICS_MESSAGE in line]) == 1
    assert run.manifest["status"] == "complete"
    assert not (run.run_dir / SERVER_METRICS_FILE).exists()
