"""A thinking model's and an agent's per-level figures: TTFO beside TTFT, reasoning and answer
tokens, the reasoning's share, both decode rates, tool calls and their arguments, and the
requests that never answered within max_tokens; a plain run's summary keeps its columns."""

from __future__ import annotations

import pytest

from analysis.figures.metrics import (
    EXTRA_COLUMNS,
    SUMMARY_COLUMNS,
    THINKING_COLUMNS,
    Settings,
    summarize,
)
from analysis.reading.load import load
from tests.analysis_synthetic import closed_loop_level, make_record, write_run


def thinking(start: float, *, level: int = 1, ttfo: float | None = 0.9, **fields) -> dict:
    """An ok request that reasoned 40 tokens (TTFT 0.1 s) and answered 60 (from ``ttfo``)."""
    measured = dict(
        ttfo=ttfo,
        t_last_reasoning=0.8,
        reasoning_tokens=40,
        answer_tokens=60,
        reasoning_counted_by="usage",
        reasoning_tps=39 / 0.7,
        answer_tps=None if ttfo is None else 59 / (2.0 - ttfo),
    )
    return make_record(
        level,
        0,
        ttft=0.1,
        itl=0.019,
        tps=50.0,
        latency=2.0,
        start_time=start,
        output_tokens=100,
        **{**measured, **fields},
    )


def summary_of(tmp_path, records):
    write_run(tmp_path, "think", records)
    return summarize(load([tmp_path]), Settings(bootstrap_resamples=50)).iloc[0]


def test_a_level_of_a_thinking_model_reports_ttfo_beside_ttft(tmp_path):
    row = summary_of(tmp_path, [thinking(i, ttfo=0.5 + 0.1 * i) for i in range(5)])
    assert row["ttft_ms_p50"] == pytest.approx(100.0)
    assert (row["ttfo_ms_mean"], row["ttfo_ms_p50"]) == pytest.approx((700.0, 700.0))
    assert row["ttfo_ms_p90"] == pytest.approx(860.0) and row["ttfo_ms_p99"] == pytest.approx(896)
    assert row["ttfo_ms_p50_ci_low"] <= 700.0 <= row["ttfo_ms_p50_ci_high"]


def test_reasoning_and_answer_tokens_their_share_and_rates(tmp_path):
    row = summary_of(tmp_path, [thinking(i) for i in range(4)])
    assert (row["reasoning_tokens_mean"], row["answer_tokens_mean"]) == (40.0, 60.0)
    assert row["reasoning_pct"] == pytest.approx(40.0)  # Σ reasoning / Σ output tokens
    assert row["reasoning_tps_mean"] == pytest.approx(39 / 0.7)
    assert row["answer_tps_p50"] == pytest.approx(59 / 1.1)
    assert row["reasoning_counted_by"] == "usage"


def test_who_counted_the_reasoning_is_said_once_per_kind(tmp_path):
    records = [thinking(0), thinking(1, reasoning_counted_by="chunks")]
    assert summary_of(tmp_path, records)["reasoning_counted_by"] == "chunks/usage"


def test_requests_that_never_answered_are_counted_and_left_out_of_ttfo(tmp_path):
    records = [
        thinking(0, ttfo=0.5),
        thinking(1, ttfo=0.7),
        thinking(2, ttfo=None, finish_reason="length"),
    ]
    row = summary_of(tmp_path, records)
    assert (row["n"], row["no_answer"], row["failures"]) == (3, 1, 0)
    assert row["ttfo_ms_mean"] == pytest.approx(600.0)


def test_a_reply_that_stopped_without_output_is_not_counted_as_no_answer(tmp_path):
    records = [thinking(0, ttfo=0.5), thinking(1, ttfo=None, finish_reason="stop")]
    row = summary_of(tmp_path, records)
    assert (row["n"], row["no_answer"]) == (2, 0)
    assert row["ttfo_ms_mean"] == pytest.approx(500.0)


def test_tool_calls_their_argument_time_and_validity(tmp_path):
    def agent(start, valid, calls=1):
        return make_record(
            1,
            0,
            ttft=0.2,
            itl=0.01,
            tps=40.0,
            latency=1.0,
            start_time=start,
            ttfo=0.2,
            tool_calls=calls,
            tool_args_done=0.6 + start / 10,
            tool_args_valid=valid,
        )

    plain = make_record(1, 0, ttft=0.2, itl=0.01, tps=40.0, latency=1.0, start_time=9, ttfo=0.2)
    row = summary_of(tmp_path, [agent(0, True, 2), agent(1, True), agent(2, False), plain])
    assert (row["tool_calls"], row["tool_call_requests"]) == (4, 3)
    assert row["tool_args_valid_pct"] == pytest.approx(200 / 3)
    assert row["tool_args_ms_p50"] == pytest.approx(700.0)
    assert row["ttfo_ms_mean"] == pytest.approx(200.0)
    assert row["reasoning_tokens_mean"] != row["reasoning_tokens_mean"]  # none reasoned: NaN


def test_tool_calls_cut_at_max_tokens_are_counted_apart_and_never_valid(tmp_path):
    def agent(start, finish, valid):
        return make_record(
            1, 0, ttft=0.2, itl=0.01, tps=40.0, latency=1.0, start_time=start, ttfo=0.2,
            tool_calls=1, tool_args_done=0.6, tool_args_valid=valid, finish_reason=finish,
        )  # fmt: skip

    # the third is an older record of a cut call: it said valid (vLLM's "{}" stub parsed)
    records = [agent(0, "tool_calls", True), agent(1, "tool_calls", False)]
    records += [agent(2, "length", True), agent(3, "length", None)]
    row = summary_of(tmp_path, records)
    assert (row["tool_call_requests"], row["tool_args_truncated"]) == (4, 2)
    assert row["tool_args_valid_pct"] == pytest.approx(50.0)


def test_a_plain_run_keeps_its_summary_columns_as_they_were(tmp_path):
    records = closed_loop_level(1, 0, 0.0, ttft=0.1, itl=0.01, tps=50.0, latency=1.0)
    for record in records:
        record["ttfo"] = record["ttft"]  # a plain reply of today's client: TTFO = TTFT
    write_run(tmp_path, "plain", records)
    summary = summarize(load([tmp_path]), Settings(bootstrap_resamples=0))
    assert list(summary.columns) == SUMMARY_COLUMNS + EXTRA_COLUMNS


def test_a_thinking_run_adds_its_columns_after_the_others(tmp_path):
    write_run(tmp_path, "think", [thinking(0)])
    summary = summarize(load([tmp_path]), Settings(bootstrap_resamples=0))
    assert list(summary.columns) == SUMMARY_COLUMNS + EXTRA_COLUMNS + THINKING_COLUMNS


def test_older_records_beside_new_ones_read_as_missing(tmp_path):
    old = make_record(1, 0, ttft=0.1, itl=0.01, tps=50.0, latency=2.0, start_time=5)
    row = summary_of(tmp_path, [thinking(0, ttfo=0.5), old])
    assert (row["n"], row["no_answer"]) == (2, 0)  # an old record is not "no answer"
    assert row["ttfo_ms_mean"] == pytest.approx(500.0)
    assert row["reasoning_tokens_mean"] == pytest.approx(40.0)


def test_durations_and_rates_of_a_simulator_run_are_in_simulated_time(tmp_path):
    write_run(tmp_path, "think", [thinking(0, ttfo=0.5)], time_scale=10.0)
    row = summarize(load([tmp_path]), Settings(bootstrap_resamples=0)).iloc[0]
    assert row["ttfo_ms_mean"] == pytest.approx(5000.0)
    assert row["reasoning_tps_mean"] == pytest.approx(39 / 0.7 / 10)
