"""End to end through Locust against a server nobody sees inside that sends known per-request
metrics: every record carries them exactly, and summary.json's per-level TTFT split holds to
1 ms (the parts adding up to the client's mean TTFT)."""

from __future__ import annotations

import json

import pytest

from analysis.cli import main as report_main
from tests.conftest import run_locust
from tests.servers import Script, scripted

pytestmark = pytest.mark.e2e  # starts Locust processes

QUEUE_MS, SERVER_TTFT_MS, SERVER_ITL_MS = 3.25, 12.5, 1.75
METRICS = {
    "time_to_first_token_ms": SERVER_TTFT_MS,
    "generation_time_ms": 40.0,
    "queue_time_ms": QUEUE_MS,
    "mean_itl_ms": SERVER_ITL_MS,
    "tokens_per_second": 150.0,
    "speculative_decoding": {
        "mean_acceptance_length": 3.5,
        "draft_acceptance_rate": 0.8333333333333334,
        "acceptance_histogram": [0, 1, 0, 3],
        "num_spec_steps": 4,
        "num_accepted_draft_tokens": 10,
        "num_draft_tokens": 12,
        "num_spec_tokens": 3,
    },
}


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    results = tmp_path_factory.mktemp("server-timing")
    with scripted(Script(tokens=16, gap=0.002, prefill=0.02, metrics=METRICS)) as server:
        finished = run_locust(
            ["--headless", "-H", server.url, "--ladder", "1,2", "--requests-per-user", "2"]
            + ["--max-tokens", "16", "--no-server-metrics"],
            results / "results",
            timeout=90,
        )
    assert finished.returncode == 0, finished.output
    assert report_main([str(finished.run_dir), "--no-charts", "--quiet"]) == 0
    return finished


def test_every_record_carries_the_servers_metrics_exactly(run):
    assert run.records
    for record in run.records:
        assert record["server_queue"] == QUEUE_MS / 1000
        assert record["server_ttft"] == SERVER_TTFT_MS / 1000
        assert record["server_itl"] == SERVER_ITL_MS / 1000
        assert (record["server_generation"], record["server_tps"]) == (0.04, 150.0)
        assert (record["acceptance_length"], record["spec_histogram"]) == (3.5, [0, 1, 0, 3])
        assert (record["spec_steps"], record["spec_accepted"], record["spec_drafts"]) == (4, 10, 12)


def test_summary_json_splits_each_levels_ttft_to_the_millisecond(run):
    summary = json.loads((run.run_dir / "report" / "summary.json").read_text())
    levels = {level["concurrency"]: level for level in summary["levels"]}
    splits = {split["concurrency"]: split for split in summary["ttft_split"]}
    assert set(splits) == {1, 2}
    for c, split in splits.items():
        measured = [r for r in run.records if r["level"] == c and r["phase"] == "measure"]
        client_ms = sum(r["ttft"] for r in measured) / len(measured) * 1000
        assert split["n"] == len(measured) == levels[c]["n"]
        assert split["client_ttft_ms"] == pytest.approx(levels[c]["ttft_ms_mean"], abs=1)
        assert split["queue_ms"] == pytest.approx(QUEUE_MS, abs=1)
        assert split["server_ttft_ms"] == pytest.approx(SERVER_TTFT_MS, abs=1)
        assert split["rest_ms"] == pytest.approx(client_ms - QUEUE_MS - SERVER_TTFT_MS, abs=1)
        assert split["server_itl_ms"] == pytest.approx(SERVER_ITL_MS, abs=1)


def test_summary_json_pools_the_drafts_per_level(run):
    summary = json.loads((run.run_dir / "report" / "summary.json").read_text())
    for level in summary["drafting"]:
        assert level["histogram"] == [0, level["n"], 0, 3 * level["n"]]
        assert level["acceptance_length_p50"] == 3.5
