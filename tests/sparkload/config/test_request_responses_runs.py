"""``--api responses`` end to end (issue 27, must-show 1): the same ladder on the same simulator
profile gives the Responses API the TTFT, ITL and output tokens of ``--api chat`` within noise,
with the cached and reasoning tokens read from the Responses usage; a stream that ends without
``response.completed`` is a failure of a named kind."""

from __future__ import annotations

import csv
import subprocess
import sys

import pytest

from tests.conftest import ROOT, run_locust

pytestmark = pytest.mark.e2e  # starts Locust and the simulator

REASONING = 8
MAX_TOKENS = 24
PROFILE = ("--fixed-ttft-ms", "40", "--fixed-itl-ms", "6", "--reasoning-tokens", str(REASONING))
LADDER = ("--ladder", "1,4", "--requests-per-user", "3", "--max-tokens", str(MAX_TOKENS))


def levels(run_dir, tmp_path) -> list[dict]:
    out = tmp_path / run_dir.name
    subprocess.run(
        [sys.executable, "-m", "analysis", str(run_dir), "--out", str(out), "--no-charts"],
        cwd=ROOT,
        check=True,
        capture_output=True,
    )
    with (out / "summary.csv").open() as handle:
        return list(csv.DictReader(handle))


def test_responses_measure_as_chat_does_on_the_same_profile(simulator, tmp_path):
    host = simulator("fixed", 1.0, *PROFILE)
    runs = {
        api: run_locust(["--headless", "-H", host, *LADDER, "--api", api], tmp_path / api)
        for api in ("chat", "responses")
    }
    for run in runs.values():
        assert run.returncode == 0, run.output
    measured = [r for r in runs["responses"].records if r["phase"] == "measure"]
    assert len(measured) == 15 and all(r["status"] == "ok" for r in measured)
    for record in measured:
        assert record["response_id"].startswith("resp-")
        assert (record["reasoning_tokens"], record["reasoning_counted_by"]) == (REASONING, "usage")
        assert (record["output_tokens"], record["tokens_counted_by"]) == (MAX_TOKENS, "usage")
        assert record["finish_reason"] == "length"
    chat, responses = (levels(runs[api].run_dir, tmp_path) for api in ("chat", "responses"))
    for a, b in zip(chat, responses, strict=True):
        assert a["concurrency"] == b["concurrency"]
        for metric, slack_ms in (
            ("ttft_ms_mean", 15.0),
            ("itl_ms_mean", 1.5),
            ("ttfo_ms_mean", 20.0),
        ):
            assert abs(float(a[metric]) - float(b[metric])) <= slack_ms, (metric, a, b)
        assert a["output_tokens_mean"] == b["output_tokens_mean"]
        assert a["reasoning_tokens_mean"] == b["reasoning_tokens_mean"]


def test_a_responses_conversation_reads_each_turns_cached_tokens_from_the_usage(tmp_path):
    run = run_locust(
        ["--headless", "--workload", "conversation", "--turns", "3", "--think-time", "0"]
        + ["--ladder", "1", "--requests-per-user", "1", "--max-tokens", "16"]
        + ["--sim-block-size", "16", "--api", "responses"],
        tmp_path / "results",
        timeout=180,
    )
    assert run.returncode == 0, run.output
    turns = sorted(
        (r for r in run.records if r["phase"] == "measure"),
        key=lambda r: (r["session_id"], r["turn"]),
    )
    assert [r["turn"] for r in turns] == [1, 2, 3]
    for before, after in zip(turns, turns[1:], strict=False):
        assert after["prompt_tokens"] > before["prompt_tokens"]
        assert after["cached_tokens"] >= 0.9 * (before["prompt_tokens"] // 16 * 16), (before, after)


def test_a_responses_stream_without_response_completed_is_a_named_failure(simulator, tmp_path):
    host = simulator("fixed", 1.0, "--fixed-itl-ms", "2", "--faults", "no_done=1")
    run = run_locust(
        [
            "--headless",
            "-H",
            host,
            "--ladder",
            "1",
            "--requests-per-user",
            "2",
            "--api",
            "responses",
        ],
        tmp_path / "results",
    )
    measured = [r for r in run.records if r["phase"] == "measure"]
    assert measured and all(
        (r["status"], r["error_kind"], r["error"])
        == ("error", "disconnect", "stream ended without response.completed")
        for r in measured
    ), run.output
