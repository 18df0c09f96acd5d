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


def test_tokens_that_all_arrived_at_once_have_no_decode_rate():
    r = record(ttft=0.4, t_last_token=0.4, latency=0.5, output_tokens=8).derive()
    assert (r.itl, r.decode_tps) == (0.0, None)


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
