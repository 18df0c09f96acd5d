"""Exposing the web UI: Locust's --web-login with sparkload's username/password handler."""

from __future__ import annotations

import os
import subprocess

import pytest
import requests

from tests.conftest import free_port, locust_command, run_locust, wait_until_up

pytestmark = pytest.mark.e2e  # starts Locust, simulator or server processes

CREDENTIALS = {"SPARKLOAD_WEB_USER": "tester", "SPARKLOAD_WEB_PASSWORD": "s3cret-pass"}


@pytest.fixture
def guarded_ui(tmp_path):
    port = free_port()
    process = subprocess.Popen(
        locust_command("--web-port", str(port), "--web-login", "--results-dir", str(tmp_path)),
        env={**os.environ, **CREDENTIALS},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        stdin=subprocess.DEVNULL,
    )
    url = f"http://127.0.0.1:{port}"
    try:
        wait_until_up(url + "/login")
        yield url
    finally:
        process.terminate()
        process.wait(timeout=30)


def log_in(url: str, password: str) -> requests.Session:
    session = requests.Session()
    session.post(
        url + "/sparkload/login", data={"username": "tester", "password": password}, timeout=10
    )
    return session


def test_without_logging_in_the_statistics_are_refused(guarded_ui):
    response = requests.get(guarded_ui + "/stats/requests", timeout=10, allow_redirects=False)
    assert response.status_code in (302, 401)


def test_a_wrong_password_does_not_log_in(guarded_ui):
    response = log_in(guarded_ui, "guess").get(
        guarded_ui + "/stats/requests", timeout=10, allow_redirects=False
    )
    assert response.status_code in (302, 401)


def test_the_right_password_opens_the_ui_and_its_level_table(guarded_ui):
    session = log_in(guarded_ui, CREDENTIALS["SPARKLOAD_WEB_PASSWORD"])
    response = session.get(guarded_ui + "/stats/requests", timeout=10, allow_redirects=False)
    assert response.status_code == 200
    assert response.json()["extended_stats"][0]["key"] == "sparkload-levels"


def test_web_login_without_credentials_is_one_clear_error(tmp_path):
    env = {key: value for key, value in os.environ.items() if key not in CREDENTIALS}
    run = run_locust(["--web-port", str(free_port()), "--web-login"], tmp_path, env=env, timeout=60)
    assert run.returncode == 2 and "Traceback" not in run.output
    assert "--web-login needs SPARKLOAD_WEB_USER and SPARKLOAD_WEB_PASSWORD" in run.output
