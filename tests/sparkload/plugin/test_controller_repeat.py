"""--repeat N: the whole plan N times back to back, each run complete in its own directory."""

from __future__ import annotations

import json
from collections import Counter

import pytest

from sparkload.records.requests_files import read_records
from tests.conftest import run_locust

pytestmark = pytest.mark.e2e  # starts Locust and the simulator


def test_each_repetition_is_a_complete_run_of_its_own(simulator, tmp_path):
    host = simulator("fixed", 1.0, "--fixed-ttft-ms", "20", "--fixed-itl-ms", "1")
    run = run_locust(
        [
            "--headless",
            "-H",
            host,
            "--ladder",
            "1,2",
            "--requests-per-user",
            "2",
            "--max-tokens",
            "8",
            "--repeat",
            "2",
            "--label",
            "twice",
        ],
        tmp_path,
    )
    assert run.returncode == 0, run.output
    run_dirs = sorted(p.parent for p in tmp_path.glob("*/manifest.json"))
    assert len(run_dirs) == 2
    for number, run_dir in enumerate(run_dirs, start=1):
        manifest = json.loads((run_dir / "manifest.json").read_text())
        assert (manifest["label"], manifest["status"], manifest["repeat"]) == (
            "twice",
            "complete",
            {"run": number, "of": 2},
        )
        records = read_records(run_dir)
        assert Counter((r["level"], r["phase"]) for r in records) == {
            (1, "measure"): 2,
            (2, "measure"): 4,
            (1, "warmup"): 1,
            (2, "warmup"): 1,
        }
        assert [level["concurrency"] for level in manifest["levels"]] == [1, 2]
    assert all(f"results: {run_dir}" in run.output for run_dir in run_dirs)
