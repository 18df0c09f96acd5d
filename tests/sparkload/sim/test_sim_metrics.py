"""The simulator's power gauges over HTTP: DCGM's names on /metrics and one endpoint per node."""

from __future__ import annotations

import pytest
import requests
from prometheus_client.parser import text_string_to_metric_families

from tests.servers import running_sim

pytestmark = pytest.mark.e2e  # starts the simulator

POWER = "DCGM_FI_DEV_POWER_USAGE"
ENERGY = "DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION_total"


@pytest.fixture(scope="module")
def tp2_url():
    with running_sim("--profile", "fp8", "--tp", "2", "--time-scale", "50") as url:
        yield url


def samples(url: str) -> dict[str, list]:
    response = requests.get(url, timeout=10)
    assert response.status_code == 200
    found: dict[str, list] = {}
    for family in text_string_to_metric_families(response.text):
        for sample in family.samples:
            found.setdefault(sample.name, []).append(sample)
    return found


def test_metrics_carry_the_head_nodes_power_and_energy_beside_vllms_series(tp2_url):
    found = samples(f"{tp2_url}/metrics")
    assert "vllm:num_requests_running" in found
    assert [s.labels["Hostname"] for s in found[POWER]] == ["spark-1"]
    assert found[POWER][0].value == 25.0  # idle: nothing sent yet
    assert found[ENERGY][0].value > 0


def test_every_node_of_the_tp_group_has_its_own_metrics_endpoint(tp2_url):
    hosts = [
        samples(f"{tp2_url}/node/{node}/metrics")[POWER][0].labels["Hostname"] for node in (1, 2)
    ]
    assert hosts == ["spark-1", "spark-2"]


def test_a_node_endpoint_serves_power_only(tp2_url):
    assert set(samples(f"{tp2_url}/node/2/metrics")) == {POWER, ENERGY}


def test_the_head_node_read_twice_is_one_gpu(tp2_url):
    head = samples(f"{tp2_url}/metrics")[POWER][0].labels["UUID"]
    assert samples(f"{tp2_url}/node/1/metrics")[POWER][0].labels["UUID"] == head
    assert samples(f"{tp2_url}/node/2/metrics")[POWER][0].labels["UUID"] != head


def test_a_node_beyond_the_tp_group_is_not_found(tp2_url):
    assert requests.get(f"{tp2_url}/node/3/metrics", timeout=10).status_code == 404
    assert requests.get(f"{tp2_url}/node/x/metrics", timeout=10).status_code == 404
