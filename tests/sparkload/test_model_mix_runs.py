"""A mix of models in whole runs on the built-in simulator serving two LoRA adapters: each
record names the adapter it asked for, the shares land near-exact (in a distributed run too),
switching adapters costs TTFT, the report shows both, and an adapter the server does not list
stops the run before the load with one line naming it."""

from __future__ import annotations

import json
from collections import Counter

import pytest

from analysis.cli import main as report
from sparkload.records import EXIT_BAD_INPUT
from tests.conftest import run_locust

pytestmark = pytest.mark.e2e  # starts Locust and simulator processes

MIX = "tenant-a:0.7,tenant-b:0.3"
# 100 measured requests on the fixed timing (TTFT 100 ms), one adapter slot, a 200 ms switch
LOAD = ["--ladder", "4", "--requests-per-user", "25", "--max-tokens", "4", "--no-thinking"]
SIM = ["--sim-profile", "fixed", "--sim-lora", "tenant-a,tenant-b", "--sim-lora-switch-ms", "200"]


def run_mix(tmp_path, model: str, *extra: str):
    run = run_locust(
        ["--headless", *LOAD, *SIM, "--model", model, *extra], tmp_path / "results", timeout=120
    )
    assert run.returncode == 0, run.output
    return run


def measured(run) -> list[dict]:
    return [r for r in run.records if r["phase"] == "measure"]


def mean_ttft(run) -> float:
    """The measured requests' mean TTFT in simulated seconds (records keep real ones)."""
    records = measured(run)
    scale = run.manifest["simulator"]["time_scale"]
    return scale * sum(r["ttft"] for r in records) / len(records)


def test_each_record_names_its_adapter_and_the_shares_land_within_a_twentieth(tmp_path):
    records = measured(run_mix(tmp_path, MIX))
    assert len(records) == 100 and all(r["status"] == "ok" for r in records)
    shares = Counter(r["model"] for r in records)
    assert set(shares) == {"tenant-a", "tenant-b"}
    assert 65 <= shares["tenant-a"] <= 75


def test_switching_adapters_costs_ttft_that_one_adapter_alone_does_not(tmp_path):
    mixed = mean_ttft(run_mix(tmp_path / "mix", MIX))
    alone = mean_ttft(run_mix(tmp_path / "alone", "tenant-a"))
    # (alone: the fixed 100 ms, one load at the warm-up, plus the client's own time, which a busy
    # machine stretches: no absolute bound here)
    assert mixed > alone + 0.04  # a switch of 200 ms on a good share of the mix's requests


def test_the_report_shows_both_adapters(tmp_path):
    run = run_mix(tmp_path, MIX)
    out = tmp_path / "report"
    assert report([str(run.run_dir), "--out", str(out), "--no-charts", "--quiet"]) == 0
    entries = json.loads((out / "summary.json").read_text())["models"]
    assert [e["Model"] for e in entries] == ["tenant-a", "tenant-b"]
    assert sum(e["Requests"] for e in entries) == 100


def test_a_distributed_runs_workers_deal_their_own_and_the_shares_hold_overall(tmp_path):
    records = measured(run_mix(tmp_path, MIX, "--processes", "2"))
    assert len({r["worker"] for r in records}) == 2
    assert 65 <= Counter(r["model"] for r in records)["tenant-a"] <= 75


def test_an_adapter_the_server_does_not_list_exits_2_naming_it(tmp_path):
    run = run_locust(
        ["--headless", *LOAD, *SIM, "--model", "tenant-a:0.7,tenant-c:0.3"], tmp_path / "results"
    )
    assert run.returncode == EXIT_BAD_INPUT, run.output
    errors = [line for line in run.output.splitlines() if "error" in line.lower()]
    assert len(errors) == 1 and "--model 'tenant-c' is not served by" in errors[0], run.output
    assert run.run_dir is None


def test_weights_that_do_not_sum_to_one_exit_2_before_anything_starts(tmp_path):
    run = run_locust(["--headless", *LOAD, "--model", "a:0.7,b:0.2"], tmp_path / "results")
    assert run.returncode == EXIT_BAD_INPUT, run.output
    assert "--model: the weights of 'a:0.7,b:0.2' sum to 0.9, not 1" in run.output
    assert run.run_dir is None
