"""Energy end to end on the simulator: the default run's report, --scrape nodes, a TP2 cluster."""

from __future__ import annotations

import json

import pytest

from analysis.cli import main as analysis_main
from sparkload.records import SERVER_METRICS_FILE
from sparkload.sim.power import PowerModel
from tests.conftest import run_locust

pytestmark = pytest.mark.e2e  # starts Locust and simulators

SHORT = ["--headless", "--ladder", "1,2", "--requests-per-user", "2"]
POWER = PowerModel()


def report(run_dir, tmp_path) -> dict:
    out = tmp_path / "report"
    assert analysis_main([str(run_dir), "--out", str(out), "--no-charts", "--quiet"]) == 0
    return json.loads((out / "summary.json").read_text()) | {
        "report.md": (out / "report.md").read_text()
    }


def snapshots(run_dir) -> list[dict]:
    return [json.loads(line) for line in (run_dir / SERVER_METRICS_FILE).read_text().splitlines()]


@pytest.fixture(scope="module")
def default_run(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("default")
    run = run_locust(SHORT, tmp / "results")
    assert run.returncode == 0, run.output
    return run, report(run.run_dir, tmp)


def test_a_default_run_reports_joules_watts_and_joules_per_token_per_level(default_run):
    _, summary = default_run
    assert [(e["concurrency"], e["nodes"]) for e in summary["energy"]] == [(1, "api"), (2, "api")]
    assert all(
        e["energy_method"] == "counter DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION"
        for e in summary["energy"]
    )
    assert "**Energy per level**" in summary["report.md"]


def test_joules_are_mean_watts_times_the_levels_simulated_seconds(default_run):
    for node in default_run[1]["nodes"]:
        assert node["joules"] == pytest.approx(node["mean_w"] * node["seconds"], rel=1e-9)


def test_joules_per_token_divide_by_the_output_tokens_the_summary_counts(default_run):
    _, summary = default_run
    tokens = {level["concurrency"]: level["output_tokens_sum"] for level in summary["levels"]}
    for energy in summary["energy"]:
        assert energy["j_per_output_token"] == pytest.approx(
            energy["joules"] / tokens[energy["concurrency"]], rel=1e-9
        )
        assert energy["output_tokens_per_j"] * energy["j_per_output_token"] == pytest.approx(1.0)


def test_the_mean_draw_lies_between_the_models_idle_and_one_stream_at_work(default_run):
    """Mostly one or two decode streams, some idle gaps between requests: above idle, below
    what a prefill would draw."""
    for energy in default_run[1]["energy"]:
        assert POWER.idle_w < energy["mean_w"] < 75.0


def test_a_default_run_names_its_one_node_in_the_manifest(default_run):
    run, _ = default_run
    assert list(run.manifest["scrape"]) == ["api"]
    assert {s["node"] for s in snapshots(run.run_dir)} == {"api"}


def test_two_scrape_targets_are_named_in_the_manifest_and_sampled_at_every_level(
    simulator, tmp_path
):
    # Other servers than the target count in real time: these two run at it
    nodes = {"node-a": simulator("awq-mtp", 1.0), "node-b": simulator("awq-mtp", 1.0)}
    scrape = [arg for name, url in nodes.items() for arg in ("--scrape", f"{name}={url}/metrics")]
    run = run_locust([*SHORT, *scrape], tmp_path / "results")
    assert run.returncode == 0, run.output
    assert run.manifest["scrape"] == {
        "api": run.manifest["scrape"]["api"],
        **{name: f"{url}/metrics" for name, url in nodes.items()},
    }
    taken = {(s["node"], s["level_index"], s["when"]) for s in snapshots(run.run_dir)}
    for node in nodes:
        for level in (0, 1):
            assert {(node, level, when) for when in ("start", "measure", "end")} <= taken
    # Nothing is sent to the two: each reads its idle draw
    idle = {
        n["node"]: n["mean_w"] for n in report(run.run_dir, tmp_path)["nodes"] if n["node"] in nodes
    }
    assert idle == {
        "node-a": pytest.approx(POWER.idle_w, rel=0.02),
        "node-b": pytest.approx(POWER.idle_w, rel=0.02),
    }


def test_a_simulated_tp2_cluster_reports_each_node_and_the_head_once(tmp_path):
    run = run_locust(
        ["--headless", "--ladder", "1", "--requests-per-user", "2", "--tp", "2"],
        tmp_path / "results",
    )
    assert run.returncode == 0, run.output
    assert list(run.manifest["scrape"]) == ["api", "spark-1", "spark-2"]
    summary = report(run.run_dir, tmp_path)
    assert [n["node"] for n in summary["nodes"]] == ["spark-1", "spark-2"]  # api's GPU is spark-1's
    (level,) = summary["energy"]
    assert level["joules"] == pytest.approx(sum(n["joules"] for n in summary["nodes"]))


def test_peak_power_is_never_below_the_mean_and_comes_from_samples_inside_the_window(tmp_path):
    # --metrics-interval 1: a sample every simulated second, every 0.1 real s at time scale 10
    run = run_locust(
        ["--headless", "--ladder", "2", "--requests-per-user", "4", "--metrics-interval", "1"],
        tmp_path / "results",
    )
    assert run.returncode == 0, run.output
    (node,) = report(run.run_dir, tmp_path)["nodes"]
    assert node["samples"] >= 3
    assert node["power_max_w"] >= node["mean_w"] > POWER.idle_w
