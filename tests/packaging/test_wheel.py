"""An installed wheel (not an editable checkout) runs the main job and the web UI by itself."""

from __future__ import annotations

import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest
import requests

from sparkload import config
from sparkload.records.requests_files import read_records
from tests.conftest import ROOT, free_port

pytestmark = pytest.mark.e2e  # builds a wheel, installs it in a new virtualenv, runs it

# What a checkout may hold beside its sources, none of it read by the build.
UNPACKAGED = (
    ".git",
    ".venv",
    "build",
    "*.egg-info",
    "__pycache__",
    ".pytest_cache",
    "results",
    "mutants",
    ".mutmut-cache",
)


@pytest.fixture(scope="module")
def installed(tmp_path_factory) -> Path:
    """A fresh virtualenv with the built wheel installed; returns its bin directory.

    The wheel is built from a copy of the checkout: setuptools builds inside the source tree
    (build/, *.egg-info), so two test processes building from the checkout itself at once (CI
    runs the suite as several groups, and this module's tests may fall into two) collide there."""
    work = tmp_path_factory.mktemp("wheel")
    source = work / "source"
    shutil.copytree(ROOT, source, ignore=shutil.ignore_patterns(*UNPACKAGED))
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "--quiet",
            "--no-deps",
            "-w",
            str(work),
            str(source),
        ],
        check=True,
        timeout=300,
    )
    (wheel,) = work.glob("sparkload-*.whl")
    subprocess.run([sys.executable, "-m", "venv", str(work / "venv")], check=True, timeout=120)
    bin_dir = work / "venv" / "bin"
    subprocess.run(
        [str(bin_dir / "pip"), "install", "--quiet", "--disable-pip-version-check", str(wheel)],
        check=True,
        timeout=600,
    )
    return bin_dir


def test_the_installed_main_job_runs_against_the_simulator(installed, tmp_path):
    run = subprocess.run(
        [
            str(installed / "sparkload"),
            "run",
            "--headless",
            "--ladder",
            "1",
            "--requests-per-user",
            "1",
            "--results-dir",
            str(tmp_path / "results"),
        ],
        cwd=tmp_path,  # not the checkout: everything must come from the installed package
        capture_output=True,
        text=True,
        timeout=180,
        stdin=subprocess.DEVNULL,
    )
    assert run.returncode == 0, run.stdout + run.stderr
    (run_dir,) = (tmp_path / "results").iterdir()
    records = read_records(run_dir)
    assert [r["phase"] for r in records] == ["warmup", "measure"]
    assert all(r["status"] == "ok" for r in records)


def test_the_installed_locustfile_is_inside_the_virtualenv(installed):
    path = subprocess.run(
        [str(installed / "sparkload"), "locustfile"], capture_output=True, text=True, check=True
    ).stdout.strip()
    assert Path(path).is_file() and Path(path).is_relative_to(installed.parent)


def test_run_help_lists_every_option(installed):
    text = subprocess.run(
        [str(installed / "sparkload"), "run", "--help"], capture_output=True, text=True, check=True
    ).stdout
    missing = [option.flag for option in config.OPTIONS if option.flag not in text]
    assert not missing
    assert "(default: 1,2,4,8,16)" in text


def test_the_installed_web_ui_serves_the_levels_tab(installed, tmp_path):
    port = free_port()
    ui = subprocess.Popen(
        [
            str(installed / "sparkload"),
            "run",
            "--web-port",
            str(port),
            "--results-dir",
            str(tmp_path),
        ],
        cwd=tmp_path,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        stdin=subprocess.DEVNULL,
    )
    try:
        page = ""
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and "sparkload levels" not in page:
            try:
                page = requests.get(f"http://127.0.0.1:{port}/", timeout=2).text
            except requests.ConnectionError:
                time.sleep(0.5)
        assert "sparkload levels" in page
    finally:
        ui.terminate()
        ui.wait(timeout=30)
