"""``sparkload matrix`` end to end on 127.0.0.1: targets in turn, their run directories, one
report."""

from __future__ import annotations

import csv
import json
import signal
import subprocess
import time

import pytest

from sparkload.matrix import runner, spec
from tests.conftest import ROOT, free_port
from tests.matrix_helpers import (
    FAST,
    SPARKLOAD,
    default_sigint,
    run_dirs,
    run_sparkload,
    sim_target,
    summary,
    write_matrix,
)
from tests.report_files import table_path

pytestmark = pytest.mark.e2e  # starts Locust, simulator or server processes


@pytest.fixture(scope="module")
def tp_matrix(tmp_path_factory):
    """One variant at TP1, TP2 and TP4 on the simulator."""
    root = tmp_path_factory.mktemp("tp-matrix")
    path = write_matrix(
        root / "tp.yaml",
        {
            **FAST,
            "results_dir": str(root / "results"),
            "targets": [sim_target(f"fp8-tp{tp}", "fp8", tp) for tp in (1, 2, 4)],
        },
    )
    return run_sparkload("matrix", str(path)), root / "results"


def test_a_matrix_of_three_targets_writes_three_complete_run_directories(tp_matrix):
    finished, results = tp_matrix
    assert finished.returncode == 0, finished.stdout + finished.stderr
    manifests = [json.loads((d / "manifest.json").read_text()) for d in run_dirs(results)]
    assert sorted(m["label"] for m in manifests) == ["fp8-tp1", "fp8-tp2", "fp8-tp4"]
    assert all(m["status"] == "complete" for m in manifests)


def test_each_run_records_the_cluster_topology_of_its_target(tp_matrix):
    _, results = tp_matrix
    manifests = {
        m["label"]: m
        for m in (json.loads((d / "manifest.json").read_text()) for d in run_dirs(results))
    }
    assert [
        (m["variant"], m["tp"], m["nodes"], m["simulator"]["tp"])
        for m in (manifests["fp8-tp1"], manifests["fp8-tp2"], manifests["fp8-tp4"])
    ] == [("fp8", 1, 1, 1), ("fp8", 2, 2, 2), ("fp8", 4, 4, 4)]


def test_the_combined_report_has_the_tp_comparison_table(tp_matrix):
    _, results = tp_matrix
    report = (results / "report" / "report.md").read_text()
    assert "**fp8: TP scaling**" in report
    assert f"report: {results / 'report' / 'report.md'}" in tp_matrix[0].stdout


def test_tp2_and_tp4_stream_faster_than_tp1_at_concurrency_1(tp_matrix):
    _, results = tp_matrix
    rows = list(csv.DictReader(table_path(results / "report", "tp_fp8").open()))
    tps = {int(r["TP"]): float(r["Per-stream TPS"]) for r in rows if r["Concurrency"] == "1"}
    assert tps[2] > tps[1] and tps[4] > tps[1]


def test_the_summary_lists_every_target_with_its_run_directory(tp_matrix):
    _, results = tp_matrix
    rows = summary(results)
    assert {label: row["status"] for label, row in rows.items()} == dict.fromkeys(
        ["fp8-tp1", "fp8-tp2", "fp8-tp4"], "complete"
    )
    assert {rows[d.name.split("Z-", 1)[1]]["run directory"] for d in run_dirs(results)} == {
        d.name for d in run_dirs(results)
    }


def test_each_target_prints_the_locust_command_it_runs_and_its_progress(tp_matrix):
    finished, results = tp_matrix
    assert "target 2/3 fp8-tp2: running…" in finished.stdout
    command = next(
        line.strip()[2:]
        for line in finished.stdout.splitlines()
        if line.strip().startswith("$ ") and "--label fp8-tp2" in line
    )
    assert f"-f {ROOT / 'locustfiles' / 'chat.py'} --headless" in command
    assert "--tp 2 --nodes 2 --ladder 1,2 --requests-per-user 2 --max-tokens 32" in command
    assert "level 2/2 done: C=2" in finished.stdout
    assert (
        "Starting Locust" in (results / "logs" / "fp8-tp2.log").read_text()
    )  # the rest: in the log


@pytest.fixture(scope="module")
def failing_matrix(tmp_path_factory):
    """A good target between one that never gets healthy and one whose run cannot start."""
    root = tmp_path_factory.mktemp("failing-matrix")
    dead = f"http://127.0.0.1:{free_port()}"
    path = write_matrix(
        root / "m.yaml",
        {
            **FAST,
            "ladder": [1],
            "results_dir": str(root / "results"),
            "targets": [
                {"label": "down", "variant": "fp8", "endpoints": [dead], "health_timeout": 1},
                sim_target("good"),
                {"label": "unreachable", "variant": "fp8", "endpoints": [dead], "health": "true"},
            ],
        },
    )
    return run_sparkload("matrix", str(path)), root / "results", dead


def test_a_target_that_never_gets_healthy_is_skipped_with_its_reason(failing_matrix):
    _, results, dead = failing_matrix
    row = summary(results)["down"]
    assert row["status"] == "skipped" and row["run directory"] == "-"
    assert row["reason"].startswith(f"not healthy within 1 s ({dead}: connection failed")


def test_a_target_whose_run_cannot_start_is_reported_failed_with_locusts_reason(failing_matrix):
    _, results, dead = failing_matrix
    row = summary(results)["unreachable"]
    assert row["status"] == "failed"
    assert f"cannot reach {dead}" in row["reason"]


def test_the_other_targets_still_run_and_make_the_report(failing_matrix):
    finished, results, _ = failing_matrix
    assert summary(results)["good"]["status"] == "complete"
    assert [d.name.split("Z-", 1)[1] for d in run_dirs(results)] == ["good"]
    assert "good" in (results / "report" / "report.md").read_text()


def test_a_matrix_with_a_skipped_or_failed_target_exits_1(failing_matrix):
    assert failing_matrix[0].returncode == 1


def test_ctrl_c_stops_the_current_run_cleanly_and_still_writes_the_summary(tmp_path):
    path = write_matrix(
        tmp_path / "m.yaml",
        {
            **FAST,
            "ladder": [1, 2, 4],
            "requests_per_user": 20,
            "results_dir": str(tmp_path / "results"),
            "targets": [sim_target("first"), sim_target("second", "nvfp4")],
        },
    )
    proc = subprocess.Popen(
        [SPARKLOAD, "matrix", str(path)],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        stdin=subprocess.DEVNULL,
        text=True,
        cwd=ROOT,
        # Ctrl-C's default action in the child, whatever this suite inherited: a background job
        # (``nohup bash .ci/run &``) starts with SIGINT ignored, and an ignored signal stays
        # ignored across exec, so the matrix would never see the signal this test sends
        preexec_fn=default_sigint,
    )
    output = []
    try:
        deadline = time.monotonic() + 60
        for line in proc.stdout:  # wait until the first run is under load
            output.append(line)
            if "sparkload run " in line or time.monotonic() > deadline:
                break
        proc.send_signal(signal.SIGINT)
        output.append(proc.communicate(timeout=60)[0])
    finally:
        proc.kill()
    assert proc.returncode == runner.EXIT_INTERRUPTED, "".join(output)
    rows = summary(tmp_path / "results")
    assert (rows["first"]["status"], rows["second"]["status"]) == ("stopped", "not run")
    (first,) = run_dirs(tmp_path / "results")
    assert json.loads((first / "manifest.json").read_text())["status"] == "stopped"


def test_a_target_runs_as_the_locust_command_a_user_would_type():
    matrix = spec.parse(
        {
            "ladder": [1, 4],
            "requests_per_user": 3,
            "locust_args": ["--processes", "2"],
            "targets": [
                {
                    "label": "dp",
                    "variant": "nvfp4",
                    "endpoints": ["http://s1:8000", "http://s2:8000"],
                    "tp": 1,
                    "nodes": 2,
                    "locust_args": ["--api-key", "secret"],
                },
                {"variant": "fp8", "endpoints": "http://s1:8000", "tp": 2},
            ],
        },
        "m.yaml",
    )
    replicas, cluster = (runner.locust_command(matrix, t, ROOT / "r") for t in matrix.targets)
    assert replicas[1:] == [
        "-f",
        str(runner.LOCUSTFILE),
        "--headless",
        "--label",
        "dp",
        "--variant",
        "nvfp4",
        "--tp",
        "1",
        "--nodes",
        "2",
        "--ladder",
        "1,4",
        "--requests-per-user",
        "3",
        "--endpoints",
        "http://s1:8000,http://s2:8000",
        "--results-dir",
        str(ROOT / "r"),
        "--processes",
        "2",
        "--api-key",
        "secret",
    ]
    assert cluster[cluster.index("--tp") : cluster.index("--ladder")] == [
        "--tp",
        "2",
        "--nodes",
        "2",
    ]
    assert cluster[cluster.index("-H") + 1] == "http://s1:8000"


def test_the_printed_command_hides_the_api_key():
    line = runner.printable(["locust", "--api-key", "secret", "--api-key=other", "-H", "http://a"])
    assert "secret" not in line and "other" not in line
    assert line == "locust --api-key '***' '--api-key=***' -H http://a"
