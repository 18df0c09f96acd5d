"""deploy/grafana/sparkload-dashboard.json: it loads, every panel queries the dashboard's
Prometheus, and it names only metrics that exist: the exporter's (--prometheus-port), sparkload
node-exporter's and the dcgm-exporter gauges docs/prometheus.md names; its PromQL parses."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest
import yaml
from prometheus_client import CollectorRegistry, generate_latest
from prometheus_client.parser import text_string_to_metric_families

from sparkload.node_exporter import GpuReading, HostReading, Sampler, State, StateCollector
from sparkload.records import TELEMETRY
from sparkload.run.livetable import LevelTally
from sparkload.run.prometheus import RunMetrics

ROOT = Path(__file__).resolve().parents[2]
DASHBOARD = ROOT / "deploy" / "grafana" / "sparkload-dashboard.json"
DOCS = ROOT / "docs" / "prometheus.md"
# The dcgm-exporter gauges the dashboard may show (docs/prometheus.md lists them)
DCGM = (
    "DCGM_FI_DEV_POWER_USAGE",
    "DCGM_FI_DEV_GPU_UTIL",
    "DCGM_FI_DEV_SM_CLOCK",
    "DCGM_FI_DEV_GPU_TEMP",
    "DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION",
)
METRIC = re.compile(r"\b(?:sparkload|DCGM)_[A-Za-z0-9_]+\b")
PROMTOOL = shutil.which("promtool")
if PROMTOOL is None and os.environ.get("SPARKLOAD_REQUIRE_PROMETHEUS"):
    raise RuntimeError("SPARKLOAD_REQUIRE_PROMETHEUS is set but no promtool was found")


def sample_names(registry: CollectorRegistry) -> set[str]:
    text = generate_latest(registry).decode()
    return {s.name for f in text_string_to_metric_families(text) for s in f.samples}


def exporter_names() -> set[str]:
    """Every sample the exporter serves, with a closed and an open-loop level and a failure."""
    metrics = RunMetrics()
    metrics.run_began("run", "variant", lambda: 0)
    closed, open_loop = LevelTally(0, 1, 1), LevelTally(1, 8, None, arrival_rate=2.0)
    metrics.level_began(closed)
    metrics.level_began(open_loop)
    base = {"phase": "measure", "level_index": 1, "level": 8}
    answered = {**base, "status": "ok", "ttft": 0.1, "ttfo": 0.1, "itl": 0.02, "latency": 1.0}
    closed.add({**answered, "tps": 10.0})  # the collector's tally: the level's tokens/s
    metrics.took([answered, {**base, "status": "error", "error_kind": "timeout"}])
    return sample_names(metrics.registry)


def node_exporter_names() -> set[str]:
    sampler = Sampler(["nvidia-smi"], 1.0, lambda _line: None)
    gpu = GpuReading(50.0, 2400.0, 3000.0, 60.0, 90.0)
    sampler.state = State([gpu], [gpu], [0.0], 0.0, HostReading(10.0, 1e9, 128e9), True)
    registry = CollectorRegistry()
    registry.register(StateCollector(sampler))
    return sample_names(registry)


def dashboard() -> dict:
    return json.loads(DASHBOARD.read_text())


def panels() -> list[dict]:
    found = []
    for panel in dashboard()["panels"]:
        found += [panel, *panel.get("panels", [])]
    return found


def queries() -> list[str]:
    exprs = [t["expr"] for p in panels() for t in p.get("targets", [])]
    variables = dashboard()["templating"]["list"]
    return exprs + [v["definition"] for v in variables if v["type"] == "query"]


def named() -> set[str]:
    return {name for query in queries() for name in METRIC.findall(query)}


def test_the_dashboard_is_json_with_a_title_a_uid_and_panels():
    board = dashboard()
    assert board["title"] and board["uid"] and len(panels()) > 10


def test_it_names_only_metrics_the_exporters_serve():
    known = exporter_names() | node_exporter_names() | set(DCGM)
    assert named() - known == set()


def test_it_shows_every_family_of_the_runs_exporter():
    families = {n.removesuffix("_total") for n in exporter_names() if not n.endswith("_created")}
    families = {re.sub(r"_(bucket|sum|count)$", "", name) for name in families}
    shown = {re.sub(r"_(bucket|sum|count|total)$", "", name) for name in named()}
    assert families - shown == set()


def test_it_shows_dcgms_power_and_utilization_beside_node_exporters():
    assert {"DCGM_FI_DEV_POWER_USAGE", "DCGM_FI_DEV_GPU_UTIL"} <= named()
    assert {"sparkload_gpu_power_watts", "sparkload_gpu_utilization_percent"} <= named()


def test_the_dcgm_gauges_it_may_name_are_the_ones_the_docs_list_and_the_scraper_keeps():
    docs = DOCS.read_text()
    assert [name for name in DCGM if f"`{name}`" not in docs] == []
    assert set(DCGM) <= {family.name for family in TELEMETRY}


def test_every_panel_queries_the_dashboards_prometheus_variable():
    graphs = [p for p in panels() if p["type"] != "row"]
    assert {p["datasource"]["uid"] for p in graphs} == {"${datasource}"}
    assert all(t["datasource"]["uid"] == "${datasource}" for p in graphs for t in p["targets"])


def test_panel_ids_are_unique_and_no_two_panels_overlap():
    every = panels()
    assert len({p["id"] for p in every}) == len(every)
    cells = set()
    for panel in every:
        g = panel["gridPos"]
        mine = {
            (x, y) for x in range(g["x"], g["x"] + g["w"]) for y in range(g["y"], g["y"] + g["h"])
        }
        assert not cells & mine, panel["title"]
        assert g["x"] + g["w"] <= 24
        cells |= mine


@pytest.mark.skipif(PROMTOOL is None, reason="needs Debian's prometheus (promtool)")
def test_every_query_is_promql_that_promtool_parses(tmp_path):
    """Grafana's variables replaced as Grafana would, each query checked as a recording rule."""
    exprs = [
        expr.replace("$__rate_interval", "1m").replace("$label", ".*")
        for expr in queries()
        if not expr.startswith("label_values(")
    ]
    rules = [{"record": f"sparkload:check_{i}", "expr": expr} for i, expr in enumerate(exprs)]
    path = tmp_path / "rules.yml"
    path.write_text(yaml.safe_dump({"groups": [{"name": "dashboard", "rules": rules}]}))
    checked = subprocess.run(
        [PROMTOOL, "check", "rules", str(path)], capture_output=True, text=True
    )
    assert checked.returncode == 0, checked.stdout + checked.stderr
