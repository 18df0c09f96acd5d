"""The web UI driven over HTTP, as docs/web-ui.md shows it: ``POST /swarm`` with the options as
form fields, ``POST /stop``; a wrong method is told the right one."""

from __future__ import annotations

import json
import subprocess
import time
from pathlib import Path
from types import SimpleNamespace

import pytest
import requests
from flask import Flask, jsonify

from sparkload.plugin import webui
from sparkload.records import EXIT_INTERRUPTED
from sparkload.records.requests_files import read_records
from tests.conftest import free_port, locust_command, wait_until_up


def served() -> Flask:
    """A Flask app standing in for Locust's web UI (its ``POST /stop``), with sparkload's
    additions on it."""
    app = Flask(__name__)
    app.add_url_rule("/stop", "stop", lambda: jsonify(success=True), methods=["POST"])
    ui = SimpleNamespace(template_args={}, app=app, auth_required_if_enabled=lambda view: view)
    webui.extend(ui, SimpleNamespace(collector=None, last_rows=[]))
    return app


def test_get_stop_is_answered_in_json_naming_post_with_the_allow_header():
    answer = served().test_client().get("/stop")
    assert answer.status_code == 405
    assert answer.get_json() == {"success": False, "message": "GET /stop is not allowed: use POST"}
    assert "POST" in answer.headers["Allow"]


def manifests(results: Path) -> list[dict]:
    return [json.loads(path.read_text()) for path in sorted(results.glob("*/manifest.json"))]


def wait_for(results: Path, done, timeout: float = 60) -> list[dict]:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        found = manifests(results)
        if done(results, found):
            return found
        time.sleep(0.2)
    raise AssertionError(f"not reached in {timeout} s: {manifests(results)}")


def records_in(results: Path) -> int:
    return sum(len(read_records(path.parent)) for path in results.glob("*/manifest.json"))


@pytest.mark.e2e
def test_swarm_with_form_fields_runs_the_ladder_and_stop_closes_it_stopped(tmp_path):
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    process = subprocess.Popen(
        locust_command("--web-port", str(port), "--results-dir", str(tmp_path)),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        wait_until_up(url)
        started = requests.post(
            url + "/swarm", data={"ladder": "1,2", "requests_per_user": "3"}, timeout=10
        )
        (complete,) = wait_for(
            tmp_path, lambda _r, found: found and found[0]["status"] != "running"
        )
        requests.post(
            url + "/swarm", data={"ladder": "1,2,4", "requests_per_user": "20"}, timeout=10
        )
        wait_for(tmp_path, lambda results, found: len(found) == 2 and records_in(results) > 12)
        stopped = requests.post(url + "/stop", timeout=30)
        process.terminate()
        _, stderr = process.communicate(timeout=60)
    finally:
        process.kill()
        process.wait()
    assert started.json()["success"] is True and stopped.json()["success"] is True
    assert complete["status"] == "complete"
    assert [level["concurrency"] for level in complete["levels"]] == [1, 2]
    assert manifests(tmp_path)[1]["status"] == "stopped"
    assert process.returncode == EXIT_INTERRUPTED and "Traceback" not in stderr
