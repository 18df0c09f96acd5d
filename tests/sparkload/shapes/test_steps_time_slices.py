"""Issue 19's must-show 3 and 7 on the built-in simulator: a 20 s step cut into 2 s windows."""

from __future__ import annotations

import json
import re

import pytest

from sparkload.cli import main as sparkload_main
from tests.conftest import run_locust

pytestmark = pytest.mark.e2e  # starts Locust and the simulator


def test_a_stepped_level_is_reported_in_two_second_windows_and_no_time_left_is_negative(
    tmp_path,
):
    run = run_locust(
        ["--headless", "--ladder", "4", "--step-duration", "20", "--slice-duration", "2"],
        tmp_path,
    )
    assert run.returncode == 0, run.output
    assert run.manifest["slice_duration"] == 2
    lefts = re.findall(r"· about (\S+) left", run.output)
    assert lefts and not [left for left in lefts if left.startswith("-")]
    assert sparkload_main(["report", str(run.run_dir), "--no-charts", "--quiet"]) == 0
    summary = json.loads((run.run_dir / "report" / "summary.json").read_text())
    (level,) = summary["slices"]["levels"]
    assert level["concurrency"] == 4 and len(level["windows"]) >= 8
    assert sum(w["completed"] for w in level["windows"]) == summary["levels"][0]["n"]
