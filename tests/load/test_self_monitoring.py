"""The load generator knows its limits: a level distorted by a CPU hog beside it is flagged."""

from __future__ import annotations

import json
import subprocess
import sys
import time

from tests.conftest import locust_command

HOG = "import time\nend = time.monotonic() + 60\nwhile time.monotonic() < end: pass"


def level_of_last_record(run_dirs) -> int:
    for run_dir in run_dirs:
        lines = (run_dir / "requests.jsonl").read_text().splitlines()
        if lines:
            return json.loads(lines[-1])["level_index"]
    return -1


def test_levels_run_beside_a_cpu_hog_are_flagged_and_the_quiet_level_is_not(simulator, tmp_path):
    host = simulator("fixed", 1.0, "--fixed-ttft-ms", "20", "--fixed-itl-ms", "1")
    run = subprocess.Popen(locust_command("--headless", "-H", host, "--ladder", "32,32", "--requests-per-user", "4",
                                          "--max-tokens", "500", "--results-dir", str(tmp_path)),
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, text=True)
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
    manifest = json.loads(next(tmp_path.glob("*/manifest.json")).read_text())
    quiet, hogged = manifest["levels"]
    assert quiet["client_flags"] == [], quiet
    assert any("starved of CPU" in flag for flag in hogged["client_flags"]), hogged
    assert "is shaped by the load generator" in output
