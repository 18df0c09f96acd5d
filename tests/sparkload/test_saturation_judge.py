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


def ever(seen: list[Look], *args, **kwargs) -> str | None:
    """The first verdict as a level judged at every look would meet it (None: never)."""
    for end in range(1, len(seen) + 1):
        if said := judge_open_loop(seen[:end], *args, **kwargs):
            return said
    return None


def falling_behind(t: float) -> float:
    """8/s offered, answers from t = 10 s at the 1.5/s the server manages."""
    return 8 * t - 1.5 * max(t - 10, 0)


def answers_from_10_s(ttft):
    return lambda t: None if t < 10 else ttft(t)


def test_a_backlog_rising_through_a_long_level_with_ttft_is_over_saturated():
    seen = looks(falling_behind, ttft=answers_from_10_s(lambda t: 0.4 + t / 20))
    said = judge_open_loop(seen, rate=8, duration=120, latency_p90=10.0)
    assert said == (
        "backlog rose from 145 to 795 over 100 s (about 1.5/s of 8/s answered) while TTFT p50 "
        "rose from 2.00 s to 5.78 s"
    )


def test_a_rising_backlog_is_judged_only_two_latencies_after_the_first_answers():
    seen = looks(falling_behind, ttft=answers_from_10_s(lambda t: 0.4 + t / 20), until=29)
    assert judge_open_loop(seen, rate=8, duration=120, latency_p90=10.0) is None


def test_a_rising_backlog_with_flat_ttft_is_not_enough():
    seen = looks(falling_behind, ttft=answers_from_10_s(lambda t: 0.4))
    assert judge_open_loop(seen, rate=8, duration=120, latency_p90=10.0) is None


def test_a_latency_stretched_by_the_backlog_is_measured_against_a_level_that_kept_up():
    seen = looks(falling_behind, ttft=answers_from_10_s(lambda t: 0.4 + t / 20), until=40)
    assert judge_open_loop(seen, 8, 120, latency_p90=60.0) is None
    assert judge_open_loop(seen, 8, 120, latency_p90=60.0, kept_up_latency=10.0) is not None


def test_a_healthy_long_level_at_its_littles_law_backlog_is_not_over_saturated():
    noise = random.Random(1)
    seen = looks(
        lambda t: max(min(t, 13) + noise.uniform(-3, 3), 0),
        ttft=lambda t: None if t < 13 else 0.4 + noise.random(),
    )
    assert ever(seen, rate=1, duration=120, latency_p90=13.0) is None


def test_a_backlog_creeping_up_by_a_few_percent_of_the_arrivals_is_not_over_saturated():
    # 1.4/s offered to a server just short of it: the queue wanders up 0.2 a second
    noise = random.Random(7)
    level, seen = 13.0, []
    for i in range(121):
        level = max(level + noise.uniform(-2, 2.4), 0)
        seen.append(Look(float(i), round(level), 0.4 + level / 50))
    assert ever(seen, rate=1.4, duration=120, latency_p90=13.0) is None


def test_a_short_healthy_level_ramping_then_answered_is_not_over_saturated():
    # 1/s for 15 s with 13 s latency: the backlog only ramps, then empties after the arrivals
    seen = looks(lambda t: t if t <= 13 else max(13 - (t - 15), 0), until=45)
    assert ever(seen, 1, 15, latency_p90=13.0, kept_up_latency=13.0) is None


def test_a_short_level_still_unanswered_two_latencies_after_its_arrivals_is_over_saturated():
    seen = looks(lambda t: 8 * min(t, 15), until=41)
    said = judge_open_loop(seen, 8, 15, latency_p90=None, kept_up_latency=13.0)
    assert said == (
        "backlog rose to 120 in 15 s of arrivals, and 26 s after they stopped (2x the 13.0 s "
        "p90 latency) 120 were still unanswered"
    )


def test_the_not_draining_rule_waits_two_latencies_after_the_arrivals():
    seen = looks(lambda t: 8 * min(t, 15), until=40)
    assert judge_open_loop(seen, 8, 15, latency_p90=None, kept_up_latency=13.0) is None


def test_a_healthy_level_of_mixed_lengths_is_answered_within_two_p90_latencies():
    # 10/s, seven in ten answered in 2 s, three in ten in 20 s: p50 2 s, p90 20 s
    def backlog(t: float) -> float:
        arrived = 10 * min(t, 15)
        short = 0.7 * 10 * min(max(t - 2, 0), 15)
        long = 0.3 * 10 * min(max(t - 20, 0), 15)
        return arrived - short - long

    seen = looks(backlog, ttft=lambda t: None if t < 2 else 0.4, until=50)
    assert ever(seen, 10, 15, latency_p90=20.0) is None
    assert ever(seen, 10, 15, latency_p90=2.0) is not None  # what a median would say


def test_without_any_latency_known_nothing_is_judged():
    seen = looks(lambda t: 8 * min(t, 15), until=100)
    assert judge_open_loop(seen, 8, 15, latency_p90=None, kept_up_latency=None) is None


def test_a_handful_of_looks_is_too_few_to_judge_a_trend():
    seen = looks(falling_behind, ttft=lambda t: 0.4 + t, until=120, step=20)
    assert len(seen) < 8
    assert judge_open_loop(seen, rate=8, duration=120, latency_p90=1.0) is None


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
