"""Edges of the per-request figures: two tokens, short decodes, failures that streamed, one gap,
and simulated time."""

from __future__ import annotations

import pytest

from sparkload.records import RequestRecord, scale_to_simulated_time, summarize_gaps


def record(**fields) -> RequestRecord:
    return RequestRecord("r", 1, 0, "measure", "local", 0, "http://h", "m", 0, 128, 0.0, **fields)


def test_two_tokens_have_one_inter_token_latency_the_time_between_them():
    r = record(ttft=0.2, t_last_token=0.25, latency=0.3, output_tokens=2).derive()
    assert r.itl == pytest.approx(0.05) and r.decode_tps == pytest.approx(20.0)


def test_decode_rate_of_a_decode_shorter_than_a_second():
    r = record(ttft=0.1, t_last_token=0.6, latency=0.7, output_tokens=11).derive()
    assert r.decode_tps == pytest.approx(20.0)


def test_tokens_that_all_arrived_at_once_have_no_itl_and_no_decode_rate():
    # no gap was measured between them: undefined, not a gap of 0
    r = record(ttft=0.4, t_last_token=0.4, latency=0.5, output_tokens=8, chunks=1).derive()
    assert (r.itl, r.decode_tps) == (None, None)


def test_a_failed_request_that_streamed_tokens_gets_no_derived_metrics():
    r = record(status="error", ttft=0.1, t_last_token=0.5, latency=0.6, output_tokens=5).derive()
    assert (r.itl, r.tps, r.decode_tps) == (None, None, None)


def test_a_request_without_a_latency_gets_no_rate():
    r = record(ttft=0.1, t_last_token=0.5, output_tokens=5).derive()
    assert r.tps is None and r.itl == pytest.approx(0.1)


def test_one_gap_is_every_percentile_of_itself():
    gaps = summarize_gaps([0.02])
    assert (gaps.mean, gaps.p50, gaps.p90, gaps.p99, gaps.max) == (0.02,) * 5


def test_the_gap_summary_keeps_its_p99():
    gaps = summarize_gaps([0.01 * i for i in range(1, 11)])
    assert gaps.p99 == pytest.approx(0.0991)


def test_the_gap_summary_sorts_the_gaps_first():
    gaps = summarize_gaps([0.05, 0.01, 0.03])
    assert (gaps.p50, gaps.max) == (0.03, 0.05)


def test_a_simulator_at_twice_real_time_doubles_durations_and_halves_rates():
    scaled = scale_to_simulated_time({"ttft": 0.1, "itl": None, "tps": 50.0, "level": 4}, 2)
    assert scaled == {"ttft": 0.2, "itl": None, "tps": 25.0, "level": 4}


def test_real_time_records_are_left_as_they_are():
    record_dict = {"ttft": 0.1, "tps": 50.0}
    assert scale_to_simulated_time(record_dict, 1) == {"ttft": 0.1, "tps": 50.0}


# A thinking model's decode rates: the reasoning's from TTFT, the answer's from TTFO.


def thinking(**fields) -> RequestRecord:
    measured = dict(ttft=0.2, t_last_reasoning=0.8, reasoning_tokens=7, ttfo=0.9, t_last_token=1.4)
    return record(latency=1.5, output_tokens=12, **{**measured, "answer_tokens": 5, **fields})


def test_the_reasoning_rate_is_its_tokens_after_the_first_over_its_span_from_ttft():
    r = thinking().derive()
    assert r.reasoning_tps == pytest.approx(6 / 0.6)


def test_the_answer_rate_is_its_tokens_after_the_first_over_its_span_from_ttfo():
    r = thinking().derive()
    assert r.answer_tps == pytest.approx(4 / 0.5)
    assert r.itl == pytest.approx(1.2 / 11)  # the whole decode's ITL is unchanged


@pytest.mark.parametrize(
    "fields",
    [
        {"reasoning_tokens": 1},  # one token has no rate
        {"reasoning_tokens": None, "answer_tokens": None},  # not a thinking model's reply
        {"t_last_reasoning": 0.2},  # no time between the first and the last
        {"t_last_reasoning": None},
    ],
)
def test_an_undefined_reasoning_rate_is_none_never_zero(fields):
    assert thinking(**fields).derive().reasoning_tps is None


@pytest.mark.parametrize(
    "fields",
    [
        {"answer_tokens": 1},
        {"answer_tokens": 0},
        {"ttfo": None},  # it never answered within max_tokens
        {"ttfo": 1.4},  # the answer was one chunk
    ],
)
def test_an_undefined_answer_rate_is_none_never_zero(fields):
    assert thinking(**fields).derive().answer_tps is None


def test_a_failed_thinking_request_gets_no_rates():
    r = thinking(status="error").derive()
    assert (r.reasoning_tps, r.answer_tps) == (None, None)


def test_the_new_durations_and_rates_move_to_simulated_time():
    r = thinking(tool_calls=1, tool_args_done=1.3).derive().to_dict()
    scaled = scale_to_simulated_time(r, 10.0)
    assert (scaled["ttfo"], scaled["tool_args_done"]) == pytest.approx((9.0, 13.0))
    assert scaled["t_last_reasoning"] == pytest.approx(8.0)
    assert scaled["answer_tps"] == pytest.approx(r["answer_tps"] / 10)
    assert scaled["reasoning_tps"] == pytest.approx(r["reasoning_tps"] / 10)
