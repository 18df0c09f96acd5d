"""deploy/prometheus/prometheus.yml: a valid Prometheus configuration (promtool's check) that
scrapes the sparkload master, sparkload node-exporter and dcgm-exporter on their ports."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest
import yaml

from sparkload.node_exporter import DEFAULT_PORT

CONFIG = Path(__file__).resolve().parents[2] / "deploy" / "prometheus" / "prometheus.yml"
PROMTOOL = shutil.which("promtool")
if PROMTOOL is None and os.environ.get("SPARKLOAD_REQUIRE_PROMETHEUS"):
    raise RuntimeError("SPARKLOAD_REQUIRE_PROMETHEUS is set but no promtool was found")


def ports(job: str) -> set[int]:
    jobs = {j["job_name"]: j for j in yaml.safe_load(CONFIG.read_text())["scrape_configs"]}
    targets = [t for c in jobs[job]["static_configs"] for t in c["targets"]]
    return {int(target.rsplit(":", 1)[1]) for target in targets}


def test_it_scrapes_the_master_node_exporter_and_dcgm_exporter_on_their_ports():
    assert ports("sparkload") == {9402}  # the port docs/prometheus.md suggests
    assert ports("sparkload-node-exporter") == {DEFAULT_PORT}
    assert ports("dcgm-exporter") == {9400}


@pytest.mark.skipif(PROMTOOL is None, reason="needs Debian's prometheus (promtool)")
def test_promtool_accepts_it():
    checked = subprocess.run([PROMTOOL, "check", "config", str(CONFIG)], capture_output=True)
    assert checked.returncode == 0, checked.stdout + checked.stderr
