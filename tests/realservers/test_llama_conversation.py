"""A conversation ladder against llama.cpp's llama-server (issue 18, must-show 7): exact counts,
every record ok, and each later turn served the turn before it from the server's prompt cache
(``usage.prompt_tokens_details.cached_tokens``, which its /metrics counter agrees with)."""

from __future__ import annotations

from collections import Counter, defaultdict

import pytest

from benchmarks.realservers.llama_server import LlamaServer, metrics
from tests.conftest import run_locust

pytestmark = [pytest.mark.realserver, pytest.mark.e2e]  # builds and starts a real server

LADDER = (1, 2, 4)  # at most 4 conversations at once: each keeps one of the server's 8 slots
CONVERSATIONS_PER_USER = 2
TURNS = 4


@pytest.fixture(scope="module")
def ladder(llama: LlamaServer, tmp_path_factory: pytest.TempPathFactory) -> dict:
    before = metrics(llama.url)
    run = run_locust(
        ["--headless", "-H", llama.url, "--workload", "conversation", "--turns", str(TURNS)]
        + ["--ladder", ",".join(map(str, LADDER))]
        + ["--requests-per-user", str(CONVERSATIONS_PER_USER), "--max-tokens", "32"],
        tmp_path_factory.mktemp("conversation"),
        timeout=300,
    )
    assert run.returncode == 0, run.output[-3000:]
    return {"records": run.records, "before": before, "after": metrics(llama.url)}


def test_every_level_has_c_x_r_x_n_measured_requests_all_ok(ladder: dict) -> None:
    records = ladder["records"]
    counts = Counter((r["level"], r["phase"]) for r in records)
    assert counts == {
        **{(c, "measure"): c * CONVERSATIONS_PER_USER * TURNS for c in LADDER},
        **{(c, "warmup"): 1 for c in LADDER},
    }
    assert [(r["error_kind"], r["error"]) for r in records if r["status"] != "ok"] == []


def test_each_later_turn_is_served_the_turn_before_from_the_prompt_cache(ladder: dict) -> None:
    turns: dict[str, list[dict]] = defaultdict(list)
    for r in ladder["records"]:
        if r["phase"] == "measure":
            turns[r["session_id"]].append(r)
    for session in turns.values():
        session.sort(key=lambda r: r["turn"])
        for before, after in zip(session, session[1:], strict=False):
            assert after["prompt_tokens"] > before["prompt_tokens"]
            assert after["cached_tokens"] >= 0.9 * before["prompt_tokens"], (before, after)


def test_the_servers_cache_counter_says_what_the_records_say(ladder: dict) -> None:
    name = "llamacpp:prompt_tokens_cached_total"
    cached = ladder["after"][name] - ladder["before"][name]
    assert cached == sum(r["cached_tokens"] or 0 for r in ladder["records"])
