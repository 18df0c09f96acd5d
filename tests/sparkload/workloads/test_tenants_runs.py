"""Traffic classes end to end on the built-in simulator (issue 45, must-shows 1 and 4): a ladder
level of 20 users is 12, 6 and 2 users of chat, agent and prefill classes, every record names
its class, the report gives each class's SLO attainment, and ``--check tenants`` fails the run
naming the class whose SLO cannot hold; a bad tenants file is one line and exit 2 before the
load."""

from __future__ import annotations

import json
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest

from sparkload.workloads.tenants import Dealer
from tests.conftest import run_locust
from tests.sparkload.run.test_setup_bad_input import assert_clean_failure

pytestmark = pytest.mark.e2e  # starts Locust and the simulator

MIX = {
    "classes": [
        {"name": "chat", "share": 0.6, "workload": "chat", "slo": "ttft_p90_ms<=60000"},
        {
            "name": "agents",
            "share": 0.3,
            "workload": "agent",
            "options": {"tool-turns": 1},
            "slo": "ttft_p90_ms<=60000,failure_ratio<=0",
        },
        {
            "name": "batch",
            "share": 0.1,
            "workload": "prefill",
            "options": {"prefill-sizes": "1000"},
            "slo": "latency_p90_s<=0.001",  # no request is that fast: the class must fail
        },
    ]
}


def tenants_file(tmp_path: Path, data: dict) -> Path:
    path = tmp_path / "tenants.json"
    path.write_text(json.dumps(data))
    return path


def report(run_dir: Path, out: Path) -> dict:
    subprocess.run(
        [sys.executable, "-m", "analysis", str(run_dir), "--out", str(out), "--no-charts"],
        check=True,
        capture_output=True,
    )
    return json.loads((out / "summary.json").read_text())


def test_three_classes_share_a_ladder_level_and_the_impossible_slo_fails_the_check(tmp_path):
    run = run_locust(
        [
            "--headless",
            "--tenants",
            str(tenants_file(tmp_path, MIX)),
            "--ladder",
            "20",
            "--requests-per-user",
            "2",
            "--max-tokens",
            "16",
            "--check",
            "tenants",
        ],
        tmp_path / "results",
        timeout=180,
    )
    assert run.returncode == 4, run.output
    assert "class batch:" in run.output and "classes missing their SLO: batch" in run.output
    assert "class chat:" not in run.output and "class agents:" not in run.output
    measured = [r for r in run.records if r["phase"] == "measure"]
    users = {(r["tenant"], r["worker"], r["user"]) for r in measured}
    assert Counter(tenant for tenant, *_ in users) == {"chat": 12, "agents": 6, "batch": 2}
    assert all(r["status"] == "ok" for r in run.records)
    assert Counter(r["tenant"] for r in measured) == {
        "chat": 12 * 2,
        "agents": 6 * 2 * 4,  # 2 sessions of 2 user turns, a tool step and an answer each
        "batch": 2 * 2,
    }
    (level,) = run.manifest["levels"]
    assert level["expected"] == level["received"] == len(measured)

    classes = report(run.run_dir, tmp_path / "report")["tenants"]
    by_name = {row["tenant"]: row for row in classes}
    assert set(by_name) == {"chat", "agents", "batch"}
    assert by_name["chat"]["slo_attainment"] == 1.0 and by_name["chat"]["meets_slo"] is True
    assert by_name["agents"]["slo_attainment"] == 1.0
    assert by_name["batch"]["slo_attainment"] == 0.0 and by_name["batch"]["meets_slo"] is False
    assert [by_name[name]["n"] for name in ("chat", "agents", "batch")] == [24, 48, 4]
    assert sum(row["token_share"] for row in classes) == pytest.approx(1.0)


@pytest.mark.parametrize(
    "entry, said",
    [
        (
            {"name": "x", "share": 1, "workload": "chatbot"},
            "class 'x': unknown workload 'chatbot'",
        ),
        (
            {"name": "x", "share": 1, "workload": "chat", "options": {"ladder": "1,2"}},
            "class 'x': option 'ladder' is the run's",
        ),
        (
            {"name": "x", "share": 1, "workload": "chat", "slo": "ttft_p90_ms<<3"},
            "class 'x': slo:",
        ),
    ],
)
def test_a_bad_class_is_one_line_naming_it_and_exit_2_before_the_load(tmp_path, entry, said):
    path = tenants_file(tmp_path, {"classes": [entry]})
    run = run_locust(["--headless", "--tenants", str(path)], tmp_path / "results")
    assert_clean_failure(run, said)


def test_baselines_run_each_class_alone_first_and_the_report_sets_them_beside_the_mix(tmp_path):
    chats = {
        "classes": [
            {"name": "big", "share": 0.75, "workload": "chat"},
            {"name": "small", "share": 0.25, "workload": "chat", "options": {"max-tokens": 4}},
        ]
    }
    run = run_locust(
        [
            "--headless",
            "--tenants",
            str(tenants_file(tmp_path, chats)),
            "--tenant-baselines",
            "--ladder",
            "8",
            "--requests-per-user",
            "2",
            "--max-tokens",
            "16",
        ],
        tmp_path / "results",
        timeout=180,
    )
    assert run.returncode == 0, run.output
    assert [lv["concurrency"] for lv in run.manifest["levels"]] == [2, 6, 8]  # smallest first
    counted = Counter(
        (r["level"], r["tenant"], r["phase"]) for r in run.records if r["phase"] != "warmup"
    )
    assert counted == {
        (2, "small", "baseline"): 4,
        (6, "big", "baseline"): 12,
        (8, "big", "measure"): 12,
        (8, "small", "measure"): 4,
    }
    assert all(lv["expected"] == lv["received"] for lv in run.manifest["levels"])

    summary = report(run.run_dir, tmp_path / "report")
    assert [level["concurrency"] for level in summary["levels"]] == [8]  # baselines apart
    beside = {row["tenant"]: row for row in summary["tenant_baselines"]}
    assert beside["big"]["alone_users"] == 6 and beside["small"]["alone_users"] == 2
    big = beside["big"]
    assert big["ttft_ms_p90_ratio"] == pytest.approx(
        big["ttft_ms_p90_mix"] / big["ttft_ms_p90_alone"]
    )


def test_an_open_loops_rate_is_divided_exactly_by_the_shares(tmp_path):
    classes = [
        {"name": name, "share": share, "workload": "chat"}
        for name, share in (("a", 0.6), ("b", 0.3), ("c", 0.1))
    ]
    run = run_locust(
        [
            "--headless",
            "--tenants",
            str(tenants_file(tmp_path, {"classes": classes})),
            "--arrival-rate",
            "20",
            "--arrival-duration",
            "3",
            "--max-tokens",
            "8",
        ],
        tmp_path / "results",
        timeout=180,
    )
    assert run.returncode == 0, run.output
    measured = [r for r in run.records if r["phase"] == "measure"]
    (level,) = run.manifest["levels"]
    assert len(measured) == level["schedule"]["arrivals"] > 0
    dealt = Counter(r["tenant"] for r in measured)
    assert [dealt[name] for name in "abc"] == Dealer((0.6, 0.3, 0.1)).counts(len(measured))
