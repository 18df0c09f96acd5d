"""The capacity search as a load shape, driven tick by tick against a fake conductor whose
verdicts come from a threshold (no Locust, no analysis process, no network)."""

from __future__ import annotations

import time
from types import SimpleNamespace

import pytest

from sparkload.capacity import (
    CONCURRENCY,
    RATE,
    RATE_TOLERANCE,
    BoundedSearch,
    CapacityResult,
    CapacitySearch,
    SharedSearches,
)
from sparkload.config import default, from_namespace
from sparkload.errors import ConfigError
from sparkload.records import ProbeVerdict
from sparkload.run.livetable import LevelTally
from sparkload.run.report_process import judge_level
from sparkload.run.setup import check_search
from sparkload.shapes.progress import progress_line
from sparkload.shapes.search import Prober, RateSearchShape, SearchShape
from tests.analysis_synthetic import closed_loop_level, write_run
from tests.sparkload.shapes.test_progress import collector, options, tally
from tests.sparkload.test_shapes import FakeConductor


class JudgingConductor(FakeConductor):
    """A level meets a set of bounds while its C (or rate) is at most that set's capacity
    (``capacity``: every set's; ``capacities``: bounds -> its own); None: it cannot be judged."""

    def __init__(self, capacity: int | None, capacities: dict[str, int] | None = None) -> None:
        super().__init__()
        self.capacity = capacity
        self.capacities = capacities or {}
        self.results: list[CapacityResult] = []
        self.judged: list[tuple[int, list[str]]] = []

    def judge_level(self, index, bounds):
        if self.capacity is None:
            return None
        self.judged.append((index, list(bounds)))
        level = self.tallies[index]
        c = level.concurrency if level.arrival_rate is None else level.arrival_rate
        verdicts = []
        for spec in bounds:
            capacity = self.capacities.get(spec, self.capacity)
            meets = c <= capacity
            breaches = [] if meets else [f"ttft_p90_ms = {100 * c} > {100 * capacity}"]
            verdicts.append(ProbeVerdict(index, meets, {spec: 100.0 * c}, breaches))
        return verdicts

    def record_capacity(self, results):
        (result,) = results  # one search: --find-capacity's
        self.results.append(result)


class TierConductor(JudgingConductor):
    """Keeps every tier's results as they come."""

    def record_capacity(self, results):
        self.results = list(results)


def run_search(shape: SearchShape, conductor: JudgingConductor) -> list[int]:
    """Tick ``shape`` to its end, serving every level; the concurrency of each level run."""
    run = []
    for now in range(1000):  # bounded: a shape that never ends fails the test
        tick = shape.tick(conductor, float(now))
        if tick is None:
            return run
        index = shape.index
        if index in conductor.tallies and conductor.tallies[index].concurrency not in run[-1:]:
            run.append(conductor.tallies[index].concurrency)
        conductor.users = tick[0]
        level = conductor.tallies.get(index)
        if level is not None and shape.stage == "warmup" and level.warmups == 0:
            conductor.deliver(index, "warmup", 1)
        elif level is not None and shape.stage == "measure":
            conductor.deliver(index, "measure", level.expected - level.measured)
    raise AssertionError(f"the shape did not end: {run}")


def prober(over: str, start: float, maximum: float, **tiers: str) -> Prober:
    """One search per tier (name -> bounds), or --find-capacity's on ttft_p90_ms<=800."""
    named = tiers or {"": "ttft_p90_ms<=800"}
    return Prober(
        SharedSearches(
            [
                BoundedSearch(name, bounds, CapacitySearch(over, start, maximum))
                for name, bounds in named.items()
            ]
        )
    )


def search_shape(start: int = 1, maximum: float = 256, **tiers: str) -> SearchShape:
    return SearchShape(prober(CONCURRENCY, start, maximum, **tiers), 3)


def test_each_probe_is_a_level_of_exactly_c_times_requests_per_user():
    shape, conductor = search_shape(), JudgingConductor(capacity=11)
    run_search(shape, conductor)
    assert all(t.expected == 3 * t.concurrency for t in conductor.tallies.values())


def test_the_shape_runs_the_searchs_probes_in_order_and_ends():
    shape, conductor = search_shape(), JudgingConductor(capacity=11)
    assert run_search(shape, conductor) == [1, 2, 4, 8, 16, 12, 10, 11]
    assert shape.finished and conductor.ended == list(range(8))


def test_the_answer_and_every_probe_reach_the_conductor_complete_at_the_end():
    shape, conductor = search_shape(), JudgingConductor(capacity=11)
    run_search(shape, conductor)
    final = conductor.results[-1]
    assert (final.complete, final.capacity) == (True, 11)
    assert final.limit is not None and final.limit.value == 12
    assert [r.complete for r in conductor.results[:-1]] == [False] * 7


def test_a_level_that_cannot_be_judged_ends_the_search_incomplete():
    shape, conductor = search_shape(), JudgingConductor(capacity=None)
    assert run_search(shape, conductor) == [1]
    assert [r.complete for r in conductor.results] == [False]


def test_the_progress_line_names_the_probe_and_how_many_may_follow_and_no_time_left():
    shape = search_shape()  # 1, 2, ..., 256 all meeting, then 7 bisecting 128..256: 15 after 1
    line = progress_line(shape, collector(tally(0, 1, 3, 1, 2.0)), options())
    assert line == "capacity probe 1 (C=1), at most 15 more: 1/3 requests · elapsed 1:40"


def test_the_progress_line_after_the_last_probe_is_finishing_not_a_time():
    shape, conductor = search_shape(maximum=2), JudgingConductor(capacity=8)
    run_search(shape, conductor)
    shape.finished = False  # as the line sees it while the last requests drain
    line = progress_line(shape, collector(tally(1, 2, 6, 6, 2.0)), options())
    assert line.endswith("· finishing")


def test_a_rate_search_runs_one_open_loop_level_per_probe_until_the_bracket_closes():
    shape = RateSearchShape(prober(RATE, 1.0, 64.0), users=8, duration=1.0, request_timeout=10.0)
    conductor = JudgingConductor(capacity=5)
    conductor.users = 8
    for now in range(200):  # bounded: every level ends a few ticks after its start
        if shape.tick(conductor, float(now)) is None:
            break
    rates = [conductor.tallies[i].arrival_rate for i in sorted(conductor.tallies)]
    assert rates[:4] == [1.0, 2.0, 4.0, 8.0]
    final = conductor.results[-1]
    assert final.complete and final.capacity is not None and final.limit is not None
    assert final.capacity <= 5 < final.limit.value <= final.capacity * (1 + RATE_TOLERANCE)


def test_the_progress_line_of_a_rate_search_names_the_probes_rate():
    shape = RateSearchShape(prober(RATE, 2.0, 64.0), users=8, duration=10.0, request_timeout=10.0)
    level = LevelTally(0, 8, None, arrival_rate=2.0)
    line = progress_line(shape, collector(level), options())
    assert line.startswith("capacity probe 1 (2/s), at most ")


def search_options(**given: object):
    values = {"find_capacity": "ttft_p90_ms<=800", **given}
    return from_namespace(SimpleNamespace(**values))


@pytest.mark.parametrize(
    ("given", "named"),
    [
        ({"step_duration": "30"}, "--step-duration"),
        ({"repeat": "2"}, "--repeat"),
        ({"check": "ttft_p90_ms<=1"}, "--check"),
        ({"ladder": "1,4"}, "--ladder"),
        ({"workload": "prefill", "ladder": "1,1,1"}, "--workload prefill$"),
    ],
)
def test_options_that_would_choose_or_judge_levels_are_refused_by_name(given, named):
    with pytest.raises(ConfigError, match=f"drop {named}"):
        check_search(search_options(**given))


def test_a_rate_search_takes_one_start_rate():
    with pytest.raises(ConfigError, match="give one rate"):
        check_search(search_options(arrival_rate="2,4"))


def test_a_start_rate_above_the_cap_is_refused():
    with pytest.raises(ConfigError, match="--arrival-rate 300 is above --capacity-max 256"):
        check_search(search_options(arrival_rate="300"))


def test_a_start_above_the_cap_is_refused():
    with pytest.raises(ConfigError, match="--capacity-start 32 is above --capacity-max 16"):
        check_search(search_options(capacity_start="32", capacity_max="16"))


def test_a_fractional_cap_of_users_is_refused():
    with pytest.raises(ConfigError, match="not a whole number"):
        check_search(search_options(capacity_max="12.5"))


def test_the_default_cap_is_256_users():
    assert default("capacity_max") == 256


def test_the_analysis_judges_a_level_in_a_child_process_and_its_refusal_is_a_value_error(
    tmp_path,
):
    records = closed_loop_level(1, 0, 1000.0, ttft=0.2, itl=0.04, tps=20, latency=2.0)
    levels = [{"index": 0, "concurrency": 1, "expected": 10, "started_at": ""}]
    run = write_run(tmp_path, "x", records, manifest_fields={"levels": levels})
    (verdict,) = judge_level(["ttft_p90_ms<=100"], str(run), 0)
    few = "ttft_p90_ms<=100: 10 requests are too few to bound a p90 (a 90 % interval needs 29)"
    assert verdict == ProbeVerdict(
        0,
        False,
        {"ttft_p90_ms<=100": 200.0},
        ["ttft_p90_ms = 200 > 100"],
        level="C=1",
        requests=10,
        intervals={},
        caveats=[few],
    )
    with pytest.raises(ValueError, match="has no level 3"):
        judge_level(["ttft_p90_ms<=100"], str(run), 3)


class SlowJudge(JudgingConductor):
    """Its verdicts take a tenth of a second, as the analysis's child process takes about one."""

    def judge_level(self, index, bounds):
        time.sleep(0.1)
        return super().judge_level(index, bounds)


def test_a_level_started_right_after_a_verdict_is_dated_after_the_verdict():
    shape, conductor = RateSearchShape(prober(RATE, 1.0, 64.0), 8, 1.0, 10.0), SlowJudge(5)
    conductor.users = 8
    shape.tick(conductor, 0.0)  # level 0 starts
    shape.tick(conductor, 2.0)  # its arrivals are over: the drain starts
    shape.tick(conductor, 2.5)  # served: it ends, is judged, and level 1 starts
    assert shape.index == 1 and shape.started is not None
    assert shape.started >= 2.5 + 0.1


class SustainConductor(JudgingConductor):
    """Keeps what --sustain's level was judged and recorded as."""

    def __init__(self, capacity: int | None) -> None:
        super().__init__(capacity)
        self.sustained: list[tuple[float | None, ProbeVerdict | None]] = []

    def record_sustain(self, value, verdict):
        self.sustained.append((value, verdict))


def sustained_search(capacity: int, sustain: float = 60.0) -> tuple[SearchShape, SustainConductor]:
    search = Prober(prober(CONCURRENCY, 1, 256).searches, sustain)
    return SearchShape(search, 3, time_scale=10.0), SustainConductor(capacity)


def run_sustained(shape: SearchShape, conductor: SustainConductor) -> list[int]:
    """``run_search``, then the sustain level: its users run, its clock passes, it drains."""
    run = []
    for now in range(1000):  # bounded, one real second a tick
        tick = shape.tick(conductor, float(now))
        if tick is None:
            return run
        conductor.users = tick[0]
        index = max(conductor.tallies) if conductor.tallies else None
        level = conductor.tallies.get(index) if index is not None else None
        if level is not None and level.concurrency not in run[-1:]:
            run.append(level.concurrency)
        if level is not None and shape.sustained is None:
            if shape.stage == "warmup" and level.warmups == 0:
                conductor.deliver(index, "warmup", 1)
            elif shape.stage == "measure":
                conductor.deliver(index, "measure", level.expected - level.measured)
    raise AssertionError(f"the shape did not end: {run}")


def test_after_the_search_the_found_c_is_held_as_one_more_level_marked_sustain():
    shape, conductor = sustained_search(capacity=11)
    assert run_sustained(shape, conductor) == [1, 2, 4, 8, 16, 12, 10, 11]
    held = max(conductor.tallies)
    assert held == 8 and conductor.tallies[held].concurrency == 11
    assert conductor.tallies[held].expected is None  # time-based
    assert conductor.sustain == {**dict.fromkeys(range(8)), 8: 60.0}


def test_the_sustain_level_lasts_its_target_time_divided_by_the_time_scale():
    shape, conductor = sustained_search(capacity=3)
    run_sustained(shape, conductor)
    held = shape.sustained
    assert held is not None and held.step_duration == 6.0  # 60 s of target time at 10x


def test_the_sustain_level_is_judged_under_the_searchs_bounds_once_and_recorded():
    shape, conductor = sustained_search(capacity=11)
    run_sustained(shape, conductor)
    assert conductor.judged[-1] == (8, ["ttft_p90_ms<=800"])
    ((value, verdict),) = conductor.sustained
    assert value == 11 and verdict is not None and verdict.meets
    assert shape.finished


def test_no_capacity_found_holds_nothing_and_says_so():
    shape, conductor = sustained_search(capacity=0)
    assert run_sustained(shape, conductor) == [1]
    assert conductor.sustained == [(None, None)]
    assert max(conductor.tallies) == 0


def test_an_open_loop_search_holds_its_found_rate_for_the_sustain_time():
    search = Prober(prober(RATE, 1.0, 4.0).searches, 30.0)
    shape = RateSearchShape(search, users=8, duration=1.0, request_timeout=10.0)
    conductor = SustainConductor(capacity=64)
    for now in range(2000):  # bounded
        tick = shape.tick(conductor, now * 0.5)
        if tick is None:
            break
        conductor.users = tick[0]
    held = max(conductor.tallies)
    assert conductor.tallies[held].arrival_rate == 4.0  # the cap: every probe met
    assert conductor.sustain[held] == 30.0 and shape.duration == 30.0
    assert conductor.sustained[-1][0] == 4.0


def test_the_progress_line_names_the_sustain_level_and_counts_down_its_clock():
    shape, conductor = sustained_search(capacity=2)
    for now in range(1000):  # bounded: until the sustain level's clock runs
        tick = shape.tick(conductor, float(now))
        assert tick is not None
        conductor.users = tick[0]
        index = max(conductor.tallies)
        level = conductor.tallies[index]
        if shape.sustained is not None and shape.sustained.step_started is not None:
            break
        if shape.sustained is None and shape.stage == "warmup" and level.warmups == 0:
            conductor.deliver(index, "warmup", 1)
        elif shape.sustained is None and shape.stage == "measure":
            conductor.deliver(index, "measure", level.expected - level.measured)
    line = progress_line(shape, collector(tally(index, 2, None, 0, 2.0)), options())
    assert line.startswith("sustain (C=2): 0 requests")
