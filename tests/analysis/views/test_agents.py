"""The agents tables: by step kind, by turn and by context length, from synthetic records of
agent steps whose every figure is known."""

from __future__ import annotations

import pandas as pd
import pytest

from analysis.figures.metrics import Settings
from analysis.reading.load import load
from analysis.views import agents
from tests.analysis_synthetic import make_record, write_run

SETTINGS = Settings(bootstrap_resamples=0)
PROMPT = {1: 300, 2: 700, 3: 1500}  # prompt tokens by step index: the context grows


def step(level: int, session: int, user_turn: int, index: int, **fields) -> dict:
    """One measured step of a two-tool-step user turn: steps 1 and 2 call tools, 3 answers;
    TTFT = 100 ms x index, TTFO = TTFT + 50 ms, 20 of 100 output tokens reasoning."""
    kind = "answer" if index == 3 else "tool_call"
    calls = {"tool_calls": 1, "tool_args_done": 0.4, "tool_args_valid": True}
    figures = {
        "ttfo": index * 0.1 + 0.05,
        "reasoning_tokens": 20,
        "answer_tokens": 80,
        "prompt_tokens": PROMPT[index] + 100 * (user_turn - 1),
        **(calls if kind == "tool_call" else {}),
        **fields,
    }
    return make_record(
        level, 0, ttft=index * 0.1, itl=0.01, tps=50.0, latency=1.0, output_tokens=100,
        start_time=1_700_000_000.0 + session * 100 + user_turn * 10 + index,
        session_id=f"s{session}", turn=(user_turn - 1) * 3 + index, turns=6, step=kind,
        extra={"workload": "agent", "user_turn": user_turn, "step_index": index}, **figures,
    )  # fmt: skip


def agent_run(root, records: list[dict]) -> pd.DataFrame:
    path = write_run(root, "agent", records, manifest_fields={"workload": {"name": "agent"}})
    return agents.step_records(load([path]).records)


def session(n: int, **fields) -> list[dict]:
    return [step(1, n, t, i, **fields) for t in (1, 2) for i in (1, 2, 3)]


def test_records_without_steps_are_no_agent_steps(tmp_path):
    records = [make_record(1, 0, ttft=0.1, itl=0.01, tps=50.0, latency=1.0, start_time=1.0)]
    assert agent_run(tmp_path, records).empty


def test_by_step_has_one_row_per_step_kind_with_its_figures(tmp_path):
    steps = agent_run(tmp_path, session(0) + session(1))
    frame = agents.by_step(steps, "agent", SETTINGS).set_index("Step")
    assert frame.loc["tool_call", "n"] == 8 and frame.loc["answer", "n"] == 4
    assert frame.loc["answer", "TTFT ms mean"] == pytest.approx(300.0)
    assert frame.loc["answer", "TTFO ms p50"] == pytest.approx(350.0)
    assert frame.loc["tool_call", "TTFO ms mean"] == pytest.approx(200.0)  # (150 + 250) / 2
    assert frame.loc["tool_call", "Reasoning share"] == pytest.approx(0.2)
    assert frame.loc["tool_call", "Tool args ms p90"] == pytest.approx(400.0)
    assert pd.isna(frame.loc["answer", "Tool args ms p50"])  # an answer calls no tools


def test_by_turn_is_ordered_by_user_turn_then_step_index(tmp_path):
    steps = agent_run(tmp_path, session(0))
    frame = agents.by_turn(steps, "agent", SETTINGS)
    assert list(zip(frame["User turn"], frame["Step index"], strict=True)) == [
        (t, i) for t in (1, 2) for i in (1, 2, 3)
    ]
    assert list(frame["Step"])[:3] == ["tool_call", "tool_call", "answer"]
    assert list(frame["Prompt tokens mean"])[:3] == [300, 700, 1500]


def test_a_replay_turn_is_its_own_user_turn(tmp_path):
    records = session(0)
    for record in records:
        record["extra"] = {"workload": "agent"}  # a replay's records have no user turn
    frame = agents.by_turn(agent_run(tmp_path, records), "agent", SETTINGS)
    assert list(frame["User turn"]) == [1, 2, 3, 4, 5, 6]
    assert frame["Step index"].isna().all()


def test_valid_json_share_counts_requests_with_tool_calls_only(tmp_path):
    records = session(0) + session(1, tool_args_valid=False)
    frame = agents.by_step(agent_run(tmp_path, records), "agent", SETTINGS).set_index("Step")
    assert frame.loc["tool_call", "Tool-call requests"] == 8
    assert frame.loc["tool_call", "Valid JSON share"] == pytest.approx(0.5)
    assert pd.isna(frame.loc["answer", "Valid JSON share"])


def test_a_call_cut_at_max_tokens_is_truncated_not_valid_even_where_its_record_says_valid(tmp_path):
    records = session(0)
    records[0].update(finish_reason="length")  # an older record of a cut call: "valid"
    frame = agents.by_step(agent_run(tmp_path, records), "agent", SETTINGS).set_index("Step")
    assert frame.loc["tool_call", "Truncated calls"] == 1
    assert frame.loc["tool_call", "Valid JSON share"] == pytest.approx(1.0)  # of the other 3
    assert frame.loc["answer", "Truncated calls"] == 0


def test_no_answer_counts_steps_that_reasoned_until_the_limit(tmp_path):
    records = session(0)
    records[2].update(ttfo=None, reasoning_tokens=100, answer_tokens=0, finish_reason="length")
    frame = agents.by_step(agent_run(tmp_path, records), "agent", SETTINGS).set_index("Step")
    assert frame.loc["answer", "No answer"] == 1 and frame.loc["tool_call", "No answer"] == 0
    assert frame.loc["answer", "TTFO ms mean"] == pytest.approx(350.0)  # only the one answered


def test_no_answer_leaves_out_steps_that_stopped_after_their_reasoning(tmp_path):
    records = session(0)
    records[2].update(ttfo=None, reasoning_tokens=97, answer_tokens=3, finish_reason="stop")
    frame = agents.by_step(agent_run(tmp_path, records), "agent", SETTINGS).set_index("Step")
    assert frame.loc["answer", "No answer"] == 0


def test_failures_are_counted_apart_from_the_figures(tmp_path):
    records = session(0)
    records[0].update(status="error", error_kind="disconnect", ttft=None, ttfo=None)
    frame = agents.by_step(agent_run(tmp_path, records), "agent", SETTINGS).set_index("Step")
    assert frame.loc["tool_call", "Failures"] == 1 and frame.loc["tool_call", "n"] == 3


def test_by_context_bins_steps_by_prompt_tokens_in_powers_of_two(tmp_path):
    steps = agent_run(tmp_path, session(0))  # prompts 300, 700, 1500, 400, 800, 1600
    frame = agents.by_context(steps, "agent", SETTINGS)
    assert list(frame["Prompt tokens from"]) == [256, 512, 1024]
    assert list(frame["to"]) == [511, 1023, 2047]
    assert list(frame["n"]) == [2, 2, 2]
    assert list(frame["TTFO ms mean"]) == pytest.approx([150.0, 250.0, 350.0])  # grows


def test_the_context_chart_draws_mean_ttfo_per_bucket(tmp_path):
    frame = agents.by_context(agent_run(tmp_path, session(0)), "agent", SETTINGS)
    chart = agents.context_chart(frame, "agent")
    assert [s.name for s in chart.series] == ["C=1"]
    assert list(chart.series[0].y) == pytest.approx([150.0, 250.0, 350.0])


def test_the_context_chart_leaves_out_failed_steps_of_unknown_prompt_length(tmp_path):
    records = session(0)
    records[0].update(status="error", error_kind="http_500", ttft=None, ttfo=None)
    records[0].pop("prompt_tokens")  # a failed request has no usage: its bucket is unknown
    frame = agents.by_context(agent_run(tmp_path, records), "agent", SETTINGS)
    assert frame["Prompt tokens from"].isna().sum() == 1  # the table shows it, bucket empty
    chart = agents.context_chart(frame, "agent")
    assert list(chart.series[0].x) == [256, 512, 1024]
    assert list(chart.series[0].y) == pytest.approx([150.0, 250.0, 350.0])
