"""The prefill probe end to end: tok/s per size, and prompts the prefix cache cannot serve."""

from __future__ import annotations

import csv

import pytest

from analysis.cli import main as analysis_main
from tests.conftest import run_locust
from tests.report_files import table_path

pytestmark = pytest.mark.e2e  # starts Locust, simulator or server processes

PROBE = [
    "--headless",
    "--workload",
    "prefill",
    "--prefill-sizes",
    "2000,4000",
    "--sim-profile",
    "fp8",
    "--sim-time-scale",
    "20",
]


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    results = tmp_path_factory.mktemp("results")
    probe = run_locust([*PROBE, "--label", "probe"], results / "probe")
    control = run_locust([*PROBE, "--label", "control", "--identical-prompts"], results / "control")
    assert probe.returncode == 0, probe.output
    assert control.returncode == 0, control.output
    out = results / "report"
    assert (
        analysis_main(
            [str(probe.run_dir), str(control.run_dir), "--out", str(out), "--no-charts", "--quiet"]
        )
        == 0
    )
    return probe, control, out


def measured(run):
    return [r for r in run.records if r["phase"] == "measure"]


def test_each_size_gets_two_measured_cold_requests_after_a_warm_up(runs):
    probe, _, _ = runs
    sizes = sorted((r["extra"]["target_tokens"], r["phase"]) for r in probe.records)
    assert sizes == [
        (2000, "measure"),
        (2000, "measure"),
        (2000, "warmup"),
        (4000, "measure"),
        (4000, "measure"),
        (4000, "warmup"),
    ]


def test_probe_requests_ask_for_one_token_and_all_succeed(runs):
    probe, _, _ = runs
    assert {(r["max_tokens"], r["status"], r["output_tokens"]) for r in probe.records} == {
        (1, "ok", 1)
    }


def test_the_prefix_cache_serves_nothing_of_the_probe(runs):
    probe, _, _ = runs
    assert [r["cached_tokens"] or 0 for r in probe.records] == [0] * len(probe.records)


def test_the_identical_prompt_control_is_served_from_the_cache(runs):
    """Whole KV blocks only (the simulator's are 512 tokens), so at least half of these prompts."""
    _, control, _ = runs
    assert all(r["cached_tokens"] >= 0.5 * r["prompt_tokens"] for r in measured(control))


def test_the_report_has_prefill_tokens_per_second_for_each_size(runs):
    _, _, out = runs
    with open(table_path(out, "probe_prefill"), newline="") as handle:
        rows = list(csv.DictReader(handle))
    assert [row["Prompt (target tokens)"] for row in rows] == ["~2,000", "~4,000"]
    for row in rows:
        assert float(row["Run 1 tok/s"]) > 0 and float(row["Run 2 tok/s"]) > 0
        assert row["Agreement (spread %)"] != "" and int(row["Cached tokens (max)"]) == 0


def test_the_report_marks_the_control_as_not_a_cold_probe(runs):
    _, _, out = runs
    text = (out / "report.md").read_text()
    assert "**control: prefill throughput per prompt size**" in text
    assert "This run used --identical-prompts" in text


def test_the_manifest_records_the_probe_sizes(runs):
    probe, _, _ = runs
    assert probe.manifest["workload"]["prefill_sizes"] == [2000, 4000]
    assert probe.manifest["ladder"] == [1, 1]
