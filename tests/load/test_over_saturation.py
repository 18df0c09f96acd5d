"""The over-saturation judge, on synthetic looks: a server that falls behind is named, with
what was seen; a healthy level (short, long, noisy, near its capacity) never is."""

from __future__ import annotations

import random

from sparkload.saturation import (
    LevelWatch,
    Look,
    QueueSample,
    judge_closed_loop,
    judge_open_loop,
)


def looks(backlog, ttft=lambda t: 0.4, until=120.0, step=1.0) -> list[Look]:
    """A look a ``step``, from 0 to ``until`` target seconds."""
    times = [i * step for i in range(int(until / step) + 1)]
    return [Look(t, round(backlog(t)), ttft(t)) for t in times]


def falling_behind(t: float) -> float:
    """8/s offered, answers from t = 10 s at the 1.5/s the server manages."""
    return 8 * t - 1.5 * max(t - 10, 0)


def answers_from_10_s(ttft):
    return lambda t: None if t < 10 else ttft(t)


def test_a_backlog_rising_through_a_long_level_with_ttft_is_over_saturated():
    seen = looks(falling_behind, ttft=answers_from_10_s(lambda t: 0.4 + t / 20))
    said = judge_open_loop(seen, rate=8, duration=120, latency_p50=10.0)
    assert said == (
        "backlog rose from 80 to 795 over the 110 s since the first answers (8/s offered) while "
        "TTFT p50 rose from 1.57 s to 5.72 s"
    )


def test_a_rising_backlog_is_judged_only_two_latencies_after_the_first_answers():
    seen = looks(falling_behind, ttft=answers_from_10_s(lambda t: 0.4 + t / 20), until=29)
    assert judge_open_loop(seen, rate=8, duration=120, latency_p50=10.0) is None


def test_a_rising_backlog_with_flat_ttft_is_not_enough():
    seen = looks(falling_behind, ttft=answers_from_10_s(lambda t: 0.4))
    assert judge_open_loop(seen, rate=8, duration=120, latency_p50=10.0) is None


def test_a_latency_stretched_by_the_backlog_is_measured_against_a_level_that_kept_up():
    seen = looks(falling_behind, ttft=answers_from_10_s(lambda t: 0.4 + t / 20), until=40)
    assert judge_open_loop(seen, 8, 120, latency_p50=60.0) is None
    assert judge_open_loop(seen, 8, 120, latency_p50=60.0, kept_up_latency=10.0) is not None


def test_a_healthy_long_level_at_its_littles_law_backlog_is_not_over_saturated():
    noise = random.Random(1)
    seen = looks(lambda t: min(t, 13) + noise.uniform(-3, 3), ttft=lambda t: 0.4 + noise.random())
    assert judge_open_loop(seen, rate=1, duration=120, latency_p50=13.0) is None


def test_a_level_near_capacity_with_a_wandering_backlog_is_not_over_saturated():
    # 1.4/s offered to a server of ~1.5/s: the queue wanders up to three times Little's figure
    noise = random.Random(7)
    level, seen = 13.0, []
    for i in range(121):
        level = max(level + noise.uniform(-2, 2.4), 0)
        seen.append(Look(float(i), round(level), 0.4 + level / 50))
    assert judge_open_loop(seen, rate=1.4, duration=120, latency_p50=13.0) is None


def test_a_short_healthy_level_ramping_then_answered_is_not_over_saturated():
    # 1/s for 15 s with 13 s latency: the backlog only ramps, then empties after the arrivals
    seen = looks(lambda t: t if t <= 13 else max(13 - (t - 15), 0), until=45)
    assert judge_open_loop(seen, 1, 15, latency_p50=13.0, kept_up_latency=13.0) is None


def test_a_short_level_still_unanswered_two_latencies_after_its_arrivals_is_over_saturated():
    seen = looks(lambda t: 8 * min(t, 15), until=41)
    said = judge_open_loop(seen, 8, 15, latency_p50=None, kept_up_latency=13.0)
    assert said == (
        "backlog rose to 120 in 15 s of arrivals, and 26 s after they stopped (2x the 13.0 s "
        "median latency) 120 were still unanswered"
    )


def test_the_not_draining_rule_waits_two_latencies_after_the_arrivals():
    seen = looks(lambda t: 8 * min(t, 15), until=40)
    assert judge_open_loop(seen, 8, 15, latency_p50=None, kept_up_latency=13.0) is None


def test_without_any_latency_known_nothing_is_judged():
    seen = looks(lambda t: 8 * min(t, 15), until=100)
    assert judge_open_loop(seen, 8, 15, latency_p50=None, kept_up_latency=None) is None


def test_a_handful_of_looks_is_too_few_to_judge_a_trend():
    seen = looks(falling_behind, ttft=lambda t: 0.4 + t, until=120, step=20)
    assert len(seen) < 8
    assert judge_open_loop(seen, rate=8, duration=120, latency_p50=1.0) is None


def queue(waiting, count=40) -> list[QueueSample]:
    return [QueueSample(float(i * 5), waiting(i)) for i in range(count)]


def test_a_waiting_queue_rising_through_a_closed_loop_level_is_flagged():
    said = judge_closed_loop(queue(lambda i: i))
    assert said == "the server's waiting queue rose from 4 to 34 (quarter means) over 195 s"


def test_a_steady_waiting_queue_is_not_flagged():
    noise = random.Random(3)
    assert judge_closed_loop(queue(lambda i: 24 + noise.uniform(-2, 2))) is None


def test_a_waiting_queue_emptying_as_the_level_ends_is_not_flagged():
    assert judge_closed_loop(queue(lambda i: min(i, 10) if i < 30 else 40 - i)) is None


def test_a_queue_of_few_samples_is_not_judged():
    assert judge_closed_loop(queue(lambda i: 10 * i, count=5)) is None


def test_the_watch_looks_once_an_interval_and_pools_the_ttfts_between():
    watch = LevelWatch(interval=1.0)
    assert watch.look(0.0, 3, [0.2])
    assert not watch.look(0.5, 4, [0.4, 0.6])
    assert watch.look(1.0, 5, [0.8])
    assert watch.looks == [Look(0.0, 3, 0.2), Look(1.0, 5, 0.6)]
