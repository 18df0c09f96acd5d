"""Time-based steps end to end: each level held for its duration, its records labelled with it."""

from __future__ import annotations

import pytest

from tests.conftest import run_locust

pytestmark = pytest.mark.e2e  # starts Locust, simulator or server processes

FIXED = ["--fixed-ttft-ms", "50", "--fixed-itl-ms", "5"]


def test_time_based_steps_hold_each_level_and_label_records_with_it(simulator, tmp_path):
    host = simulator("fixed", 1.0, *FIXED)
    run = run_locust(
        ["--headless", "-H", host, "--ladder", "1,3", "--step-duration", "2", "--max-tokens", "16"],
        tmp_path,
    )
    assert run.returncode == 0, run.output
    assert run.manifest["mode"] == "steps" and run.manifest["status"] == "complete"
    levels = {r["level"] for r in run.records}
    assert levels == {1, 3}
    assert all(r["phase"] == "measure" and r["status"] == "ok" for r in run.records)
    by_level = {c: sum(r["level"] == c for r in run.records) for c in levels}
    assert by_level[3] > by_level[1]  # three users back to back send more than one
