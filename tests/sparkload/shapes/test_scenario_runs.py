"""--scenario end to end on the built-in simulator (10x): recovery's phases as levels named in
the manifest and its recovery time in summary.json (must-show 4), churn's new connections in
the records, and a bad scenario refused before the load."""

from __future__ import annotations

import pytest

from sparkload.records import EXIT_BAD_INPUT
from tests.conftest import LocustRun, run_locust
from tests.report_files import report_summary

pytestmark = pytest.mark.e2e  # starts Locust and the simulator

FAST = ["--headless", "--sim-time-scale", "10", "--max-tokens", "32"]


@pytest.fixture(scope="module")
def recovery(tmp_path_factory) -> tuple[LocustRun, dict]:
    """Phases of 9 s (the overload 3 s, after 18 s) of the target's time: about 3 s real."""
    results = tmp_path_factory.mktemp("recovery")
    run = run_locust([*FAST, "--scenario", "recovery", "--scenario-phase", "9s"], results)
    assert run.returncode == 0 and run.run_dir is not None, run.output
    return run, report_summary(run.run_dir)


def test_each_phase_is_a_level_named_in_the_manifest(recovery):
    run, _ = recovery
    levels = [(lv["index"], lv["concurrency"], lv["phase"]) for lv in run.manifest["levels"]]
    assert levels == [(0, 2, "baseline"), (1, 32, "overload"), (2, 2, "after")]
    assert run.manifest["mode"] == "scenario" and run.manifest["scenario"]["name"] == "recovery"
    assert {r["level_index"] for r in run.records} == {0, 1, 2}


def test_the_overloads_extra_users_finish_their_requests_instead_of_being_killed(recovery):
    run, _ = recovery
    assert run.manifest["status"] == "complete"
    assert all(r["status"] == "ok" for r in run.records)
    overload_users = {r["user"] for r in run.records if r["level_index"] == 1}
    assert len(overload_users) == 32
    assert {r["user"] for r in run.records if r["level_index"] == 2} <= {0, 1}


def test_summary_json_holds_the_recovery_time(recovery):
    _, summary = recovery
    (entry,) = summary["scenario"]
    assert entry["scenario"] == "recovery" and entry["recovered"] is True
    assert entry["recovery_s"] >= 0.0
    assert entry["high_ttft_ms_p90"] > entry["baseline_ttft_ms_p90"]
    assert [p["phase"] for p in entry["phases"]] == ["baseline", "overload", "after"]


def test_churn_opens_a_connection_for_every_request_of_its_churn_phase(tmp_path):
    run = run_locust(
        [*FAST, "--scenario", "churn", "--scenario-high", "4", "--scenario-phase", "6s"], tmp_path
    )
    assert run.returncode == 0, run.output
    kept = [r for r in run.records if r["level_index"] == 0]
    churn = [r for r in run.records if r["level_index"] == 1]
    assert kept and churn
    assert all("connect_time" not in r for r in kept)
    assert all(r["connect_time"] >= 0.0 for r in churn)


def test_an_unknown_scenario_is_one_line_and_exit_2_before_the_load(tmp_path):
    run = run_locust(["--headless", "--scenario", "spike"], tmp_path)
    assert run.returncode == EXIT_BAD_INPUT
    errors = [line for line in run.output.splitlines() if line.startswith("sparkload: error:")]
    assert len(errors) == 1 and "give one of ramp, burst, recovery" in errors[0]
    assert "Traceback" not in run.output and run.run_dir is None
