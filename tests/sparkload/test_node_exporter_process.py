"""`sparkload node-exporter` as a process, with a stand-in nvidia-smi first on PATH."""

from __future__ import annotations

import json
import os
import select
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
import requests
from prometheus_client.parser import text_string_to_metric_families

from analysis.cli import main as analysis_main
from tests.conftest import run_locust

pytestmark = pytest.mark.e2e  # starts the exporter (and Locust)

SPARKLOAD = str(Path(sys.executable).with_name("sparkload"))
READY = "sparkload node-exporter listening on "
QUERY = "--query-gpu=power.draw,clocks.sm,clocks.max.sm,temperature.gpu,utilization.gpu"
# Answers only the exporter's exact query, as the real one would answer it.
STAND_IN = f"""#!/bin/sh
if [ "$1" = "{QUERY}" ] && [ "$2" = "--format=csv,noheader,nounits" ]; then
  echo "123.45, 2405, 3003, 61, 87"
else
  echo "unexpected arguments: $*" >&2; exit 6
fi
"""


@contextmanager
def exporter(tmp_path: Path, path: str, *args: str) -> Iterator[tuple[str, Path]]:
    """The exporter on a free loopback port with this PATH: its /metrics URL and stderr file."""
    stderr = tmp_path / "stderr"
    with stderr.open("w") as err:
        process = subprocess.Popen(
            [SPARKLOAD, "node-exporter", "--host", "127.0.0.1", "--port", "0", *args],
            stdout=subprocess.PIPE,
            stderr=err,
            stdin=subprocess.DEVNULL,
            text=True,
            env={**os.environ, "PATH": path},
        )
    try:
        assert process.stdout is not None
        ready, _, _ = select.select([process.stdout], [], [], 30)
        line = process.stdout.readline() if ready else ""
        assert line.startswith(READY), stderr.read_text()
        yield line[len(READY) :].strip(), stderr
    finally:
        process.terminate()
        assert process.wait(timeout=10) == 0


def served(url: str) -> dict[str, float]:
    text = requests.get(url, timeout=10).text
    return {s.name: s.value for f in text_string_to_metric_families(text) for s in f.samples}


def test_a_stand_in_nvidia_smi_power_reading_is_served_as_the_power_gauge(tmp_path):
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "nvidia-smi").write_text(STAND_IN)
    (bin_dir / "nvidia-smi").chmod(0o755)
    with exporter(tmp_path, f"{bin_dir}{os.pathsep}{os.environ['PATH']}") as (url, stderr):
        metrics = served(url)
    assert metrics["sparkload_gpu_power_watts"] == 123.45
    assert metrics["sparkload_gpu_sm_clock_mhz"] == 2405.0
    assert metrics["sparkload_gpu_temperature_celsius"] == 61.0
    assert stderr.read_text() == ""


def test_without_nvidia_smi_one_line_says_so_and_the_host_is_still_served(tmp_path):
    empty = tmp_path / "empty"
    empty.mkdir()
    with exporter(tmp_path, str(empty)) as (url, stderr):
        metrics = served(url)
    assert stderr.read_text().splitlines() == [
        "sparkload node-exporter: nvidia-smi not found; serving the host's CPU and memory only"
    ]
    assert metrics["sparkload_nvidia_smi_up"] == 0.0
    assert metrics["sparkload_host_memory_total_bytes"] > 0


def test_a_bad_option_value_is_one_line_and_exit_code_2():
    done = subprocess.run(
        [SPARKLOAD, "node-exporter", "--port", "70000"], capture_output=True, text=True, timeout=30
    )
    assert done.returncode == 2
    assert done.stderr == "sparkload node-exporter: error: --port 70000: give 0..65535\n"


def test_a_scraped_exporter_gives_its_nodes_energy_and_flags_its_slow_clock(tmp_path):
    """The stand-in's 123.45 W throughout: joules / seconds give it back; its SM clock, 2405 of
    3003 MHz (80 %) at 87 % utilization, is throttling."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "nvidia-smi").write_text(STAND_IN)
    (bin_dir / "nvidia-smi").chmod(0o755)
    path = f"{bin_dir}{os.pathsep}{os.environ['PATH']}"
    with exporter(tmp_path, path, "--interval", "0.2") as (url, _):
        run = run_locust(
            ["--headless", "--ladder", "1", "--requests-per-user", "2", "--metrics-interval", "0.5"]
            + ["--scrape", f"spark-2={url}"],
            tmp_path / "results",
        )
    assert run.returncode == 0, run.output
    out = tmp_path / "report"
    assert analysis_main([str(run.run_dir), "--out", str(out), "--no-charts", "--quiet"]) == 0
    nodes = {n["node"]: n for n in json.loads((out / "summary.json").read_text())["nodes"]}
    spark_2 = nodes["spark-2"]
    assert spark_2["energy_method"].startswith("counter sparkload_gpu_energy_joules")
    assert spark_2["mean_w"] == pytest.approx(123.45, rel=0.02)
    assert spark_2["throttle"].startswith("SM clock down to 2405 MHz of 3003 (80%) while busy")
    assert "THROTTLED: awq-mtp-tp1 C=1, node spark-2" in (out / "report.md").read_text()
