"""What the manifest recorded about the path to the server and the prompt cache, in the report."""

from __future__ import annotations

import pandas as pd

from analysis.cli import main
from tests.analysis_synthetic import (
    closed_loop_level,
    make_record,
    markdown_table,
    write_run,
)

SERVERS = {
    "http://spark-1:8000/v1": {
        "version": "0.11.0",
        "headers": {"server": "nginx/1.22", "via": "1.1 varnish"},
    }
}
REQUEST = {
    "api": "chat",
    "extra_body": {"top_k": 20},
    "headers": {"X-Tenant": "secret-tenant-value"},
    "accept_encoding": "identity",
    "cache_bust": True,
}


def _report(tmp_path, records=None, **manifest):
    records = records or closed_loop_level(1, 0, 1000.0, ttft=0.2, itl=0.05, tps=20, latency=6.5)
    run = write_run(tmp_path / "results", "x", records, manifest_fields=manifest)
    out = tmp_path / "out"
    assert main([str(run), "--out", str(out), "--no-charts", "--quiet"]) == 0
    return pd.read_csv(out / "summary.csv"), (out / "report.md").read_text()


def test_the_runs_section_shows_server_identity_and_intermediaries(tmp_path):
    _, report = _report(tmp_path, servers=SERVERS)
    rows = markdown_table(report, "Servers and intermediaries (as recorded by the run)")
    assert rows[0] == ["Label", "Endpoint", "version", "headers: server", "headers: via"]
    assert rows[1] == ["x", "http://spark-1:8000/v1", "0.11.0", "nginx/1.22", "1.1 varnish"]


def test_request_settings_show_header_names_but_never_their_values(tmp_path):
    _, report = _report(tmp_path, request=REQUEST)
    assert "request settings: api: chat; extra_body: top_k; headers: X-Tenant;" in report
    assert "accept_encoding: identity" in report
    assert "secret-tenant-value" not in report


def test_the_users_metadata_is_shown_as_key_value(tmp_path):
    _, report = _report(tmp_path, metadata={"rack": "b2", "driver": "580.65"})
    assert "metadata `rack=b2`, `driver=580.65`" in report


def test_nothing_is_said_about_path_or_metadata_when_the_manifest_has_none(tmp_path):
    _, report = _report(tmp_path)
    assert "Servers and intermediaries" not in report
    assert "request settings" not in report and "metadata" not in report


def test_the_report_says_whether_prompts_were_cache_busted_or_reused(tmp_path):
    _, busted = _report(tmp_path / "a", request={"cache_bust": True})
    _, reused = _report(tmp_path / "b")
    assert "prompts **cache-busted**" in busted and "prompts **reused**" not in busted
    assert "prompts **reused** (the default" in reused


def test_stream_flags_show_beside_the_client_check_and_in_the_run_notes(tmp_path):
    level = {"index": 0, "concurrency": 1, "expected": 10, "started_at": "t", "received": 10}
    flag = "chunks arrive in bursts: a buffering proxy?"
    _, report = _report(tmp_path, levels=[{**level, "stream_flags": [flag]}])
    rows = markdown_table(report, "x: performance (means)")
    check = dict(zip(rows[0], rows[1], strict=True))
    assert (check["Client check"], check["Stream check"]) == ("ok", f"FLAGGED: {flag}")
    assert f"level C=1: stream flag {flag}" in report


def _cached_level(cached: int) -> list[dict]:
    return [
        make_record(
            1,
            0,
            ttft=0.2,
            itl=0.05,
            tps=20,
            latency=6.4,
            start_time=1000.0 + 7 * i,
            prompt_tokens=100,
            cached_tokens=cached,
        )
        for i in range(5)
    ]


def test_a_level_served_mostly_from_the_prompt_cache_is_flagged(tmp_path):
    summary, report = _report(tmp_path, _cached_level(60))
    assert summary.iloc[0]["cached_prompt_pct"] == 60.0
    assert "C=1 (60 %): at least 50 % of the prompt tokens were served from the prompt cache" in (
        report
    )
    assert "TTFT measures a warm cache" in report


def test_a_level_with_little_cached_prompt_is_not_flagged(tmp_path):
    summary, report = _report(tmp_path, _cached_level(40))
    assert summary.iloc[0]["cached_prompt_pct"] == 40.0
    assert "warm cache" not in report
