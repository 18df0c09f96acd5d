"""sparkload's main job against llama.cpp's llama-server: a real server nobody here wrote.

The checks are what must hold for any correct load generator; the server's own per-request
timings (its ``-v`` log) are the reference for TTFT. See benchmarks/realservers/README.md.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from benchmarks.realservers.llama_server import LlamaServer, timings_from_log
from tests.conftest import LocustRun
from tests.realservers.conftest import MAX_TOKENS, expected_counts, run_job

pytestmark = [pytest.mark.realserver, pytest.mark.e2e]  # builds and starts real servers


@pytest.fixture(scope="module", params=["chat", "completions"])
def main_job(
    request: pytest.FixtureRequest, llama: LlamaServer, tmp_path_factory: pytest.TempPathFactory
) -> dict:
    """The ladder on each streaming API: /v1/chat/completions and /v1/completions."""
    results = tmp_path_factory.mktemp(f"results-{request.param}")
    job = run_job(llama.url, results, llama.url, "--api", request.param)
    return {**job, "log": llama.log}


def records(main_job: dict) -> list[dict]:
    run: LocustRun = main_job["run"]
    assert run.run_dir is not None, run.output
    return run.records


def test_the_run_exits_0(main_job: dict) -> None:
    assert main_job["run"].returncode == 0, main_job["run"].output[-3000:]


def test_exact_record_counts_per_level_and_phase(main_job: dict) -> None:
    counts = Counter((r["level"], r["phase"]) for r in records(main_job))
    assert counts == expected_counts()


def test_every_record_is_ok(main_job: dict) -> None:
    failed = [
        (r["level"], r["phase"], r["error_kind"], r["error"])
        for r in records(main_job)
        if r["status"] != "ok"
    ]
    assert failed == []


def test_ttft_within_latency_and_itl_not_negative(main_job: dict) -> None:
    for r in records(main_job):
        if r["status"] != "ok":
            continue
        assert 0 < r["ttft"] <= r["t_last_token"] <= r["latency"], r
        assert r["itl"] is not None and r["itl"] >= 0, r


def test_first_byte_comes_no_later_than_first_token(main_job: dict) -> None:
    # llama-server's headers and first token arrive back to back: both must be on one clock
    late = [
        (r["request_id"], r["ttfb"], r["ttft"])
        for r in records(main_job)
        if r["status"] == "ok" and not 0 < r["ttfb"] <= r["ttft"]
    ]
    assert late == []


def test_every_request_gets_max_tokens_counted_by_usage(main_job: dict) -> None:
    # the tiny model never emits EOS (see tiny_model.py), so the length is max_tokens exactly
    got = {(r["output_tokens"], r["tokens_counted_by"]) for r in records(main_job)}
    assert got == {(MAX_TOKENS, "usage")}


def test_ttft_is_at_least_the_servers_prompt_time(main_job: dict) -> None:
    timings = timings_from_log(Path(main_job["log"]))
    ok = [r for r in records(main_job) if r["status"] == "ok"]
    assert ok
    for r in ok:
        server = timings.get(r["response_id"])
        assert server is not None, f"no server timings for {r['response_id']}"
        assert r["ttft"] >= server["prompt_ms"] / 1000, (r["ttft"], server)
        assert r["prompt_tokens"] == server["prompt_n"] + server.get("cache_n", 0), server


def test_server_counted_every_request_and_token(main_job: dict) -> None:
    before, after = main_job["before"], main_job["after"]
    sent = records(main_job)
    generated = after["llamacpp:tokens_predicted_total"] - before["llamacpp:tokens_predicted_total"]
    assert generated == sum(r["output_tokens"] or 0 for r in sent)
    prompt_seconds = (
        after["llamacpp:prompt_seconds_total"] - before["llamacpp:prompt_seconds_total"]
    )
    assert sum(r["ttft"] for r in sent if r["ttft"] is not None) >= prompt_seconds
