"""A level's stream shape tells when the figures measure an intermediary, not the model server."""

from __future__ import annotations

from sparkload.streamshape import level_stream_shape
from tests.servers import Script, measure_on


def rec(ttfb=0.05, ttft=0.1, gap=0.01, tokens=64, tail=0.0002, **extra) -> dict:
    t_last = ttft + gap * (tokens - 1)
    return {
        "status": "ok",
        "ttfb": ttfb,
        "ttft": ttft,
        "t_last_token": t_last,
        "latency": t_last + tail,
        "chunk_gap_p50": gap,
        "itl": gap,
        **extra,
    }


def flags_of(records: list[dict]) -> list[str]:
    return level_stream_shape(records)[1]


def test_a_healthy_stream_raises_no_flag():
    summary, flags = level_stream_shape([rec() for _ in range(10)])
    assert flags == []
    assert summary["requests"] == 10 and summary["chunk_gap_p50_ms"] == 10.0


def test_tokens_in_one_burst_at_the_end_are_a_collapsed_stream():
    flags = flags_of([rec(ttfb=0.3, ttft=0.3, gap=0.00001) for _ in range(10)])
    assert any(f.startswith("collapsed stream") and "intermediary's buffering" in f for f in flags)


def test_tiny_gaps_with_a_long_decode_are_not_called_collapsed():
    flags = flags_of([rec(ttft=0.01, gap=0.0001, tokens=2000) for _ in range(10)])
    assert not any(f.startswith("collapsed") for f in flags)


def test_headers_that_arrive_with_the_first_token_are_flagged_as_held_back():
    flags = flags_of([rec(ttfb=0.1, ttft=0.1001) for _ in range(10)])
    assert any("TTFB is not a separate measurement" in f for f in flags)


def test_a_late_end_after_the_last_token_is_a_long_tail():
    flags = flags_of([rec(tail=0.2) for _ in range(10)])
    assert any("latency includes the path's tail" in f for f in flags)


def test_a_short_tail_of_one_token_time_is_not_flagged():
    assert flags_of([rec(tail=0.01, gap=0.01) for _ in range(10)]) == []


def test_raised_clock_stamps_are_reported():
    summary, flags = level_stream_shape([rec(clock_adjusted=True), rec()])
    assert summary["clock_adjusted"] == 1
    assert any("monotonic" in f for f in flags)


def test_failed_requests_are_left_out():
    summary, flags = level_stream_shape([{"status": "error", "ttft": None}])
    assert (summary, flags) == ({"requests": 0}, [])


def level_records(script: Script, requests: int = 4) -> list[dict]:
    records, _ = measure_on(script, requests, max_tokens=32)
    return [r.to_dict() for r in records]


def test_a_level_behind_a_collapsing_proxy_is_flagged_and_a_normal_one_is_not():
    collapsed = flags_of(level_records(Script(tokens=32, hold=0.3, collapse=True)))
    normal = flags_of(level_records(Script(tokens=32, gap=0.003)))
    assert any(f.startswith("collapsed stream") for f in collapsed)
    assert any("TTFB is not a separate measurement" in f for f in collapsed)
    assert normal == []
