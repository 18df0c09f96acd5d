"""Beside the ladder: time-based steps and open-loop Poisson arrivals, and progress lines."""

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


def test_open_loop_arrivals_record_their_schedule_and_wait(simulator, tmp_path):
    host = simulator("fixed", 1.0, *FIXED)
    run = run_locust(
        [
            "--headless",
            "-H",
            host,
            "--arrival-rate",
            "20",
            "--arrival-users",
            "2",
            "--arrival-duration",
            "3",
            "--max-tokens",
            "16",
            "--seed",
            "5",
        ],
        tmp_path,
    )
    assert run.returncode == 0, run.output
    assert run.manifest["mode"] == "arrival" and run.manifest["status"] == "complete"
    records = run.records
    assert 30 <= len(records) <= 95  # Poisson, 20/s for 3 s: 60 expected
    assert all(r["scheduled_time"] is not None and r["queue_wait"] >= 0 for r in records)
    # each request takes ~0.13 s and only 2 clients serve 20 arrivals/s: most requests queue
    assert max(r["queue_wait"] for r in records) > 0.2
    assert all(r["start_time"] >= r["scheduled_time"] - 0.01 for r in records)


def test_a_long_run_prints_progress_with_the_level_its_count_and_the_time_left(simulator, tmp_path):
    host = simulator("fixed", 1.0, "--fixed-ttft-ms", "100", "--fixed-itl-ms", "10")
    run = run_locust(
        [
            "--headless",
            "-H",
            host,
            "--ladder",
            "2",
            "--requests-per-user",
            "6",
            "--max-tokens",
            "64",
        ],
        tmp_path,
    )
    progress = [line for line in run.output.splitlines() if "level 1/1 (C=2):" in line]
    assert progress, run.output
    assert "/12 requests" in progress[-1] and "left" in progress[-1]
