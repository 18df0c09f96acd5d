"""Reading every node's Prometheus endpoint: which series are kept, how nodes are named, and what
each is sent."""

from __future__ import annotations

import re
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from sparkload.config.parsers import scrape_targets
from sparkload.errors import ConfigError
from sparkload.matrix import spec
from sparkload.run.scrape import (
    GAUGES,
    MetricsScraper,
    Source,
    check_nodes,
    parse_samples,
    simulator_nodes,
    sources,
)
from tests.conftest import free_port

DCGM = """\
# HELP DCGM_FI_DEV_POWER_USAGE Power draw (in W).
# TYPE DCGM_FI_DEV_POWER_USAGE gauge
DCGM_FI_DEV_POWER_USAGE{gpu="0",UUID="GPU-1",Hostname="spark-2"} 81.5
# HELP DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION Total energy consumption since boot (in mJ).
# TYPE DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION counter
DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION{gpu="0",UUID="GPU-1",Hostname="spark-2"} 123456789
# HELP DCGM_FI_DEV_FB_USED Framebuffer memory used (in MiB).
# TYPE DCGM_FI_DEV_FB_USED gauge
DCGM_FI_DEV_FB_USED{gpu="0",UUID="GPU-1",Hostname="spark-2"} 0
"""
NODE_EXPORTER = """\
# HELP node_cpu_seconds_total Seconds the CPUs spent in each mode.
# TYPE node_cpu_seconds_total counter
node_cpu_seconds_total{cpu="0",mode="idle"} 1000.5
node_cpu_seconds_total{cpu="0",mode="user"} 20.25
# HELP node_hwmon_power_average_watt Hardware monitor for power usage in watts (average)
# TYPE node_hwmon_power_average_watt gauge
node_hwmon_power_average_watt{chip="platform",sensor="power1"} 42.0
# HELP node_network_receive_bytes_total Network device statistic receive_bytes.
# TYPE node_network_receive_bytes_total counter
node_network_receive_bytes_total{device="eth0"} 1e+09
"""


def names(samples: list[dict]) -> set[str]:
    return {sample["name"] for sample in samples}


def test_dcgm_power_and_energy_are_kept_and_its_other_fields_dropped():
    assert names(parse_samples(DCGM)) == {
        "DCGM_FI_DEV_POWER_USAGE",
        "DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION_total",
    }


def test_node_exporter_cpu_and_hwmon_power_are_kept_and_its_network_dropped():
    assert names(parse_samples(NODE_EXPORTER)) == {
        "node_cpu_seconds_total",
        "node_hwmon_power_average_watt",
    }


def test_a_mid_level_sample_keeps_power_and_the_energy_counter_but_not_cpu_seconds():
    assert names(parse_samples(DCGM + NODE_EXPORTER, GAUGES)) == {
        "DCGM_FI_DEV_POWER_USAGE",
        "DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION_total",
        "node_hwmon_power_average_watt",
    }


def test_one_endpoints_metrics_are_node_api():
    assert sources(["http://spark-1:8000/v1"], {}) == [
        Source("api", "http://spark-1:8000/metrics", "http://spark-1:8000/v1")
    ]


def test_several_endpoints_are_numbered_and_scrape_nodes_follow_them():
    found = sources(["http://a:8000", "http://b:8000"], {"dcgm-a": "http://a:9400/metrics"})
    assert [(s.node, s.endpoint) for s in found] == [
        ("api-1", "http://a:8000"),
        ("api-2", "http://b:8000"),
        ("dcgm-a", None),
    ]


def test_a_simulated_tp2_cluster_has_one_node_endpoint_per_spark():
    assert simulator_nodes("http://127.0.0.1:5000", 2) == {
        "spark-1": "http://127.0.0.1:5000/node/1/metrics",
        "spark-2": "http://127.0.0.1:5000/node/2/metrics",
    }
    assert simulator_nodes("http://127.0.0.1:5000", 1) == {}  # its /metrics is the one node


def test_a_scrape_node_named_like_the_targets_own_metrics_is_refused():
    with pytest.raises(ConfigError, match="--scrape: api is the name of the target's own"):
        sources(["http://a:8000"], {"api": "http://a:9400/metrics"})


def test_scrape_targets_are_name_equals_url_and_get_metrics_when_pathless():
    parsed = scrape_targets("--scrape", ["spark-1=http://a:9400", "spark-2=http://b/m"])
    assert parsed == {"spark-1": "http://a:9400/metrics", "spark-2": "http://b/m"}


def test_one_environment_value_may_hold_several_scrape_targets():
    parsed = scrape_targets("--scrape", "a=http://a:1,b=http://b:2/metrics")
    assert list(parsed) == ["a", "b"]


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ("spark-2", "give NAME=URL"),
        ("spark 2=http://b:9400", "node name 'spark 2'"),
        ("a=http://b:1,a=http://c:1", "node a given twice"),
        ("a=ftp://b/metrics", "is not an http(s) URL"),
        ("a=http://me:secret@b:9400/metrics", "no credentials in the URL"),
    ],
)
def test_a_bad_scrape_target_is_one_line_naming_the_problem(value, message):
    with pytest.raises(ConfigError, match=re.escape(message)):
        scrape_targets("--scrape", value)


def test_a_matrix_target_scrapes_its_own_nodes():
    matrix = spec.parse(
        {
            "targets": [
                {
                    "endpoints": ["http://spark-1:8000"],
                    "variant": "fp8",
                    "scrape": {"spark-2": "http://spark-2:9400"},
                }
            ]
        },
        "m.yaml",
    )
    args = matrix.run_args(matrix.targets[0])
    assert args == ["--scrape", "spark-2=http://spark-2:9400/metrics"]


class _Recorder(BaseHTTPRequestHandler):
    seen: list[tuple[str, str | None]] = []

    def do_GET(self) -> None:
        self.seen.append((self.path, self.headers.get("Authorization")))
        body = DCGM.encode()
        self.send_response(200)
        self.send_header("Content-Type", "text/plain")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *_args) -> None:
        """Quiet."""


@contextmanager
def recording_server() -> Iterator[str]:
    _Recorder.seen = []
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Recorder)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


def test_the_api_key_goes_to_the_targets_metrics_only_never_to_a_scrape_node():
    with recording_server() as url:
        found = sources([f"{url}/v1"], {"spark-2": f"{url}/node/2/metrics"})
        MetricsScraper(found, api_key="sk-secret").take(0, 1, "start")
    assert sorted(_Recorder.seen) == [("/metrics", "Bearer sk-secret"), ("/node/2/metrics", None)]


def test_every_snapshot_names_its_node_and_only_the_targets_name_their_endpoint():
    with recording_server() as url:
        found = sources([url], {"spark-2": f"{url}/node/2/metrics"})
        taken = MetricsScraper(found).take(3, 4, "end")
    assert [(s["node"], s.get("endpoint")) for s in taken] == [("api", url), ("spark-2", None)]
    assert {s["level_index"] for s in taken} == {3}


def test_a_scrape_node_that_does_not_answer_is_bad_input_before_the_load():
    dead = Source("spark-2", f"http://127.0.0.1:{free_port()}/metrics")
    with pytest.raises(ConfigError, match="--scrape spark-2: .*ConnectionError"):
        check_nodes([dead], timeout=1.0)
