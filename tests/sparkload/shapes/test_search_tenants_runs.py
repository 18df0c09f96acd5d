"""``--find-capacity tenants`` end to end (issue 45, must-show 2): on the built-in simulator, the
largest number of users, the shares held, at which every class meets its own slo; the class
that breaks its slo first named at the probe one user above, in the console, the manifest,
summary.json and report.md; bad input refused before the load.

Two chat classes share the users half and half. The simulator runs nvfp4 (no drafting, whose
acceptance draws would make a level's figures depend on every request before it) with 64
tokens a reply, and the bounds are on the median inter-token latency, which a busy machine
does not move (it is simulated time): measured over five searches, a class's itl_p50_ms was
101.7-102.0 at C=2, 103.3-103.5 at C=3 and 104.6-105.1 at C=4. So the strict class's 102.6 ms
holds at 2 users and breaks at 3, the easy class's 200 ms holds throughout.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

from sparkload.workloads.tenants import Dealer
from tests.conftest import LocustRun, run_locust
from tests.report_files import report_summary
from tests.sparkload.run.test_setup_bad_input import assert_clean_failure

pytestmark = pytest.mark.e2e  # starts Locust and the simulator

CLASSES = {
    "classes": [
        {"name": "strict", "share": 0.5, "workload": "chat", "slo": "itl_p50_ms<=102.6"},
        {"name": "easy", "share": 0.5, "workload": "chat", "slo": "itl_p50_ms<=200"},
    ]
}
REQUESTS = 5  # per user and level: a p50's 90 % interval needs 5


def tenants_file(folder: Path) -> Path:
    path = folder / "tenants.json"
    path.write_text(json.dumps(CLASSES))
    return path


@pytest.fixture(scope="module")
def search(tmp_path_factory) -> tuple[LocustRun, dict]:
    """One search from 2 users up to 8, then its report (no charts)."""
    folder = tmp_path_factory.mktemp("tenants-capacity")
    args = ["--headless", "--tenants", str(tenants_file(folder)), "--find-capacity", "tenants"]
    args += ["--capacity-start", "2", "--capacity-max", "8", "--requests-per-user", str(REQUESTS)]
    args += ["--max-tokens", "64", "--sim-profile", "nvfp4"]
    run = run_locust(args, folder / "results", timeout=300)
    assert run.returncode == 0 and run.run_dir is not None, run.output
    return run, report_summary(run.run_dir)


def test_the_capacity_is_the_most_users_at_which_every_class_meets_its_slo(search):
    run, summary = search
    entry = run.manifest["capacity"]
    assert entry["bounds"] == "tenants" and entry["complete"] is True
    assert entry["capacity"] == 2
    (found,) = [p for p in entry["probes"] if p["value"] == 2]
    assert found["meets"] is True and found["failing_classes"] == []
    classes = {row["concurrency"]: {} for row in summary["tenants"]}
    for row in summary["tenants"]:
        classes[row["concurrency"]][row["tenant"]] = row["meets_slo"]
    assert classes[2] == {"strict": True, "easy": True}  # the report's own per-class verdict


def test_the_class_that_fails_first_is_named_one_user_above(search):
    run, summary = search
    limit = run.manifest["capacity"]["limit"]
    assert limit["value"] == 3 and limit["failing_classes"] == ["strict"]
    assert limit["breaches"][0].startswith("class strict: itl_p50_ms = ")
    (finding,) = summary["capacity_searches"]
    assert finding["value"] == 2 and finding["limit_value"] == 3
    assert finding["first_to_fail"] == ["strict"]
    verdicts = {
        row["tenant"]: row["meets_slo"] for row in summary["tenants"] if row["concurrency"] == 3
    }
    assert verdicts == {"strict": False, "easy": True}
    assert "capacity: C=2 at tenants" in run.output and "first to fail: strict" in run.output
    report = (run.run_dir / "report" / "report.md").read_text()
    assert "first to fail: strict" in report


def test_every_probe_deals_its_users_to_the_classes_by_their_shares(search):
    run, _ = search
    probed = [level["concurrency"] for level in run.manifest["levels"]]
    assert probed == [2, 4, 3]  # 3 after 4: a level below an earlier one
    users = {(r["level"], r["tenant"], r["user"]) for r in run.records if r["phase"] == "measure"}
    for users_there in probed:
        dealt = Counter(tenant for level, tenant, _ in users if level == users_there)
        assert [dealt["strict"], dealt["easy"]] == Dealer((0.5, 0.5)).counts(users_there)
    at_three = {user for level, _, user in users if level == 3}
    assert at_three == {0, 1, 2}  # the run's first 3 users: the fourth idles


@pytest.mark.parametrize(
    "extra, said",
    [
        (["--find-capacity", "tenants"], "--find-capacity tenants holds each --tenants class"),
        (
            ["--find-capacity", "ttft_p90_ms<=800", "--tenants", "TENANTS"],
            "--find-capacity 'ttft_p90_ms<=800': a mix's capacity holds each class to its own",
        ),
        (
            ["--find-capacity", "tenants", "--tenants", "TENANTS", "--tenant-baselines"],
            "--tenant-baselines runs each class alone before a ladder: drop --find-capacity",
        ),
    ],
)
def test_bad_searches_are_one_line_and_exit_2_before_the_load(tmp_path, extra, said):
    path = str(tenants_file(tmp_path))
    args = ["--headless", *(path if arg == "TENANTS" else arg for arg in extra)]
    assert_clean_failure(run_locust(args, tmp_path / "results"), said)
