"""The load generator knows its limits: a level run beside a CPU hog is flagged, here and in the
report."""

from __future__ import annotations

import json
import subprocess
import sys
import time

import pytest

from sparkload.cli import main as sparkload_main
from sparkload.records.requests_files import read_records
from tests.conftest import locust_command

pytestmark = pytest.mark.e2e  # starts Locust, simulator or server processes

HOG = "import time\nend = time.monotonic() + 60\nwhile time.monotonic() < end: pass"


def level_of_last_record(run_dirs) -> int:
    for run_dir in run_dirs:
        records = read_records(run_dir)
        if records:
            return records[-1]["level_index"]
    return -1


def test_levels_run_beside_a_cpu_hog_are_flagged_and_the_quiet_level_is_not(simulator, tmp_path):
    host = simulator("fixed", 1.0, "--fixed-ttft-ms", "20", "--fixed-itl-ms", "1")
    run = subprocess.Popen(
        locust_command(
            "--headless",
            "-H",
            host,
            "--ladder",
            "16,32",
            "--requests-per-user",
            "4",
            "--max-tokens",
            "500",
            "--results-dir",
            str(tmp_path),
        ),
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        stdin=subprocess.DEVNULL,
        text=True,
    )
    hogs: list[subprocess.Popen] = []
    try:
        deadline = time.monotonic() + 60
        while level_of_last_record(tmp_path.glob("*")) < 1 and time.monotonic() < deadline:
            time.sleep(0.05)
        hogs = [subprocess.Popen([sys.executable, "-c", HOG]) for _ in range(8)]
        output, _ = run.communicate(timeout=120)
    finally:
        for process in (run, *hogs):
            process.kill()
            process.wait()
    manifest_path = next(tmp_path.glob("*/manifest.json"))
    manifest = json.loads(manifest_path.read_text())
    quiet, hogged = manifest["levels"]
    # The machine may be shared (CI), so the quiet level may be flagged too: it is judged only
    # against the hogged one. Eight hogs on the cores dominate whatever else runs there.
    assert any("starved of CPU" in flag for flag in hogged["client_flags"]), hogged
    # (how much more the hogs add depends on what else runs: 42 % quiet against 51 % hogged was
    # seen with a load average of 6 on the 2 cores)
    assert hogged["client"]["runqueue_pct_max"] > quiet["client"]["runqueue_pct_max"], (
        quiet,
        hogged,
    )
    assert "is shaped by the load generator" in output
    assert sparkload_main(["report", str(manifest_path.parent), "--no-charts", "--quiet"]) == 0
    means = [
        line
        for line in (manifest_path.parent / "report" / "report.md").read_text().splitlines()
        if line.startswith(("| 16 |", "| 32 |"))
    ]
    assert "FLAGGED:" in means[1] and "client starved of CPU" in means[1]
    # the report says what the manifest says of the quiet level, whichever it was
    assert ("client starved of CPU" in means[0]) == (quiet["client_flags"] != [])
