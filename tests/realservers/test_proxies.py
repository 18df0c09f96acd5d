"""The main job through real intermediaries in front of llama-server: nginx, LiteLLM, mitmproxy.

What must hold is what holds direct: exit 0, exact counts, every record ok, TTFT no shorter
than the server's own prompt time for the same response (the completion id passes through);
and what an intermediary does is named: LiteLLM by its version header, mitmproxy's partial
buffering by the stream check, which then fails --check.
"""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import pytest

from benchmarks.realservers import gateway as gateway_module
from benchmarks.realservers.gateway import Gateway
from benchmarks.realservers.llama_server import LlamaServer, timings_from_log
from benchmarks.realservers.nginx import INSTALL_HINT, Nginx, nginx_binary
from sparkload.records import STREAM_MEANINGLESS
from tests.realservers.conftest import REQUIRE_ENV, expected_counts, require_or_skip, run_job

pytestmark = [pytest.mark.realserver, pytest.mark.e2e]  # builds and starts real servers


def check_job(job: dict, log: Path, proxy_may_fail: bool = False) -> None:
    """``proxy_may_fail``: the intermediary may answer a request itself (nginx's 502 when the
    upstream closed a kept-alive connection); such a record must say nginx answered."""
    run = job["run"]
    records = run.records
    assert Counter((r["level"], r["phase"]) for r in records) == expected_counts()
    failed = [r for r in records if r["status"] != "ok"]
    if proxy_may_fail:
        for r in failed:
            assert r["error_kind"] == "http_502" and r["server"].startswith("nginx/"), r
            assert r["error"].startswith("HTTP 502 from nginx"), r
    else:
        assert [(r["level"], r["error_kind"], r["error"]) for r in failed] == []
    assert run.returncode == (1 if failed else 0), run.output[-3000:]
    timings = timings_from_log(log)
    for r in records:
        if r["status"] != "ok":
            continue
        server = timings.get(r["response_id"])
        assert server is not None, f"no server timings for {r['response_id']}"
        assert r["ttft"] >= server["prompt_ms"] / 1000, (r["ttft"], server)
        assert r["itl"] is not None and r["itl"] >= 0 and r["ttft"] <= r["latency"], r


@pytest.fixture
def nginx_installed() -> Iterator[None]:
    require_or_skip([] if nginx_binary() else [f"nginx ({INSTALL_HINT})"])
    yield


@pytest.mark.parametrize("config", ["plain", "unbuffered", "keepalive"])
def test_main_job_through_nginx(
    config: str, llama: LlamaServer, nginx_installed: None, tmp_path: Path
) -> None:
    with Nginx(llama.url, config) as proxy:
        job = run_job(proxy.url, tmp_path, llama.url)
    check_job(job, llama.log, proxy_may_fail=config == "keepalive")


def require_gateway(kind: str) -> None:
    if gateway_module.executable(kind) is None:
        hint = gateway_module.install_hint(kind)
        if os.environ.get(REQUIRE_ENV):
            pytest.fail(f"{kind} missing ({hint}) and {REQUIRE_ENV} is set")
        pytest.skip(f"{kind} missing: {hint}")


def test_main_job_through_litellm(llama: LlamaServer, tmp_path: Path) -> None:
    require_gateway("litellm")
    with Gateway(llama.url) as gateway:
        job = run_job(gateway.url, tmp_path, llama.url, "--api-key", gateway.api_key)
    check_job(job, llama.log)
    headers = job["run"].manifest["servers"][gateway.url]["headers"]
    assert headers["x-litellm-version"], headers  # LiteLLM names itself on streamed responses


def test_mitmproxy_holding_the_first_10k_of_every_stream_fails_the_check(
    llama: LlamaServer, tmp_path: Path
) -> None:
    require_gateway("mitmproxy")
    with Gateway(llama.url, "mitmproxy", "10k") as proxy:
        job = run_job(
            proxy.url, tmp_path, llama.url, "--max-tokens", "128", "--check", "ttft_p90_ms<=100000"
        )
    run = job["run"]
    assert run.returncode == 4, run.output[-3000:]
    # 128 tokens are about 19 KB of events: the first 10 KB come in one burst. On a loaded machine
    # a level's median request may get even more of its answer in it (collapsed): either way the
    # figures measure mitmproxy's buffer, and --check fails the level
    for level in run.manifest["levels"]:
        assert set(level["stream_flag_kinds"]) & set(STREAM_MEANINGLESS), level
    assert any("partial_burst" in level["stream_flag_kinds"] for level in run.manifest["levels"])
    assert "stream check: partial burst" in run.output
