"""Progress lines end to end: a long run prints its level, its count and the time left."""

from __future__ import annotations

import pytest

from tests.conftest import run_locust

pytestmark = pytest.mark.e2e  # starts Locust, simulator or server processes


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
