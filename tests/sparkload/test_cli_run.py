"""``sparkload run``'s own errors name ``sparkload run``, not the ``locust`` it runs inside."""

from __future__ import annotations

import subprocess
import sys

from sparkload.records import EXIT_BAD_INPUT


def run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "sparkload.cli", "run", *args],
        capture_output=True,
        text=True,
        timeout=60,
        stdin=subprocess.DEVNULL,
    )


def test_an_unknown_option_is_sparkload_runs_error_with_exit_2():
    answer = run("--bogus")
    assert answer.returncode == EXIT_BAD_INPUT
    assert answer.stderr.startswith("sparkload run: error: unrecognized arguments: --bogus")
    assert "locust: error" not in answer.stderr


def test_an_option_without_its_value_is_sparkload_runs_error_too():
    answer = run("--ladder")
    assert answer.returncode == EXIT_BAD_INPUT
    assert answer.stderr == "sparkload run: error: argument --ladder: expected one argument\n"
