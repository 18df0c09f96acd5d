"""Issue 18's must-shows, end to end: shared prefixes served from the simulator's prefix cache,
length distributions achieved; a bad --seq-dist stops before the load."""

from __future__ import annotations

import statistics

import pytest

from tests.conftest import run_locust
from tests.sparkload.run.test_setup_bad_input import assert_clean_failure

pytestmark = pytest.mark.e2e  # starts Locust and simulator processes


def measured(run) -> list[dict]:
    return [r for r in run.records if r["phase"] == "measure"]


def test_shared_prefixes_are_served_from_the_prefix_cache_after_their_first_request(tmp_path):
    run = run_locust(
        [
            "--headless",
            "--prefix-tokens",
            "2048",
            "--prefix-count",
            "4",
            "--input-tokens",
            "256",
            "--ladder",
            "4",
            "--requests-per-user",
            "5",
        ],
        tmp_path,
        timeout=180,
    )
    assert run.returncode == 0, run.output
    records = measured(run)
    assert len(records) == 20 and all(r["status"] == "ok" for r in records)
    assert {r["prompt_tokens"] for r in records} == {2048 + 256}
    served = sum(r["cached_tokens"] >= 2048 - 16 for r in records)
    assert served >= 0.75 * len(records), [r["cached_tokens"] for r in records]
    assert {r["extra"]["prefix"] for r in records} == {0, 1, 2, 3}
    assert run.manifest["prompts"]["prefix"]["counted"] == [2048] * 4


def test_an_input_length_spread_has_the_asked_mean_and_deviation(tmp_path):
    run = run_locust(
        [
            "--headless",
            "--input-tokens",
            "1000",
            "--input-tokens-stddev",
            "200",
            "--output-tokens",
            "16",
            "--ladder",
            "16",
            "--requests-per-user",
            "25",
        ],
        tmp_path,
        timeout=180,
    )
    assert run.returncode == 0, run.output
    prompts = [r["prompt_tokens"] for r in measured(run)]
    assert len(prompts) == 400
    assert statistics.fmean(prompts) == pytest.approx(1000, abs=30)
    assert statistics.pstdev(prompts) == pytest.approx(200, abs=30)
    assert {r["output_tokens"] for r in measured(run)} == {16}


def test_a_seq_dist_mix_sends_its_long_prompts_at_their_weight(tmp_path):
    run = run_locust(
        [
            "--headless",
            "--seq-dist",
            "256,16:0.75;2048,16:0.25",
            "--ladder",
            "16",
            "--requests-per-user",
            "25",
        ],
        tmp_path,
        timeout=180,
    )
    assert run.returncode == 0, run.output
    prompts = [r["prompt_tokens"] for r in measured(run)]
    assert len(prompts) == 400 and set(prompts) == {256, 2048}
    assert prompts.count(2048) / len(prompts) == pytest.approx(0.25, abs=0.05)
    assert {r["max_tokens"] for r in measured(run)} == {16}


def test_a_seq_dist_whose_weight_does_not_parse_stops_before_the_load(tmp_path):
    run = run_locust(["--headless", "--seq-dist", "256,16:most;2048,16:0.25"], tmp_path / "r")
    assert_clean_failure(run, "--seq-dist: '256,16:most': the weight 'most' is not a number")
