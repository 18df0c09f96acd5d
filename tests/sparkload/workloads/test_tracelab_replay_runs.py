"""A TraceLab-format trace replayed end to end on the built-in simulator (issue 44, must-shows 3
and 7): one record per round, each session in round order, prompt tokens within 1 % of the
recorded counts, the recorded prefix served from the cache, the nested sub-agent's records
naming their parent; a line without its counts is one error line before the load."""

from __future__ import annotations

from collections import defaultdict

import pytest

from tests.conftest import run_locust
from tests.sparkload.run.test_setup_bad_input import assert_clean_failure
from tests.tracelab_rows import row, tool, write

pytestmark = pytest.mark.e2e  # starts Locust and the simulator

# Rounds of 1,000 tokens and more: the simulator's chat template adds a few tokens to a single
# user message, under 1 % of these. The parent's round 0 runs a Task tool for 90 s, inside which
# the sub-agent's two rounds ran; a Codex session of another project runs alone.
PARENT = [
    row("parent", 0, 2000, 0, 24, start=0.0, end=10.0, tools=(tool("Task", 10.0, 100.0),)),
    row("parent", 1, 2600, 1990, 16, start=101.0, end=110.0, tools=(tool("Bash", 110.0, 111.0),)),
    row("parent", 2, 3100, 2590, 20, start=112.0, end=118.0),
]
CHILD = [
    row("child", 0, 1200, 0, 12, start=12.0, end=20.0, tools=(tool("Grep", 20.0, 21.0),)),
    row("child", 1, 1500, 1190, 12, start=22.0, end=90.0),
]
OTHER = [
    row("other", i, 1000 + 600 * i, 990 + 600 * (i - 1) if i else 0, 8, provider="codex")
    for i in range(3)
]
RECORDED = {(r["session_id"], r["round_index"]): r for r in PARENT + CHILD + OTHER}


@pytest.fixture(scope="module")
def lab_run(tmp_path_factory):
    folder = tmp_path_factory.mktemp("tracelab")
    trace = write(folder / "syfi_coding_trace.jsonl.gz", [*OTHER, *CHILD, *PARENT], packed=True)
    run = run_locust(
        [
            "--headless",
            "--agent-trace",
            str(trace),
            "--ladder",
            "1",
            "--requests-per-user",
            "2",
            "--max-think-time",
            "2",
            "--sim-time-scale",
            "50",
            "--sim-block-size",
            "16",
        ],
        folder / "results",
    )
    assert run.returncode == 0, run.output
    return run


def measured(run) -> list[dict]:
    return [r for r in run.records if r["phase"] == "measure"]


def test_every_round_is_one_ok_record_of_its_recorded_size(lab_run):
    records = measured(lab_run)
    assert sorted((r["extra"]["trace_session"], r["extra"]["round_index"]) for r in records) == (
        sorted(RECORDED)
    )
    for r in records:
        recorded = RECORDED[(r["extra"]["trace_session"], r["extra"]["round_index"])]
        assert r["status"] == "ok"
        assert r["prompt_tokens"] == pytest.approx(recorded["input_tokens_total"], rel=0.01)
        assert r["prompt_tokens"] >= recorded["input_tokens_total"]
        assert r["extra"]["recorded_prompt_tokens"] == recorded["input_tokens_total"]
        assert r["max_tokens"] == r["output_tokens"] == recorded["output_tokens"]


def test_each_session_runs_its_rounds_in_order_and_its_prefix_comes_from_the_cache(lab_run):
    by_agent: dict[str, list[dict]] = defaultdict(list)
    for r in measured(lab_run):
        by_agent[r["agent_session"]].append(r)
    assert len(by_agent) == 3
    for rounds in by_agent.values():
        rounds.sort(key=lambda r: r["start_time"])
        assert [r["extra"]["round_index"] for r in rounds] == list(range(len(rounds)))
        for r in rounds[1:]:  # the recorded prefix, whole blocks of it, served by the cache
            assert r["cached_tokens"] >= r["extra"]["recorded_prefix_tokens"] - 16


def test_the_nested_sub_agent_runs_after_its_round_and_names_its_parent(lab_run):
    records = measured(lab_run)
    child = sorted(
        (r for r in records if r["extra"]["trace_session"] == "claude:child"),
        key=lambda r: r["start_time"],
    )
    parent = sorted(
        (r for r in records if r["extra"]["trace_session"] == "claude:parent"),
        key=lambda r: r["start_time"],
    )
    assert [r["depth"] for r in child] == [1, 1] and {r["depth"] for r in parent} == {0}
    assert {r["parent_session"] for r in child} == {parent[0]["agent_session"]}
    assert {r["session_id"] for r in child + parent} == {parent[0]["session_id"]}
    assert [r["turn"] for r in parent + child] == [1, 4, 5, 2, 3]  # the session's order
    assert parent[0]["start_time"] + parent[0]["latency"] <= child[0]["start_time"]
    assert child[-1]["start_time"] + child[-1]["latency"] <= parent[1]["start_time"]


def test_pauses_are_the_recorded_gaps_capped(lab_run):
    by_key = {
        (r["extra"]["trace_session"], r["extra"]["round_index"]): r for r in measured(lab_run)
    }
    assert by_key[("claude:child", 0)]["extra"]["recorded_pause_s"] == pytest.approx(2.0)
    assert by_key[("claude:child", 1)]["extra"]["recorded_pause_s"] == pytest.approx(2.0)
    assert by_key[("claude:parent", 1)]["extra"]["recorded_pause_s"] == pytest.approx(11.0)
    assert by_key[("claude:parent", 1)]["extra"]["pause_s"] == 2.0  # --max-think-time
    assert by_key[("claude:parent", 0)]["extra"]["pause_s"] == 0.0


def test_the_manifest_says_how_many_sessions_were_joined(lab_run):
    prompts = lab_run.manifest["prompts"]
    assert (prompts["format"], prompts["sessions"], prompts["joined"]) == ("tracelab", 2, 1)
    assert prompts["rounds"] == 8
    assert prompts["token_count"]["exact"]  # the master counted a 512-unit block as 512 tokens
    assert lab_run.manifest["workload"]["ignore_eos"] is True


def test_a_line_without_its_counts_is_one_error_line_before_the_load(tmp_path):
    rows = [row("a", 0, 1000, 0, 8), row("a", 1, 1200, 990, 8)]
    del rows[1]["output_tokens"]
    trace = write(tmp_path / "trace.jsonl", rows)
    run = run_locust(["--headless", "--agent-trace", str(trace)], tmp_path / "results")
    assert_clean_failure(run, f"--agent-trace: {trace} line 2: no output_tokens")
