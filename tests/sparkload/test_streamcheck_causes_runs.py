"""The whole path, end to end through Locust against servers nobody sees inside: a server that
sends each reply as one event is flagged collapsed, fails --check and has no ITL anywhere; one
that delivers its streams in bursts, directly, is flagged as the server's bursts, not as an
intermediary's buffering; and a level where every request failed has no data for its checks."""

from __future__ import annotations

import json
import math

import pytest

from analysis.cli import main as report_main
from sparkload.records import (
    CHECK_NO_DATA,
    EXIT_CHECK_FAILED,
    STREAM_COLLAPSED,
    STREAM_PARTIAL_BURST,
)
from tests.conftest import run_locust
from tests.servers import Script, scripted

pytestmark = pytest.mark.e2e  # starts Locust processes

DIRECT = b"Server: uvicorn\r\n"  # vLLM's own header: nothing on the path names itself
ONE_EVENT = Script(tokens=64, one_event=True, extra_headers=DIRECT)
BURSTS = Script(tokens=64, gap=0.005, bursts_of=32, extra_headers=DIRECT)  # two bursts a reply
ONE_LEVEL = ["--ladder", "2", "--requests-per-user", "2", "--max-tokens", "64"]


def run_against(script: Script, tmp_path, *args: str):
    with scripted(script) as server:
        return run_locust(
            ["--headless", "-H", server.url, *ONE_LEVEL, "--no-server-metrics", *args],
            tmp_path / "results",
            timeout=90,
        )


def check_lines(output: str) -> list[str]:
    return [line for line in output.splitlines() if line.startswith("check ")]


def test_a_server_sending_each_reply_as_one_event_is_collapsed_and_fails_any_check(tmp_path):
    run = run_against(ONE_EVENT, tmp_path, "--check", "ttft_p90_ms<=100000")
    assert run.returncode == EXIT_CHECK_FAILED, run.output
    (level,) = run.manifest["levels"]
    assert level["stream_flag_kinds"][0] == STREAM_COLLAPSED
    assert level["stream"]["burst_cause"] == "server"  # whatever the client check says
    assert "64 of 64 tokens of the median request arrived in one burst" in level["stream_flags"][0]
    assert "in one burst from the server" in level["stream_flags"][0]
    (line,) = check_lines(run.output)
    assert "C=2: stream check: collapsed stream" in line


def test_a_reply_in_one_event_has_no_itl_in_records_summary_or_report(tmp_path):
    run = run_against(ONE_EVENT, tmp_path)
    measured = [r for r in run.records if r["phase"] == "measure"]
    assert {(r["chunks"], r["output_tokens"], r["itl"]) for r in measured} == {(1, 64, None)}
    assert report_main([str(run.run_dir), "--no-charts", "--quiet"]) == 0
    (level,) = json.loads((run.run_dir / "report" / "summary.json").read_text())["levels"]
    assert level["itl_n"] == 0
    assert level["itl_ms_mean"] is None or math.isnan(level["itl_ms_mean"])
    report = (run.run_dir / "report" / "report.md").read_text()
    assert "0.00" not in next(line for line in report.splitlines() if "| 2 |" in line)


def test_a_server_bursting_its_streams_directly_is_flagged_as_its_own_not_a_proxys(tmp_path):
    run = run_against(BURSTS, tmp_path)
    (level,) = run.manifest["levels"]
    assert level["stream_flag_kinds"] == [STREAM_PARTIAL_BURST]
    (flag,) = level["stream_flags"]
    assert "buffering" not in flag  # nothing on the path named itself
    # an idle client: the server's; a busy machine may have flagged the client, which could
    # have read the bursts together (the rule itself: tests/sparkload/test_streamcheck.py)
    cause = "client" if level["client_flags"] else "server"
    assert level["stream"]["burst_cause"] == cause
    if cause == "server":
        assert "arrived in bursts from the server" in flag
    assert f"partial burst 32/64 from {cause}" in run.output  # the live table


def test_a_level_where_every_request_failed_says_its_checks_have_no_data(tmp_path):
    failing = Script(status_line=b"HTTP/1.1 500 Internal Server Error", extra_headers=DIRECT)
    run = run_against(failing, tmp_path)
    table = run.output[run.output.index("C / rate") :].splitlines()
    header, row = table[0], table[1]
    assert header.rstrip().endswith("client check  stream check")
    assert row.split()[1:3] == ["0", "4"]  # n 0, 4 failed
    # the stream check has no request to judge; the client check judges the client's own loop,
    # which a busy machine may have flagged (no samples at all: no data, the collector's tests)
    assert row.rstrip().endswith(CHECK_NO_DATA)
