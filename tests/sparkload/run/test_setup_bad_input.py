"""Bad input ends with one clear line and a non-zero exit, before any load, never a traceback."""

from __future__ import annotations

import pytest

from tests.conftest import free_port, run_locust

pytestmark = pytest.mark.e2e  # starts Locust, simulator or server processes


def error_lines(output: str) -> list[str]:
    return [line for line in output.splitlines() if "error" in line.lower()]


def assert_clean_failure(run, expected: str) -> None:
    assert run.returncode == 2, run.output
    assert "Traceback" not in run.output
    assert len(error_lines(run.output)) == 1, run.output
    assert expected in run.output
    assert run.run_dir is None  # nothing was started, so nothing was written


@pytest.mark.parametrize(
    "args, expected",
    [
        (["--ladder", "1,x"], "--ladder: 'x' is not a whole number"),
        (["--ladder", "0"], "--ladder: '0' must be 1 or more"),
        (["--requests-per-user", "many"], "--requests-per-user: 'many' is not a whole number"),
        (["--request-timeout", "0"], "--request-timeout: must be more than 0"),
        (
            ["--find-capacity", "ttft_p90_ms<=1500", "--sustain", "60"],
            "--sustain: '60' is not a duration: give a number with its unit",
        ),
        (["--sustain", "60s"], "--sustain holds the load a capacity search found"),
        (
            ["--quality-probe", "no-such.jsonl"],
            "--quality-probe: no such file: no-such.jsonl (or give one of arithmetic, retrieval)",
        ),
    ],
)
def test_bad_option_values(tmp_path, args, expected):
    assert_clean_failure(run_locust(["--headless", *args], tmp_path), expected)


def test_unknown_option(tmp_path):
    run = run_locust(["--headless", "--no-such-option"], tmp_path)
    assert run.returncode == 2 and "Traceback" not in run.output
    assert "unrecognized arguments: --no-such-option" in run.output


def test_empty_prompt_file(tmp_path):
    empty = tmp_path / "empty.txt"
    empty.write_text("\n")
    assert_clean_failure(
        run_locust(["--headless", "--prompts", str(empty)], tmp_path / "r"), "holds no prompts"
    )


def test_missing_prompt_file(tmp_path):
    run = run_locust(["--headless", "--prompts", str(tmp_path / "nope.txt")], tmp_path / "r")
    assert_clean_failure(run, "--prompts: no such file")


def test_results_dir_that_cannot_be_created(tmp_path):
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    run = run_locust(["--headless"], blocker / "results")
    assert_clean_failure(run, "is not a directory")


def test_unreachable_host(tmp_path):
    run = run_locust(["--headless", "-H", f"http://127.0.0.1:{free_port()}"], tmp_path)
    assert_clean_failure(run, "cannot reach")
