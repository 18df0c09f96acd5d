"""--check fails a run on a service level, judged by the report's own definitions."""

from __future__ import annotations

import pytest

from sparkload.records import EXIT_CHECK_FAILED
from tests.conftest import run_locust

pytestmark = pytest.mark.e2e  # starts Locust and the simulator

# 20 ms between tokens: a simulator held off the CPU for a few ms on a shared machine still
# streams (at 1 ms its 8 tokens could arrive in one burst, rightly flagged collapsed)
FIXED = ("--fixed-ttft-ms", "30", "--fixed-itl-ms", "20")
LADDER = ["--ladder", "1,2", "--requests-per-user", "2", "--max-tokens", "8"]


def run_with_check(simulator, tmp_path, spec: str):
    host = simulator("fixed", 1.0, *FIXED)
    return run_locust(["--headless", "-H", host, *LADDER, "--check", spec], tmp_path)


def test_a_breached_level_exits_with_its_own_code_and_names_level_and_figure(simulator, tmp_path):
    run = run_with_check(simulator, tmp_path, "ttft_p90_ms<=1")  # 30 ms TTFT cannot hold
    assert run.returncode == EXIT_CHECK_FAILED, run.output
    breaches = [line for line in run.output.splitlines() if line.startswith("check failed")]
    assert len(breaches) == 2 and "C=1" in breaches[0] and "ttft_p90_ms" in breaches[0]
    assert run.manifest["status"] == "complete"  # the run itself finished; only a level failed


def test_all_levels_holding_exit_0(simulator, tmp_path):
    run = run_with_check(simulator, tmp_path, "ttft_p90_ms<=5000,failure_ratio<=0.01")
    assert run.returncode == 0, run.output
    assert "check passed" in run.output


def test_a_malformed_check_is_one_line_and_exit_2_before_any_load(simulator, tmp_path):
    run = run_with_check(simulator, tmp_path, "ttft_p90_ms<<fast")
    assert run.returncode == 2
    assert "sparkload: error: --check:" in run.output and "Traceback" not in run.output
    assert run.run_dir is None
