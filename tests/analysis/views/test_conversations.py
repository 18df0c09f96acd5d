"""The report's conversation section: TTFT, prompt and cached tokens by turn, and TTFT by
context length, from synthetic records of conversation turns."""

from __future__ import annotations

import json

import pytest

from analysis import report
from analysis.figures.metrics import Settings
from analysis.reading.load import load
from analysis.views import conversations
from tests.analysis_synthetic import make_record, markdown_table, write_run

PROMPT = {1: 140, 2: 400, 3: 660}  # prompt tokens by turn
CACHED = {1: 0, 2: 128, 3: 400}


def conversation_records(level: int, conversations_per_level: int, t0: float) -> list[dict]:
    """``conversations_per_level`` three-turn conversations at C=``level``; turn k's TTFT is
    k x 100 ms plus 10 ms per conversation, so every figure is known."""
    records = []
    for n in range(conversations_per_level):
        for turn in (1, 2, 3):
            records.append(
                make_record(
                    level,
                    0 if level == 1 else 1,
                    ttft=turn * 0.1 + n * 0.01,
                    itl=0.02,
                    tps=20.0,
                    latency=3.0,
                    start_time=t0 + n * 10 + turn,
                    session_id=f"s{level}-{n}",
                    turn=turn,
                    turns=3,
                    prompt_tokens=PROMPT[turn],
                    cached_tokens=CACHED[turn],
                )
            )
    return records


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    records = conversation_records(1, 2, 1_700_000_000.0) + conversation_records(
        2, 4, 1_700_001_000.0
    )
    records.append(
        make_record(
            2, 1, ttft=None, itl=None, tps=None, latency=None, start_time=1_700_001_500.0,
            status="error", error_kind="disconnect", output_tokens=None,
            session_id="s2-9", turn=1, turns=1,
        )
    )  # fmt: skip
    root = tmp_path_factory.mktemp("conversation")
    return write_run(
        root, "chat-sessions", records, manifest_fields={"workload": {"name": "conversation"}}
    )


@pytest.fixture(scope="module")
def turns(run):
    return conversations.turn_records(load([run]).records)


def test_the_loader_keeps_each_records_session_and_turn(run):
    records = load([run]).records
    assert set(records["turn"].dropna()) == {1, 2, 3}
    assert records["session_id"].nunique() == 2 + 4 + 1


def test_by_turn_gives_ttft_tokens_and_cached_share_per_level_and_turn(turns):
    table = conversations.by_turn(turns, "chat-sessions", Settings()).set_index(
        ["Concurrency", "Turn"]
    )
    assert table.loc[(1, 2), "n"] == 2
    assert table.loc[(1, 2), "TTFT ms mean"] == pytest.approx(205.0)  # (200 + 210) / 2
    assert table.loc[(2, 3), "TTFT ms p50"] == pytest.approx(315.0)  # 300, 310, 320, 330
    assert table.loc[(2, 3), "Prompt tokens mean"] == 660
    assert table.loc[(2, 2), "Cached share"] == pytest.approx(128 / 400)
    assert table.loc[(1, 1), "Cached share"] == 0


def test_a_failed_turn_is_counted_and_left_out_of_the_figures(turns):
    table = conversations.by_turn(turns, "chat-sessions", Settings()).set_index(
        ["Concurrency", "Turn"]
    )
    assert (table.loc[(2, 1), "n"], table.loc[(2, 1), "Failures"]) == (4, 1)
    assert table.loc[(2, 1), "TTFT ms mean"] == pytest.approx(115.0)


def test_by_context_buckets_prompts_by_powers_of_two(turns):
    table = conversations.by_context(turns, "chat-sessions", Settings())
    rows = table[table["Concurrency"] == 1]
    assert list(zip(rows["Prompt tokens from"], rows["to"], rows["n"], strict=True)) == [
        (128, 255, 2),
        (256, 511, 2),
        (512, 1023, 2),
    ]


def test_requests_that_are_not_conversation_turns_make_no_section(tmp_path):
    plain = [
        make_record(1, 0, ttft=0.1, itl=0.01, tps=10.0, latency=1.0, start_time=1e9 + i)
        for i in range(3)
    ]
    assert conversations.turn_records(load([write_run(tmp_path, "plain", plain)]).records).empty


def test_the_report_has_the_section_its_chart_and_summary_json_tables(run, tmp_path):
    built = report.build(load([run]), Settings(bootstrap_resamples=0))
    report.write(built, tmp_path)
    text = (tmp_path / "report.md").read_text()
    rows = markdown_table(text, "chat-sessions: by turn")
    assert rows[0][:3] == ["Concurrency", "Turn", "n"]
    assert rows[2][:2] == ["1", "2"] and rows[2][-1] == "32.0%"
    assert (tmp_path / "chat-sessions" / "ttft_vs_context.png").is_file()
    summary = json.loads((tmp_path / "summary.json").read_text())
    assert {row["Turn"] for row in summary["conversation_turns"]} == {1, 2, 3}
    assert summary["conversation_context"][0]["Label"] == "chat-sessions"
