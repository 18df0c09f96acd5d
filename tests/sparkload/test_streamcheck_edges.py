"""The stream check's figures and the exact edges of its flags: a threshold itself is not a flag.

Records are dicts as requests.jsonl holds them; times are chosen so each median is exact.
"""

from __future__ import annotations

from sparkload.streamcheck import (
    CLOCK_ADJUSTED_SHARE,
    COLLAPSED_GAP_S,
    COLLAPSED_TTFT_SHARE,
    HEADERS_HELD_SHARE,
    TAIL_ITL_MULTIPLE,
    TAIL_MIN_S,
    level_stream_shape,
)


def rec(ttfb=0.25, ttft=0.5, t_last=1.5, latency=1.5, gap=0.0625, itl=0.0625, **extra) -> dict:
    return {
        "status": "ok",
        "ttfb": ttfb,
        "ttft": ttft,
        "t_last_token": t_last,
        "latency": latency,
        "chunk_gap_p50": gap,
        "itl": itl,
        **extra,
    }


def flags_of(records: list[dict]) -> list[str]:
    return level_stream_shape(records).flags


def test_the_summary_gives_the_medians_in_milliseconds_and_the_counts():
    records = [
        rec(ttfb=0.25, ttft=0.5, t_last=1.5, latency=2.0, gap=0.0625, itl=0.125),
        rec(ttfb=0.125, ttft=0.375, t_last=1.25, latency=1.5, gap=0.03125, itl=0.0625),
        rec(ttfb=0.5, ttft=0.625, t_last=1.75, latency=2.5, gap=0.125, itl=0.25, resent=True),
    ]
    summary = level_stream_shape(records).summary
    assert summary == {
        "requests": 3,
        "chunk_gap_p50_ms": 62.5,
        "ttft_share_of_latency": 0.25,
        "ttft_minus_ttfb_ms": 250.0,
        "ttft_minus_ttfb_share": 0.5,
        "tail_ms": 500.0,
        "itl_ms": 125.0,
        "burst_chunks": None,
        "burst_of_chunks": None,
        "clock_adjusted": 0,
        "resent": 1,
    }


def test_figures_are_rounded_to_the_microsecond_and_shares_to_three_places():
    records = [rec(ttfb=0.1, ttft=0.1234567, t_last=0.2, latency=0.3, gap=0.0012346, itl=0.0)]
    summary = level_stream_shape(records).summary
    assert summary["chunk_gap_p50_ms"] == 1.235
    assert summary["ttft_minus_ttfb_ms"] == 23.457
    assert summary["ttft_share_of_latency"] == 0.412
    assert summary["itl_ms"] == 0.0


def test_failed_requests_and_requests_without_a_first_token_are_left_out():
    records = [rec(), rec(status="error"), rec(ttft=None), {"ttft": 0.1}]
    assert level_stream_shape(records).summary["requests"] == 1


def test_missing_figures_are_left_out_of_their_medians():
    records = [
        rec(ttfb=None, gap=None, itl=None, latency=None),
        rec(ttfb=0.25, ttft=0.5, latency=2.0, gap=0.0625, itl=0.125),
    ]
    summary = level_stream_shape(records).summary
    assert summary["ttft_minus_ttfb_ms"] == 250.0 and summary["chunk_gap_p50_ms"] == 62.5
    assert summary["ttft_share_of_latency"] == 0.25 and summary["itl_ms"] == 125.0
    assert summary["tail_ms"] == 500.0


def test_a_level_without_any_figure_has_no_medians_and_no_flags():
    records = [rec(ttfb=None, gap=None, itl=None, latency=None, t_last=None)]
    summary, flags, _ = level_stream_shape(records)
    assert (summary["chunk_gap_p50_ms"], summary["ttft_share_of_latency"]) == (None, None)
    assert (summary["ttft_minus_ttfb_ms"], summary["tail_ms"], summary["itl_ms"]) == (None,) * 3
    assert flags == []


def collapsed(gap: float, ttft: float) -> list[str]:
    return flags_of([rec(ttfb=0.0, ttft=ttft, t_last=1.0, latency=1.0, gap=gap, itl=0.0)])


def test_a_collapsed_stream_says_how_short_its_gaps_and_how_late_its_first_token():
    assert collapsed(0.0001, 0.96) == [
        "collapsed stream: tokens arrive in one burst (median gap 0.100 ms, first token at 96 % "
        "of latency): arrived in one burst from the server (no intermediary identified, "
        "client check ok): TTFT and ITL measure its bursty delivery, not steady decode steps"
    ]


def test_a_median_gap_at_the_collapse_threshold_is_not_collapsed():
    assert collapsed(COLLAPSED_GAP_S, 0.96) == []


def test_a_first_token_at_the_collapse_share_is_not_collapsed():
    assert collapsed(0.0001, COLLAPSED_TTFT_SHARE) == []


def test_held_back_headers_say_by_how_little_they_preceded_the_first_token():
    flags = flags_of([rec(ttfb=0.4375, ttft=0.5)])
    assert flags == [
        "headers held back until the first token (TTFT − TTFB median 62.500 ms, 12 % of TTFT), "
        "by the server or something in front of it: TTFB is not a separate measurement here"
    ]


def test_headers_exactly_the_threshold_share_of_ttft_before_the_first_token_are_not_held_back():
    assert HEADERS_HELD_SHARE == (1.25 - 1.0) / 1.25  # the share is exact in binary
    assert flags_of([rec(ttfb=1.0, ttft=1.25)]) == []


def test_a_long_tail_says_its_length_and_how_many_token_times_it_is():
    flags = flags_of([rec(t_last=1.0, latency=1.5, itl=0.125)])
    assert flags == [
        "long tail after the last token (median 500.0 ms, 4x the ITL): latency includes the "
        "path's tail"
    ]


def test_a_long_tail_without_an_itl_says_only_its_length():
    flags = flags_of([rec(t_last=1.0, latency=2.0, itl=None)])
    assert flags == [
        "long tail after the last token (median 1000.0 ms): latency includes the path's tail"
    ]


def test_a_tail_of_exactly_the_threshold_in_token_times_is_not_long():
    assert flags_of([rec(t_last=1.0, latency=1.0 + TAIL_ITL_MULTIPLE * 0.25, itl=0.25)]) == []


def test_a_tail_of_the_minimum_is_not_long_even_with_no_token_time():
    assert flags_of([rec(ttfb=0.0, ttft=0.25, t_last=0.0, latency=TAIL_MIN_S, itl=0.0)]) == []


def adjusted(count: int, of: int) -> list[str]:
    return flags_of([rec(clock_adjusted=i < count) for i in range(of)])


def test_raised_stamps_say_in_how_many_requests():
    assert adjusted(2, 100) == [
        "receive stamps raised to stay monotonic in 2/100 requests: their times are bounded by "
        "the read, not the packet's arrival"
    ]


def test_raised_stamps_in_exactly_the_threshold_share_are_not_flagged():
    assert adjusted(round(CLOCK_ADJUSTED_SHARE * 100), 100) == []


def test_tiny_gaps_without_any_latency_are_not_called_collapsed():
    records = [rec(ttfb=0.0, ttft=0.5, latency=None, gap=0.0001)]
    assert not any(flag.startswith("collapsed") for flag in flags_of(records))
