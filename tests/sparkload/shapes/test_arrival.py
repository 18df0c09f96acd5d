"""Open-loop schedules: the arrival processes' statistics, the deal over processes, the trace's
timing, and the feed's due times in the target's time (pure functions and one short greenlet)."""

from __future__ import annotations

import itertools
import random
import statistics

import pytest
from locust.argument_parser import LocustArgumentParser

from sparkload.config import ARRIVAL_PROCESSES, CONSTANT, GAMMA, POISSON
from sparkload.inputs.prompts import PromptOrder
from sparkload.plugin.options import register
from sparkload.run.context import RunContext
from sparkload.run.session import UserSession
from sparkload.shapes.arrival import (
    Feed,
    gaps,
    my_share,
    offsets,
    rate_schedule,
    schedule_summary,
    trace_schedule,
)
from sparkload.stages import ARRIVAL, Arrival, LevelSignal, Stage

GAPS = 20_000


def sample(process: str, rate: float = 50.0, burstiness: float = 1.0) -> list[float]:
    return list(itertools.islice(gaps(process, rate, burstiness, random.Random(7)), GAPS))


def cv(values: list[float]) -> float:
    return statistics.pstdev(values) / statistics.fmean(values)


@pytest.mark.parametrize("process", ARRIVAL_PROCESSES)
def test_every_process_has_the_asked_mean_gap(process):
    assert statistics.fmean(sample(process, rate=50.0, burstiness=0.25)) == pytest.approx(
        1 / 50.0, rel=0.05
    )


def test_poisson_gaps_vary_as_much_as_they_are_long():
    assert cv(sample(POISSON)) == pytest.approx(1.0, abs=0.03)


def test_constant_gaps_do_not_vary():
    assert cv(sample(CONSTANT)) == 0.0


@pytest.mark.parametrize(("burstiness", "expected"), [(0.25, 2.0), (1.0, 1.0), (4.0, 0.5)])
def test_gamma_gaps_have_a_coefficient_of_variation_of_one_over_root_b(burstiness, expected):
    assert cv(sample(GAMMA, burstiness=burstiness)) == pytest.approx(expected, rel=0.05)


def test_offsets_are_the_running_sums_that_fall_inside_the_duration():
    assert list(offsets([1.0, 2.0, 3.0, 4.0], duration=6.0)) == [1.0, 3.0]
    assert list(offsets([1.0, 2.0, 3.0], duration=6.5)) == [1.0, 3.0, 6.0]


def test_a_rate_schedule_is_the_same_for_the_same_seed_on_every_process():
    first = list(rate_schedule(GAMMA, 20.0, 0.5, 30.0, "0:arrivals:0"))
    assert first == list(rate_schedule(GAMMA, 20.0, 0.5, 30.0, "0:arrivals:0"))
    assert first != list(rate_schedule(GAMMA, 20.0, 0.5, 30.0, "0:arrivals:1"))
    assert [index for _, index in first] == list(range(len(first)))  # each one's place in it
    assert first[-1][0] < 30.0


def test_processes_share_a_schedule_disjointly_and_together_send_all_of_it():
    shares = {"w-a": 3, "w-b": 2, "w-c": 3}
    items = list(range(1000))
    parts = {node: list(my_share(items, shares, node)) for node in shares}
    assert sorted(itertools.chain(*parts.values())) == items
    assert {node: len(part) for node, part in parts.items()} == {"w-a": 375, "w-b": 250, "w-c": 375}


def test_a_process_without_users_gets_no_arrivals():
    assert list(my_share(range(10), {"w-a": 4, "w-b": 0}, "w-b")) == []
    assert list(my_share(range(10), {"w-a": 4, "w-b": 0}, "w-a")) == list(range(10))


def test_a_split_gamma_schedule_keeps_its_burstiness():
    schedule = [t for t, _ in rate_schedule(GAMMA, 50.0, 0.25, 400.0, "s")]
    union = sorted(
        t
        for node in ("a", "b")
        for t, _ in my_share(((t, None) for t in schedule), {"a": 1, "b": 1}, node)
    )
    assert union == schedule
    assert cv([b - a for a, b in itertools.pairwise(union)]) == pytest.approx(2.0, rel=0.05)


def test_a_trace_is_sent_at_its_timestamps_over_the_speedup_naming_its_lines():
    assert list(trace_schedule([0.0, 1.0, 3.0], speedup=2.0)) == [(0.0, 0), (0.5, 1), (1.5, 2)]


def test_the_feed_turns_target_seconds_into_real_ones_by_the_time_scale():
    signal, issued = LevelSignal(), []
    schedule = [(0.01, 4), (0.03, 5), (0.06, None)]
    Feed(signal, schedule, time_scale=10.0, on_arrival=lambda: issued.append(1)).join(5)
    arrivals = [signal.arrivals.get_nowait() for _ in schedule]
    real = [0.0, 0.002, 0.005]  # 0.01, 0.03 and 0.06 target seconds at 10x, from the first
    assert [a.due - arrivals[0].due for a in arrivals] == pytest.approx(real, abs=1e-9)
    assert [a.due_wall - arrivals[0].due_wall for a in arrivals] == pytest.approx(real, abs=1e-6)
    assert [a.line for a in arrivals] == [4, 5, None] and len(issued) == 3


def test_the_feed_files_each_arrival_under_the_level_it_was_started_for():
    signal, level = LevelSignal(), Stage(ARRIVAL, 3, 8)
    Feed(signal, [(0.0, None)], 1.0, lambda: None, level).join(5)
    assert signal.arrivals.get_nowait().stage == level


def test_an_arrival_that_came_after_a_level_change_is_measured_at_its_own_level():
    """A user waits up to a second for an arrival; the level may change meanwhile, and the
    arrival then belongs to the new level, not to the one the user saw when it began to wait."""
    parser = LocustArgumentParser()
    register(parser)
    context = RunContext.from_options(parser.parse_args([]), "http://127.0.0.1:9")
    session = UserSession(
        context=context,
        ordinal=0,
        endpoint=context.endpoints[0],
        node_id="local",
        worker_label="local",
        prompt_order=PromptOrder(1, 0),
        shipper=None,  # type: ignore[arg-type]  # nothing is sent here
        next_request_id=lambda: "r",
    )
    signal, next_level = LevelSignal(), Stage(ARRIVAL, 1, 4)
    signal.update(Stage(ARRIVAL, 0, 4))
    signal.arrivals.put(Arrival(0.0, 0.0, None, next_level))
    assignment = session.next_assignment(signal)
    assert assignment is not None and assignment.stage == next_level
    session.close()


def test_a_schedule_summary_counts_the_whole_schedule_and_its_burstiness():
    gamma = schedule_summary(rate_schedule(GAMMA, 50.0, 0.25, 400.0, "seed"))
    constant = schedule_summary(rate_schedule(CONSTANT, 50.0, 1.0, 40.0, "seed"))
    assert 19_000 <= gamma.arrivals <= 21_000
    assert gamma.gap_cv == pytest.approx(2.0, rel=0.1)
    assert constant.arrivals in (1999, 2000) and constant.gap_cv == pytest.approx(0, abs=1e-6)


def test_a_schedule_of_one_arrival_has_no_burstiness():
    assert schedule_summary([(0.5, None)]).to_dict() == {"arrivals": 1, "gap_cv": None}
