"""Conversation ladders end to end against the built-in simulator (issue 18, must-show 1): each
level has exactly C x R x N measured requests, every session's prompt grows turn by turn and the
prefix cache serves each turn the turn before it; bad input is one line and exit 2."""

from __future__ import annotations

import json
from collections import Counter, defaultdict

import pytest

from tests.conftest import run_locust
from tests.sparkload.run.test_setup_bad_input import assert_clean_failure

pytestmark = pytest.mark.e2e  # starts Locust and the simulator


def sessions(records: list[dict]) -> dict[str, list[dict]]:
    """Measured records by session, in turn order."""
    out: dict[str, list[dict]] = defaultdict(list)
    for record in records:
        if record["phase"] == "measure":
            out[record["session_id"]].append(record)
    return {sid: sorted(turns, key=lambda r: r["turn"]) for sid, turns in out.items()}


def block_size(run_dir) -> int:
    """The simulator's prefix-cache block, as its /metrics said (vllm:cache_config_info)."""
    line = (run_dir / "server_metrics.jsonl").read_text().splitlines()[-1]
    info = next(s for s in json.loads(line)["samples"] if s["name"] == "vllm:cache_config_info")
    return int(info["labels"]["block_size"])


def prefix_cache_counter(run_dir, name: str) -> float:
    last = json.loads((run_dir / "server_metrics.jsonl").read_text().splitlines()[-1])
    return sum(s["value"] for s in last["samples"] if s["name"] == name)


@pytest.mark.parametrize("pages", [[], ["--sim-block-size", "16"]], ids=["profile-pages", "bs16"])
def test_a_conversation_ladder_has_exact_counts_and_each_turn_hits_the_cache(tmp_path, pages):
    run = run_locust(
        [
            "--headless",
            "--workload",
            "conversation",
            "--turns",
            "4",
            "--think-time",
            "0",
            "--ladder",
            "1,2",
            "--requests-per-user",
            "2",
            *pages,
        ],
        tmp_path,
        timeout=180,
    )
    assert run.returncode == 0, run.output
    records = run.records
    assert Counter((r["level"], r["phase"]) for r in records) == {
        (1, "measure"): 8,
        (2, "measure"): 16,
        (1, "warmup"): 1,
        (2, "warmup"): 1,
    }
    assert [(level["expected"], level["received"]) for level in run.manifest["levels"]] == [
        (8, 8),
        (16, 16),
    ]
    assert all(r["status"] == "ok" for r in records)
    assert all((r["turn"], r["turns"]) == (1, 1) for r in records if r["phase"] == "warmup")
    block = block_size(run.run_dir)
    assert block == (16 if pages else 512)
    by_session = sessions(records)
    assert len(by_session) == 2 + 4
    for turns in by_session.values():
        assert [r["turn"] for r in turns] == [1, 2, 3, 4]
        prompts = [r["prompt_tokens"] for r in turns]
        assert prompts == sorted(set(prompts)), prompts  # grows every turn
        for before, after in zip(turns, turns[1:], strict=False):
            reusable = before["prompt_tokens"] // block * block
            assert after["cached_tokens"] >= 0.9 * reusable, (before, after)
    hits = prefix_cache_counter(run.run_dir, "vllm:prefix_cache_hits_total")
    assert hits == sum(r["cached_tokens"] for r in records)  # the server's counter says the same
    if pages:
        assert hits > 0


def test_drawn_turns_keep_every_level_exact_across_processes(tmp_path):
    run = run_locust(
        [
            "--headless",
            "--processes",
            "2",
            "--workload",
            "conversation",
            "--turns",
            "3",
            "--turns-stddev",
            "2",
            "--ladder",
            "2,4",
            "--requests-per-user",
            "2",
            "--max-tokens",
            "16",
        ],
        tmp_path,
        timeout=180,
    )
    assert run.returncode == 0, run.output
    measured = [r for r in run.records if r["phase"] == "measure"]
    by_session = sessions(measured)
    for level in run.manifest["levels"]:
        its = {s: t for s, t in by_session.items() if t[0]["level"] == level["concurrency"]}
        assert len(its) == level["concurrency"] * 2  # C x R conversations
        assert all(
            [r["turn"] for r in t] == list(range(1, t[0]["turns"] + 1)) for t in its.values()
        )
        count = sum(len(t) for t in its.values())
        assert level["expected"] == level["received"] == count
    assert len({r["turns"] for r in measured}) > 1  # the turns were drawn, not all alike
    assert {r["worker"] for r in measured} == {"0", "1"}


def test_turns_zero_is_one_line_and_exit_2(tmp_path):
    run = run_locust(["--headless", "--workload", "conversation", "--turns", "0"], tmp_path)
    assert_clean_failure(run, "--turns: '0' must be 1 or more")


def test_a_conversation_file_with_no_user_turn_is_one_line_and_exit_2(tmp_path):
    path = tmp_path / "silent.jsonl"
    path.write_text(json.dumps({"messages": [{"role": "system", "content": "no user"}]}) + "\n")
    run = run_locust(
        ["--headless", "--workload", "conversation", "--prompts", str(path)], tmp_path / "r"
    )
    assert_clean_failure(run, "holds no conversation with a user turn")


def test_server_kept_history_grows_each_turns_prompt_and_hits_the_cache(tmp_path):
    run = run_locust(
        [
            "--headless",
            "--workload",
            "conversation",
            "--api",
            "responses",
            "--history",
            "server",
            "--turns",
            "3",
            "--ladder",
            "2",
            "--requests-per-user",
            "1",
            "--sim-block-size",
            "16",
        ],
        tmp_path,
        timeout=180,
    )
    assert run.returncode == 0, run.output
    assert all(r["status"] == "ok" for r in run.records)
    by_session = sessions(run.records)
    assert len(by_session) == 2
    for turns in by_session.values():
        prompts = [r["prompt_tokens"] for r in turns]
        assert prompts == sorted(set(prompts)), prompts  # the server's context grows every turn
        for before, after in zip(turns, turns[1:], strict=False):
            assert after["cached_tokens"] >= before["prompt_tokens"] // 16 * 16, (before, after)
    assert run.manifest["workload"]["history"] == "server"
