"""The API key reaches the server and nothing else: results, manifest, logs, CSV, HTML, web UI."""

from __future__ import annotations

import subprocess

import psutil
import pytest
import requests

from tests.conftest import free_port, locust_command, run_locust, wait_until_up

pytestmark = pytest.mark.e2e  # starts Locust, simulator or server processes

KEY = "sk-sparkload-test-0123456789abcdef"


def every_file_below(path):
    return [p for p in path.rglob("*") if p.is_file()]


def test_the_api_key_given_as_an_option_appears_in_no_output(simulator, tmp_path):
    host = simulator("fixed", 1.0, "--fixed-itl-ms", "1")
    out = tmp_path / "out"
    run = run_locust(
        [
            "--headless",
            "-H",
            host,
            "--api-key",
            KEY,
            "--ladder",
            "1,2",
            "--requests-per-user",
            "1",
            "--max-tokens",
            "8",
            "--csv",
            str(out / "locust"),
            "--html",
            str(out / "locust.html"),
            "--loglevel",
            "DEBUG",
        ],
        tmp_path / "results",
    )
    assert run.returncode == 0, run.output
    files = every_file_below(tmp_path)
    assert {p.suffix for p in files} >= {
        ".json",
        ".jsonl",
        ".csv",
        ".html",
    }  # the grep covers every kind
    assert KEY not in run.output
    for path in files:
        assert KEY.encode() not in path.read_bytes(), path


def test_the_api_key_from_the_environment_appears_in_no_output(simulator, tmp_path):
    host = simulator("fixed", 1.0, "--fixed-itl-ms", "1")
    run = run_locust(
        [
            "--headless",
            "-H",
            host,
            "--ladder",
            "1",
            "--requests-per-user",
            "1",
            "--max-tokens",
            "8",
        ],
        tmp_path,
        env={"OPENAI_API_KEY": KEY},
    )
    assert run.returncode == 0, run.output
    assert KEY not in run.output
    assert all(KEY.encode() not in p.read_bytes() for p in every_file_below(tmp_path))


def test_the_web_ui_never_shows_the_api_key(tmp_path):
    port = free_port()
    process = subprocess.Popen(
        locust_command("--web-port", str(port), "--api-key", KEY, "--results-dir", str(tmp_path)),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        stdin=subprocess.DEVNULL,
    )
    try:
        url = f"http://127.0.0.1:{port}"
        wait_until_up(url)
        pages = [requests.get(url + path, timeout=10).text for path in ("/", "/stats/requests")]
    finally:
        process.terminate()
        process.wait(timeout=30)
    assert all(KEY not in page for page in pages)
    assert "sparkload levels" in pages[0]  # it is the page with our options on it


def test_the_web_ui_listens_on_loopback_only_by_default(tmp_path):
    port = free_port()
    process = subprocess.Popen(
        locust_command("--web-port", str(port), "--results-dir", str(tmp_path)),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        stdin=subprocess.DEVNULL,
    )
    try:
        wait_until_up(f"http://127.0.0.1:{port}")
        listening = [
            c.laddr.ip
            for c in psutil.Process(process.pid).net_connections("tcp")
            if c.status == psutil.CONN_LISTEN and c.laddr.port == port
        ]
    finally:
        process.terminate()
        process.wait(timeout=30)
    assert listening == ["127.0.0.1"]
