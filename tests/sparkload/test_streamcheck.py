"""A level's stream shape tells when the figures measure an intermediary, not the model server."""

from __future__ import annotations

import statistics

import pytest

from sparkload import streamcheck
from sparkload.records import (
    STREAM_CLOCK_ADJUSTED,
    STREAM_COLLAPSED,
    STREAM_HEADERS_HELD,
    STREAM_LONG_TAIL,
    STREAM_PARTIAL_BURST,
)
from sparkload.streamcheck import PathEvidence, level_stream_shape, short_name
from tests.servers import Script, measure_on


def rec(ttfb=0.05, ttft=0.1, gap=0.01, tokens=64, tail=0.0002, burst=1, **extra) -> dict:
    t_last = ttft + gap * (tokens - 1)
    return {
        "status": "ok",
        "ttfb": ttfb,
        "ttft": ttft,
        "t_last_token": t_last,
        "latency": t_last + tail,
        "chunk_gap_p50": gap,
        "itl": gap,
        "chunks": tokens,
        "output_tokens": tokens,
        "burst_chunks": burst,
        **extra,
    }


PROXIED = PathEvidence(intermediaries=("via: 1.1 nginx",))  # the responses named a proxy


def kinds_of(records: list[dict]) -> list[str]:
    return level_stream_shape(records).kinds


def test_a_healthy_stream_raises_no_flag():
    check = level_stream_shape([rec() for _ in range(10)])
    assert check.flags == [] and check.kinds == []
    assert check.summary["requests"] == 10 and check.summary["chunk_gap_p50_ms"] == 10.0


def test_each_flag_comes_with_its_kind_in_the_same_order():
    check = level_stream_shape([rec(ttfb=0.1, ttft=0.1, tail=0.2) for _ in range(10)])
    assert check.kinds == [STREAM_HEADERS_HELD, STREAM_LONG_TAIL]
    assert check.flags[0].startswith("headers held back") and "tail" in check.flags[1]


def test_tokens_in_one_burst_at_the_end_are_a_collapsed_stream():
    records = [rec(ttfb=0.3, ttft=0.3, gap=0.00001) for _ in range(10)]
    check = level_stream_shape(records, evidence=PROXIED)
    assert check.kinds[0] == STREAM_COLLAPSED
    assert "buffering of the intermediary on the path (via: 1.1 nginx)" in check.flags[0]


def test_a_whole_answer_in_one_read_is_collapsed_whatever_its_timing_says():
    assert kinds_of([rec(burst=64) for _ in range(5)])[:1] == [STREAM_COLLAPSED]


def test_tiny_gaps_with_a_long_decode_are_not_called_collapsed():
    assert STREAM_COLLAPSED not in kinds_of([rec(ttft=0.01, gap=0.0001, tokens=2000)] * 10)


def test_forty_of_sixty_four_tokens_released_together_are_a_partial_burst():
    check = level_stream_shape([rec(burst=40) for _ in range(9)], evidence=PROXIED)
    assert check.kinds == [STREAM_PARTIAL_BURST]
    assert check.flags[0].startswith(
        "partial burst: 40 of 64 tokens of the median request arrived in one burst"
    )
    assert "TTFT and ITL measure the buffering of the intermediary" in check.flags[0]
    assert (check.summary["burst_chunks"], check.summary["burst_of_chunks"]) == (40, 64)


def test_the_burst_judged_is_the_median_requests_not_the_worst():
    records = [rec(burst=40)] * 4 + [rec(burst=2)] * 5
    assert kinds_of(records) == []


def test_a_few_reads_merged_by_a_busy_client_are_no_burst():
    assert kinds_of([rec(burst=3) for _ in range(9)]) == []


def test_short_answers_say_nothing_about_bursts():
    assert kinds_of([rec(tokens=6, burst=6) for _ in range(9)]) == []


def test_bursts_of_multi_token_chunks_are_counted_in_chunks():
    check = level_stream_shape([rec(tokens=32, burst=20, output_tokens=96) for _ in range(3)])
    assert "20 of 32 token chunks" in check.flags[0]


def test_headers_sent_with_the_first_token_are_held_back():
    assert kinds_of([rec(ttfb=0.1, ttft=0.1001) for _ in range(10)]) == [STREAM_HEADERS_HELD]


def test_headers_a_gateways_millisecond_before_the_first_token_are_held_back():
    assert kinds_of([rec(ttfb=0.0685, ttft=0.070) for _ in range(10)]) == [STREAM_HEADERS_HELD]


@pytest.mark.parametrize("ttft", [0.003, 0.03, 3.0])
def test_headers_sent_on_accepting_the_request_are_not_held_back(ttft):
    assert kinds_of([rec(ttfb=0.0002, ttft=ttft) for _ in range(10)]) == []


def test_a_late_end_after_the_last_token_is_a_long_tail():
    assert kinds_of([rec(tail=0.2) for _ in range(10)]) == [STREAM_LONG_TAIL]


def test_a_tail_of_one_token_time_is_not_flagged():
    assert kinds_of([rec(tail=0.01, gap=0.01) for _ in range(10)]) == []


def test_raised_clock_stamps_are_reported():
    check = level_stream_shape([rec(clock_adjusted=True), rec()])
    assert check.summary["clock_adjusted"] == 1
    assert check.kinds == [STREAM_CLOCK_ADJUSTED] and "monotonic" in check.flags[0]


def test_failed_requests_are_left_out():
    assert level_stream_shape([{"status": "error", "ttft": None}]) == ({"requests": 0}, [], [])


def level_records(script: Script, requests: int = 4, max_tokens: int = 32) -> list[dict]:
    records, _ = measure_on(script, requests, max_tokens=max_tokens)
    return [r.to_dict() for r in records]


def test_a_level_behind_a_collapsing_proxy_is_flagged_and_a_normal_one_is_not():
    collapsed = kinds_of(level_records(Script(tokens=32, hold=0.3, collapse=True)))
    normal = kinds_of(level_records(Script(tokens=32, gap=0.003)))
    assert collapsed[:2] == [STREAM_COLLAPSED, STREAM_HEADERS_HELD]
    assert normal == []


PARTLY_BUFFERED = Script(tokens=64, gap=0.01, prefill=0.01, burst=40)
STREAMING = Script(tokens=64, gap=0.01, prefill=0.01)


def test_a_proxy_releasing_the_first_40_of_64_tokens_at_once_is_a_partial_burst():
    check = level_stream_shape(level_records(PARTLY_BUFFERED, requests=3, max_tokens=64))
    assert STREAM_PARTIAL_BURST in check.kinds
    assert "40 of 64 tokens of the median request arrived in one burst" in check.flags[0]


def test_the_same_server_streaming_every_token_raises_no_flag():
    assert kinds_of(level_records(STREAMING, requests=3, max_tokens=64)) == []


# A gateway: it answers only once the model server's first bytes are in, a millisecond and a
# half before it passes the first token on, and ends the stream 20 ms after the last token.
GATEWAY = Script(tokens=32, hold=0.05, prefill=0.0015, gap=0.002, tail=0.02)


def test_the_same_gateway_path_gets_the_same_flags_run_after_run():
    runs = [kinds_of(level_records(GATEWAY, requests=5)) for _ in range(5)]
    assert runs == [[STREAM_HEADERS_HELD, STREAM_LONG_TAIL]] * 5


def test_the_live_table_names_each_flag_with_the_figure_that_raised_it():
    check = level_stream_shape([rec(burst=40, ttfb=0.1, ttft=0.1) for _ in range(5)])
    shown = [short_name(kind, check.summary) for kind in check.kinds]
    assert shown == ["partial burst 40/64 from server", "headers held 0.0 ms"]


def test_a_level_sample_keeps_a_bounded_share_and_counts_every_request(monkeypatch):
    monkeypatch.setattr(streamcheck, "SAMPLE_SIZE", 50)
    sample = streamcheck.LevelSample(seed=1)
    for i in range(1000):
        sample.add(rec(burst=40, clock_adjusted=i % 100 == 0, resent=i < 3))
    sample.add({"status": "error", "ttft": None})
    assert len(sample.records) == 50
    check = sample.check()
    assert (check.summary["requests"], check.summary["clock_adjusted"]) == (1000, 10)
    assert check.summary["resent"] == 3
    assert check.kinds == [STREAM_PARTIAL_BURST]  # 1 % adjusted is not over the 1 % threshold


def test_a_level_sample_replaces_uniformly_once_full(monkeypatch):
    monkeypatch.setattr(streamcheck, "SAMPLE_SIZE", 100)
    sample = streamcheck.LevelSample(seed=7)
    for i in range(10_000):
        sample.add(rec(ttft=float(i + 1)))
    kept = sorted(r["ttft"] for r in sample.records)
    assert 3000 < statistics.median(kept) < 7000  # not the first hundred: the whole level


def test_the_partial_burst_says_how_late_the_first_token_came():
    # ttft 1.8 s of a 1.8 + 63 x 0.01 + 0.0002 = 2.4302 s latency: 74 % (74.07)
    records = [rec(ttft=1.8, ttfb=0.0, burst=40) for _ in range(5)]
    (flag,) = level_stream_shape(records, evidence=PROXIED).flags
    assert flag == (
        "partial burst: 40 of 64 tokens of the median request arrived in one burst (first token "
        "at 74 % of latency): TTFT and ITL measure the buffering of the intermediary on the path "
        "(via: 1.1 nginx), not the model server"
    )


def test_the_median_burst_of_an_even_count_is_the_lower_of_the_two_middle_ones():
    records = [rec(burst=b, ttfb=0.0) for b in (2, 10, 20, 30, 40, 50)]
    assert level_stream_shape(records).summary["burst_chunks"] == 20


def test_the_median_burst_is_by_share_not_by_the_order_records_came_in():
    records = [rec(burst=b, ttfb=0.0) for b in (40, 2, 30, 10, 20)]
    assert level_stream_shape(records).summary["burst_chunks"] == 20


def test_the_median_burst_is_by_share_not_by_size():
    # shares 12/100, 8/16, 40/64: the median share is 8 of 16, the median size 12
    records = [rec(tokens=n, burst=b, ttfb=0.0) for b, n in ((12, 100), (8, 16), (40, 64))]
    summary = level_stream_shape(records).summary
    assert (summary["burst_chunks"], summary["burst_of_chunks"]) == (8, 16)


def test_a_request_of_exactly_the_minimum_chunks_is_judged_for_bursts():
    tokens = streamcheck.BURST_MIN_CHUNKS
    check = level_stream_shape([rec(tokens=tokens, burst=tokens // 2, ttfb=0.0)] * 3)
    assert check.kinds == [STREAM_PARTIAL_BURST]


def test_requests_one_chunk_short_of_the_minimum_are_not_judged_for_bursts():
    tokens = streamcheck.BURST_MIN_CHUNKS - 1
    check = level_stream_shape([rec(tokens=tokens, burst=tokens, ttfb=0.0)] * 3)
    assert check.kinds == [] and check.summary.get("burst_chunks") is None


def test_requests_without_a_burst_figure_are_not_judged_for_bursts():
    records = [rec(ttfb=0.0, burst=None)] * 3 + [rec(ttfb=0.0, burst=40)]
    assert level_stream_shape(records).summary["burst_chunks"] == 40


def test_a_burst_of_exactly_the_threshold_share_and_size_is_flagged():
    share = streamcheck.PARTIAL_BURST_SHARE
    size = streamcheck.BURST_MIN_SIZE
    tokens = round(size / share)  # 8 of 32: exactly a quarter, exactly the minimum size
    check = level_stream_shape([rec(tokens=tokens, burst=size, ttfb=0.0)] * 3)
    assert check.kinds == [STREAM_PARTIAL_BURST]


@pytest.mark.parametrize(
    ("kind", "summary", "shown"),
    [
        (STREAM_PARTIAL_BURST, {"burst_chunks": 40, "burst_of_chunks": 64}, "partial burst 40/64"),
        (STREAM_HEADERS_HELD, {"ttft_minus_ttfb_ms": 0.5}, "headers held 0.5 ms"),
        (STREAM_LONG_TAIL, {"tail_ms": 72.5}, "long tail 72.5 ms"),
        (STREAM_CLOCK_ADJUSTED, {"clock_adjusted": 3}, "clock adjusted 3"),
        (STREAM_COLLAPSED, {}, "collapsed"),
    ],
)
def test_the_live_tables_short_name_of_each_flag(kind, summary, shown):
    assert short_name(kind, summary) == shown


def test_a_level_sample_keeps_the_same_records_for_the_same_seed(monkeypatch):
    monkeypatch.setattr(streamcheck, "SAMPLE_SIZE", 10)
    kept = []
    for _ in range(2):
        sample = streamcheck.LevelSample(seed=3)
        for i in range(200):
            sample.add(rec(ttft=float(i + 1)))
        kept.append([r["ttft"] for r in sample.records])
    assert kept[0] == kept[1]


def test_a_level_sample_leaves_out_a_failure_that_had_a_first_token():
    sample = streamcheck.LevelSample(seed=1)
    sample.add(rec(status="error"))
    sample.add(rec())
    assert len(sample.records) == 1 and sample.check().summary["requests"] == 1


# ----- what a burst is blamed on: only the cause the evidence supports ------------------------
def burst_flag(evidence: PathEvidence) -> tuple[str, str]:
    check = level_stream_shape([rec(burst=40) for _ in range(5)], evidence=evidence)
    (flag,) = check.flags
    return flag, check.summary["burst_cause"]


def test_bursts_behind_an_identified_intermediary_are_blamed_on_it_by_name():
    flag, cause = burst_flag(PROXIED)
    assert cause == streamcheck.CAUSE_INTERMEDIARY
    assert flag.endswith(
        "buffering of the intermediary on the path (via: 1.1 nginx), not the model server"
    )


def test_bursts_on_a_level_whose_client_check_flagged_it_are_blamed_on_the_client():
    starved = "client starved of CPU: waited for a free core 33 % of the time"
    flag, cause = burst_flag(PathEvidence(client_flags=(starved,)))
    assert cause == streamcheck.CAUSE_CLIENT
    assert "the client read late (its client check flagged this level)" in flag
    assert "intermediary" not in flag and "from the server" not in flag


def test_bursts_with_no_intermediary_and_an_idle_client_came_from_the_server():
    flag, cause = burst_flag(PathEvidence())
    assert cause == streamcheck.CAUSE_SERVER
    assert "arrived in bursts from the server" in flag and "intermediary's" not in flag


def test_the_live_table_names_a_bursts_cause():
    check = level_stream_shape([rec(burst=40) for _ in range(5)], evidence=PROXIED)
    assert (
        short_name(STREAM_PARTIAL_BURST, check.summary) == "partial burst 40/64 from intermediary"
    )


# ----- a reply that came as one chunk ----------------------------------------------------------
def one_chunk(tokens: int) -> dict:
    return rec(tokens=tokens, gap=0.0, burst=None, chunks=1, chunk_gap_p50=None, itl=None)


def test_a_reply_sent_as_one_event_is_the_servers_even_on_a_flagged_client():
    starved = "client starved of CPU: waited for a free core 33 % of the time"
    check = level_stream_shape(
        [one_chunk(64) for _ in range(3)], evidence=PathEvidence(client_flags=(starved,))
    )
    assert (
        check.summary["burst_cause"] == streamcheck.CAUSE_SERVER
    )  # a late read joins, never frames
    assert "in one burst from the server" in check.flags[0]


def test_a_reply_of_sixty_four_tokens_in_one_chunk_is_a_collapsed_stream():
    check = level_stream_shape([one_chunk(64) for _ in range(5)])
    assert check.kinds[0] == STREAM_COLLAPSED
    assert "64 of 64 tokens of the median request arrived in one burst" in check.flags[0]
    assert "in one burst from the server" in check.flags[0]


def test_a_one_token_reply_in_one_chunk_is_not_collapsed():
    assert STREAM_COLLAPSED not in kinds_of([one_chunk(1) for _ in range(5)])


def test_a_single_chunk_of_fewer_tokens_than_a_burst_needs_says_nothing():
    assert STREAM_COLLAPSED not in kinds_of([one_chunk(streamcheck.BURST_MIN_CHUNKS - 1)] * 5)


def test_a_server_sending_each_reply_as_one_event_is_flagged_collapsed():
    direct = Script(tokens=64, one_event=True, extra_headers=b"Server: uvicorn\r\n")
    records = level_records(direct, requests=3, max_tokens=64)
    assert {(r["chunks"], r["output_tokens"], r["itl"]) for r in records} == {(1, 64, None)}
    check = level_stream_shape(records)
    assert check.kinds[0] == STREAM_COLLAPSED and check.summary["burst_cause"] == "server"
    assert check.summary.get("itl_ms") is None
