"""A misbehaving server yields classified failure records, and the ladder still completes."""

from __future__ import annotations

from collections import Counter

import pytest

from sparkload.apis.chat import ChatStream
from sparkload.records import RequestRecord
from sparkload.transport.client import Connection, StreamRequest, build_headers, measure
from tests.conftest import free_port, run_locust
from tests.servers import plain_body

pytestmark = pytest.mark.e2e  # starts Locust, simulator or server processes

# simulator fault kind -> failure class in the record
FAULT_CLASSES = {
    "http_500": "http_500",
    "http_429": "http_429",
    "disconnect": "disconnect",
    "malformed_sse": "malformed_sse",
    "error_event": "server_error_event",
    "no_done": "disconnect",
    "stall": "timeout",
    "huge": "timeout",
}
FAST = ["--headless", "--max-tokens", "32", "--request-timeout", "1.5"]


@pytest.mark.parametrize("fault, error_kind", sorted(FAULT_CLASSES.items()))
def test_every_request_hit_by_a_fault_is_recorded_in_its_class(
    simulator, tmp_path, fault, error_kind
):
    host = simulator("fixed", 1.0, "--fixed-itl-ms", "2", "--faults", f"{fault}=1")
    run = run_locust([*FAST, "-H", host, "--ladder", "2", "--requests-per-user", "1"], tmp_path)
    assert run.manifest["status"] == "complete", run.output
    assert len(run.records) == 1 + 2  # every request sent has its record: 1 warm-up, 2 measured
    assert Counter(r["error_kind"] for r in run.records) == {error_kind: 3}
    assert all(r["status"] == "error" and r["error"] for r in run.records)


@pytest.mark.parametrize("fault, error_kind", sorted(FAULT_CLASSES.items()))
def test_at_a_partial_rate_faulted_requests_are_classified_and_the_rest_succeed(
    simulator, tmp_path, fault, error_kind
):
    host = simulator(
        "fixed", 1.0, "--fixed-itl-ms", "2", "--faults", f"{fault}=0.4", "--fault-seed", "11"
    )
    run = run_locust([*FAST, "-H", host, "--ladder", "4", "--requests-per-user", "2"], tmp_path)
    assert run.manifest["status"] == "complete", run.output
    assert len(run.records) == 1 + 8
    outcomes = Counter(r["error_kind"] or "ok" for r in run.records)
    assert set(outcomes) == {"ok", error_kind}, outcomes  # seeded: both occur, nothing else


def test_failures_show_in_locusts_statistics_with_their_class(simulator, tmp_path):
    host = simulator("fixed", 1.0, "--fixed-itl-ms", "2", "--faults", "http_500=1")
    run = run_locust([*FAST, "-H", host, "--ladder", "1", "--requests-per-user", "2"], tmp_path)
    assert run.returncode == 1  # Locust's exit code on failures
    assert "http_500: HTTP 500" in run.output


def test_mixed_faults_leave_every_request_recorded_and_classified(simulator, tmp_path):
    faults = "http_500=0.1,disconnect=0.1,malformed_sse=0.1,error_event=0.1"
    host = simulator("fixed", 1.0, "--fixed-itl-ms", "2", "--faults", faults, "--fault-seed", "3")
    run = run_locust([*FAST, "-H", host, "--ladder", "1,4", "--requests-per-user", "5"], tmp_path)
    assert run.manifest["status"] == "complete", run.output
    measured = [r for r in run.records if r["phase"] == "measure"]
    assert len(measured) == 5 + 20
    kinds = Counter(r["error_kind"] for r in measured if r["status"] == "error")
    assert set(kinds) <= {"http_500", "disconnect", "malformed_sse", "server_error_event"}
    assert 0 < sum(kinds.values()) < len(measured)


def record() -> RequestRecord:
    return RequestRecord("r", 1, 0, "measure", "local", 0, "h", "m", 0, 16, 0.0)


def test_connection_refused_is_a_connect_failure():
    connection = Connection(f"http://127.0.0.1:{free_port()}", timeout=5)
    request = StreamRequest(
        "/v1/chat/completions", plain_body("hi", 16), build_headers(None), 5, ChatStream
    )
    result = measure(connection, request, record())
    assert (result.status, result.error_kind) == ("error", "connect")
    assert result.latency is not None and result.tps is None


def test_the_report_shows_failure_counts_and_classes_per_level(simulator, tmp_path):
    from sparkload.cli import main as sparkload_main

    host = simulator(
        "fixed",
        1.0,
        "--fixed-itl-ms",
        "2",
        "--faults",
        "http_500=0.3,disconnect=0.3",
        "--fault-seed",
        "4",
    )
    run = run_locust([*FAST, "-H", host, "--ladder", "1,4", "--requests-per-user", "4"], tmp_path)
    assert sparkload_main(["report", str(run.run_dir), "--no-charts", "--quiet"]) == 0
    report = (run.run_dir / "report" / "report.md").read_text()
    measured = [r for r in run.records if r["phase"] == "measure"]
    for level in (1, 4):
        failed = Counter(
            r["error_kind"] for r in measured if r["level"] == level and r["status"] == "error"
        )
        row = next(line for line in report.splitlines() if line.startswith(f"| {level} | "))
        assert f"| {sum(failed.values())} |" in row
        assert all(f"{kind}: {count}" in row for kind, count in failed.items())
