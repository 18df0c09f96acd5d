"""--prometheus-port end to end: a real Prometheus server scrapes the master every second while
the main job runs on the built-in simulator, and holds every level's TTFT histogram and level
gauges afterwards; a port that cannot be listened on stops the run before any load."""

from __future__ import annotations

import os
import shutil
import socket
import statistics
import subprocess
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import pytest
import requests

from tests.conftest import LocustRun, free_port, run_locust

PROMETHEUS = shutil.which("prometheus")
if PROMETHEUS is None and os.environ.get("SPARKLOAD_REQUIRE_PROMETHEUS"):
    raise RuntimeError("SPARKLOAD_REQUIRE_PROMETHEUS is set but no prometheus was found")
pytestmark = pytest.mark.e2e  # starts Locust, the simulator and Prometheus
needs_prometheus = pytest.mark.skipif(
    PROMETHEUS is None, reason="needs Debian's prometheus (.ci/run installs it)"
)
# Three measured requests a user, 10x simulated time: each level lasts about 3-4 real seconds,
# several 1 s scrapes, and the whole run about 10 s.
RUN = ["--headless", "--ladder", "1,2", "--requests-per-user", "3", "--sim-time-scale", "10"]
CONFIG = """\
global:
  scrape_interval: 1s
  scrape_timeout: 1s
scrape_configs:
  - job_name: sparkload
    static_configs:
      - targets: ["127.0.0.1:{port}"]
"""


@dataclass
class Scraped:
    run: LocustRun
    api: str  # Prometheus's base URL

    def query(self, promql: str) -> list[dict]:
        return query(self.api, promql)

    def by_level(self, promql: str) -> dict[str, list[float]]:
        """Each series' sample values, by its ``level`` label."""
        return {
            series["metric"]["level"]: [float(value) for _, value in series["values"]]
            for series in self.query(promql)
        }


def query(api: str, promql: str) -> list[dict]:
    """An instant query's result (a range selector's: its raw samples)."""
    body = requests.get(f"{api}/api/v1/query", params={"query": promql}, timeout=10).json()
    assert body["status"] == "success", body
    return body["data"]["result"]


@contextmanager
def prometheus_server(tmp: Path, target_port: int) -> Iterator[str]:
    """A Prometheus on a free 127.0.0.1 port scraping ``target_port`` every second, yielded
    once it has scraped (its API's URL); stopped after."""
    assert PROMETHEUS is not None
    config = tmp / "prometheus.yml"
    config.write_text(CONFIG.format(port=target_port))
    port = free_port()
    log = (tmp / "prometheus.log").open("w")
    process = subprocess.Popen(
        [
            PROMETHEUS,
            f"--config.file={config}",
            f"--storage.tsdb.path={tmp / 'data'}",
            f"--web.listen-address=127.0.0.1:{port}",
            "--log.level=warn",
        ],
        stdout=subprocess.DEVNULL,
        stderr=log,
        stdin=subprocess.DEVNULL,
    )
    api = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 20
        while True:
            try:
                if requests.get(f"{api}/-/ready", timeout=2).status_code == 200:
                    break
            except requests.ConnectionError:
                pass
            assert process.poll() is None, (tmp / "prometheus.log").read_text()
            assert time.monotonic() < deadline, "Prometheus was not ready in 20 s"
            time.sleep(0.1)
        # Prometheus applies its targets up to 5 s after it starts (its scrape manager's reload
        # tick): until its first scrape of the (still absent) target, a run would go unseen.
        while not query(api, 'up{job="sparkload"}'):
            assert time.monotonic() < deadline, "Prometheus did not scrape within 20 s"
            time.sleep(0.2)
        yield api
    finally:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        log.close()


@pytest.fixture(scope="module")
def scraped(tmp_path_factory) -> Iterator[Scraped]:
    tmp = tmp_path_factory.mktemp("prometheus")
    port = free_port()
    with prometheus_server(tmp, port) as api:
        args = [*RUN, "--prometheus-port", str(port), "--prometheus-host", "127.0.0.1"]
        run = run_locust(args, tmp / "results", timeout=60)
        assert run.returncode == 0, run.output
        yield Scraped(run, api)


def measured(run: LocustRun, level_index: int) -> list[dict]:
    return [r for r in run.records if r["level_index"] == level_index and r["phase"] == "measure"]


@needs_prometheus
def test_prometheus_scraped_the_master_while_the_run_went(scraped):
    up = [float(v) for s in scraped.query("up[5m]") for _, v in s["values"]]
    assert 1.0 in up


@needs_prometheus
def test_prometheus_holds_the_ttft_histogram_of_every_level(scraped):
    counts = scraped.by_level('sparkload_ttft_seconds_count{job="sparkload"}[5m]')
    assert set(counts) == {"1", "2"}
    assert max(counts["1"]) == len(measured(scraped.run, 0))  # ended well before the run did
    assert 0 < max(counts["2"]) <= len(measured(scraped.run, 1))
    buckets = scraped.query('sparkload_ttft_seconds_bucket{level="1"}[5m]')
    assert {s["metric"]["le"] for s in buckets} >= {"0.005", "60.0", "+Inf"}


@needs_prometheus
def test_the_level_gauge_was_scraped_at_every_level(scraped):
    indices = {v for s in scraped.query("sparkload_level_index[5m]") for _, v in s["values"]}
    assert indices == {"0", "1"}
    info = scraped.by_level("sparkload_level_info[5m]")
    assert set(info) == {"1", "2"} and all(
        values == [1.0] * len(values) for values in info.values()
    )
    concurrency = {
        v for s in scraped.query("sparkload_level_concurrency[5m]") for _, v in s["values"]
    }
    assert concurrency == {"1", "2"}


@needs_prometheus
def test_a_ttft_quantile_from_prometheus_lies_in_the_bucket_of_the_records_median(scraped):
    """PromQL's histogram_quantile over the exporter's buckets agrees with the records (in
    simulated seconds, as the exporter observes them) to the bucket."""
    level = 'sparkload_ttft_seconds_bucket{level="1"}'
    answer = scraped.query(f"histogram_quantile(0.5, max_over_time({level}[5m]))")
    estimate = float(answer[0]["value"][1])
    scale = scraped.run.manifest["time_scale"]
    median = statistics.median(r["ttft"] * scale for r in measured(scraped.run, 0))
    bounds = [0.0, *(float(s["metric"]["le"]) for s in scraped.query(f"{level}[5m]"))]
    low = max(b for b in bounds if b < median)
    high = min(b for b in bounds if b >= median)
    assert low <= estimate <= high


@needs_prometheus
def test_the_series_carry_the_runs_label_and_variant(scraped):
    manifest = scraped.run.manifest
    series = scraped.query("sparkload_requests_completed_total[5m]")
    assert {(s["metric"]["label"], s["metric"]["variant"]) for s in series} == {
        (manifest["label"], manifest["variant"])
    }


def test_a_port_that_is_taken_ends_the_run_with_one_line_before_any_load(tmp_path):
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        args = ["--headless", "--prometheus-port", str(port), "--prometheus-host", "127.0.0.1"]
        run = run_locust(args, tmp_path, timeout=60)
    assert run.returncode == 2, run.output
    assert "Traceback" not in run.output and run.run_dir is None
    assert f"sparkload: error: --prometheus-port {port}: cannot listen on 127.0.0.1:" in run.output
