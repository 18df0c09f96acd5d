"""Open-loop arrivals end to end: each request records its schedule and its wait (issue 18: the
gaps vary as the arrival process says)."""

from __future__ import annotations

import statistics
from itertools import pairwise

import pytest

from tests.conftest import run_locust

pytestmark = pytest.mark.e2e  # starts Locust, simulator or server processes

FIXED = ["--fixed-ttft-ms", "50", "--fixed-itl-ms", "5"]


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


def scheduled_gap_cv(run) -> float:
    times = sorted(r["scheduled_time"] for r in run.records)
    gaps = [b - a for a, b in pairwise(times)]
    return statistics.pstdev(gaps) / statistics.fmean(gaps)


# The schedule is what is judged, not the server: every arrival is sent however far a loaded
# machine lets the client fall behind (the over-saturation stop would cut the schedule short)
GAMMA_RUN = [
    "--arrival-rate",
    "50",
    "--arrival-duration",
    "40",
    "--sim-profile",
    "fixed",
    "--no-saturation-stop",
]


@pytest.mark.parametrize(
    ("process", "low", "high"),
    [
        (["--arrival-process", "gamma", "--burstiness", "0.25"], 1.8, 2.2),
        (["--arrival-process", "constant"], 0.0, 0.05),
    ],
)
def test_scheduled_gaps_vary_as_the_arrival_process_says(tmp_path, process, low, high):
    run = run_locust(
        ["--headless", *GAMMA_RUN, *process, "--max-tokens", "2", "--sim-time-scale", "10"],
        tmp_path,
        timeout=180,
    )
    assert run.returncode == 0, run.output
    assert 1700 <= len(run.records) <= 2300  # 50/s for 40 simulated seconds
    assert low <= scheduled_gap_cv(run) <= high
    assert run.manifest["levels"][0]["arrival_rate"] == 50
