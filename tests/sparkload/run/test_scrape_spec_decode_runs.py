"""Against the simulator's MTP profile: /metrics snapshots per level and the report's figures."""

from __future__ import annotations

import csv
import json
from collections import defaultdict

import pytest

from analysis.cli import main as analysis_main
from sparkload.records import SERVER_METRICS_FILE, telemetry_family
from sparkload.sim.profiles import get_profile
from tests.conftest import run_locust
from tests.report_files import table_path

pytestmark = pytest.mark.e2e  # starts Locust, simulator or server processes

PROFILE = "fp8-mtp"
ACCEPTED = "vllm:spec_decode_num_accepted_tokens_total"
DRAFT_TOKENS = "vllm:spec_decode_num_draft_tokens_total"
DRAFTS = "vllm:spec_decode_num_drafts_total"
PER_POS = "vllm:spec_decode_num_accepted_tokens_per_pos_total"


@pytest.fixture(scope="module")
def mtp_run(tmp_path_factory):
    results = tmp_path_factory.mktemp("results")
    run = run_locust(
        [
            "--headless",
            "--ladder",
            "1,2",
            "--requests-per-user",
            "2",
            "--max-tokens",
            "256",
            "--sim-profile",
            PROFILE,
            "--sim-time-scale",
            "20",
        ],
        results,
    )
    assert run.returncode == 0, run.output
    out = results / "report"
    assert analysis_main([str(run.run_dir), "--out", str(out), "--no-charts", "--quiet"]) == 0
    return run, out


def snapshots(run_dir):
    return [json.loads(line) for line in (run_dir / SERVER_METRICS_FILE).read_text().splitlines()]


def counters(snapshot):
    """Totals per metric (summed over label sets), per-position keyed by position."""
    out = defaultdict(float)
    for sample in snapshot["samples"]:
        if sample["name"] == PER_POS:
            out[("pos", int(sample["labels"]["position"]))] += sample["value"]
        else:
            out[sample["name"]] += sample["value"]
    return out


def deltas_by_level(run_dir):
    """Counter deltas from the snapshot taken when the warm-up came back to the level's end."""
    by_key = {(s["level_index"], s["when"]): s for s in snapshots(run_dir)}
    out = {}
    for (index, when), end in by_key.items():
        if when == "end":
            a, b = counters(by_key[(index, "measure")]), counters(end)
            out[end["concurrency"]] = {key: b[key] - a.get(key, 0.0) for key in b}
    return out


def report_rows(out):
    with open(table_path(out, "speculative_decoding"), newline="") as handle:
        return {int(row["concurrency"]): row for row in csv.DictReader(handle)}


def test_every_level_has_start_measure_and_end_snapshots(mtp_run):
    run, _ = mtp_run
    kinds = sorted(
        (s["level_index"], s["when"]) for s in snapshots(run.run_dir) if s["when"] != "during"
    )
    assert kinds == [
        (0, "end"),
        (0, "measure"),
        (0, "start"),
        (1, "end"),
        (1, "measure"),
        (1, "start"),
    ]


def test_the_measured_span_holds_exactly_the_measured_requests_tokens(mtp_run):
    """From the warm-up's return to the level's end the server generated what the records got."""
    run, _ = mtp_run
    deltas = deltas_by_level(run.run_dir)
    for c, delta in deltas.items():
        received = sum(
            r["output_tokens"] for r in run.records if r["level"] == c and r["phase"] == "measure"
        )
        assert delta["vllm:generation_tokens_total"] == received


def test_snapshots_hold_vllm_and_node_telemetry_samples_with_a_node_and_a_time(mtp_run):
    run, _ = mtp_run
    for snap in snapshots(run.run_dir):
        assert snap["endpoint"].startswith("http://127.0.0.1:") and snap["time"] > 0
        assert snap["node"] == "api"
        assert all(
            (s["name"].startswith("vllm:") or telemetry_family(s["name"]))
            and not s["name"].endswith("_created")
            for s in snap["samples"]
        )


def test_report_acceptance_rate_is_accepted_over_draft_tokens_per_level(mtp_run):
    run, out = mtp_run
    rows = report_rows(out)
    for c, delta in deltas_by_level(run.run_dir).items():
        assert float(rows[c]["acceptance_rate"]) == pytest.approx(
            delta[ACCEPTED] / delta[DRAFT_TOKENS]
        )


def test_report_tokens_per_pass_is_one_plus_accepted_over_drafts_per_level(mtp_run):
    run, out = mtp_run
    rows = report_rows(out)
    for c, delta in deltas_by_level(run.run_dir).items():
        assert float(rows[c]["tokens_per_pass"]) == pytest.approx(
            1 + delta[ACCEPTED] / delta[DRAFTS]
        )


def test_report_per_position_acceptance_is_accepted_at_position_over_drafts(mtp_run):
    run, out = mtp_run
    rows = report_rows(out)
    for c, delta in deltas_by_level(run.run_dir).items():
        for position in range(3):
            assert float(rows[c][f"accept_pos{position}"]) == pytest.approx(
                delta[("pos", position)] / delta[DRAFTS]
            )


def test_per_position_acceptance_is_non_increasing(mtp_run):
    _, out = mtp_run
    for row in report_rows(out).values():
        rates = [float(row[f"accept_pos{p}"]) for p in range(3)]
        assert rates == sorted(rates, reverse=True)


def test_the_whole_run_agrees_with_the_profiles_acceptance_parameters(mtp_run):
    """Pooled over the run (~600 drafts): within ~5 standard errors of the profile's expectation."""
    run, _ = mtp_run
    deltas = deltas_by_level(run.run_dir).values()
    accepted = sum(d[ACCEPTED] for d in deltas)
    spec = get_profile(PROFILE).spec
    assert accepted / sum(d[DRAFT_TOKENS] for d in deltas) == pytest.approx(
        spec.acceptance_rate(), abs=0.08
    )
    assert 1 + accepted / sum(d[DRAFTS] for d in deltas) == pytest.approx(
        spec.expected_tokens_per_step(), abs=0.25
    )


def test_report_md_shows_the_speculative_decoding_table(mtp_run):
    _, out = mtp_run
    text = (out / "report.md").read_text()
    assert (
        "**Speculative decoding per level**" in text and "**Client vs server, per level**" in text
    )
