"""Issue 19, must-show 2 and 7 on the built-in simulator: a rate sweep stops at its first
over-saturated level (at 256 output tokens the default profile serves about 1-1.5 requests per
simulated second), and no progress line of it says a negative time left. About 25 s."""

from __future__ import annotations

import re

import pytest

from tests.conftest import LocustRun, run_locust

pytestmark = pytest.mark.e2e  # starts Locust and the simulator

SWEEP = ["1", "2", "4", "8", "16", "32"]


@pytest.fixture(scope="module")
def sweep(tmp_path_factory) -> LocustRun:
    run = run_locust(
        [
            "--headless",
            "--arrival-rate",
            ",".join(SWEEP),
            "--arrival-duration",
            "15",
            "--arrival-users",
            "256",
            "--max-tokens",
            "256",
        ],
        tmp_path_factory.mktemp("sweep"),
        timeout=600,
    )
    assert run.returncode == 0, run.output
    return run


def test_the_sweep_stops_before_32_per_second_and_the_manifest_says_where(sweep):
    manifest = sweep.manifest
    rates = [level["arrival_rate"] for level in manifest["levels"]]
    assert 32.0 not in rates and manifest["status"] == "complete"
    stopped = manifest["levels"][manifest["saturated_at"]]
    assert stopped["index"] == len(rates) - 1 and stopped["saturation"]
    assert {record["level_index"] for record in sweep.records} <= set(range(len(rates)))


def test_the_first_rate_which_the_server_keeps_up_with_is_not_flagged(sweep):
    assert sweep.manifest["levels"][0]["saturation"] is None


def test_the_console_names_the_over_saturated_level_and_what_was_seen(sweep):
    lines = [line for line in sweep.output.splitlines() if "over-saturated" in line]
    stopped = sweep.manifest["levels"][sweep.manifest["saturated_at"]]
    rate = f"{stopped['arrival_rate']:g}/s"
    assert len(lines) == 1 and f"({rate}) over-saturated" in lines[0]
    assert stopped["saturation"] in lines[0]


def test_no_progress_line_says_a_negative_time_left(sweep):
    progress = [line for line in sweep.output.splitlines() if " · elapsed " in line]
    assert progress
    assert not [line for line in progress if re.search(r"about -|-\d+:\d\d left", line)]
