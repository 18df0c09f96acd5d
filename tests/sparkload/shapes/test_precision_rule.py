"""--target-precision on the ladder (and the capacity search's probes), driven tick by tick
against a fake conductor whose users answer one round at a time with seeded TTFTs: a level goes
on past its count until its target is met, in bounded steps, and stops at the cap marked
capped."""

from __future__ import annotations

import random

from sparkload.capacity import CONCURRENCY
from sparkload.records import ProbeVerdict, parse_target
from sparkload.shapes.ladder import LadderShape
from sparkload.shapes.precision import PrecisionRule
from sparkload.shapes.search import SearchShape
from sparkload.stages import MEASURE
from tests.sparkload.shapes.test_search import prober
from tests.sparkload.test_shapes import FakeConductor


class Users(FakeConductor):
    """Each tick of a measured level, every user answers one request (a round), while the
    level's count has any left; TTFTs from ``ttft`` (seeded)."""

    def __init__(self, ttft) -> None:
        super().__init__()
        self.ttft = ttft

    def answer_round(self, index: int) -> None:
        tally = self.tallies[index]
        assert tally.expected is not None
        for _ in range(min(tally.concurrency, tally.expected - tally.measured)):
            tally.add({"phase": "measure", "status": "ok", "ttft": self.ttft(), "latency": 1.0})


def run_ladder(shape: LadderShape, users: Users) -> None:
    """Tick ``shape`` to its end (bounded: a shape that never ends fails the test)."""
    for now in range(5000):
        tick = shape.tick(users, float(now))
        if tick is None:
            return
        users.users = tick[0]
        index = shape.index
        if shape.stage == "warmup" and users.tallies[index].warmups == 0:
            users.deliver(index, "warmup", 1)
        elif shape.stage == MEASURE:
            users.answer_round(index)
    raise AssertionError("the ladder did not end")


def spread(seed: int = 0):
    """TTFTs around 0.5 s with a long tail (lognormal, sigma 0.5)."""
    rng = random.Random(seed)
    return lambda: rng.lognormvariate(-0.7, 0.5)


def ladder(target: str, levels=(4,), most: int = 2000, least: int | None = None) -> LadderShape:
    rule = PrecisionRule((parse_target(target),), least, most, requests_per_user=10)
    return LadderShape(levels, 10, precision=rule)


def quotas(users: Users) -> list[int]:
    return [stage.quota for stage in users.stages if stage.kind == MEASURE]


def test_a_spread_out_level_goes_on_past_the_ladders_count_until_its_p90_is_within_5_percent():
    users = Users(spread())
    run_ladder(ladder("ttft_p90:5%"), users)
    (tally,) = users.tallies.values()
    (reached,) = tally.precision()
    assert tally.measured > 40 and reached.met and not tally.capped


def test_each_extension_adds_at_least_a_round_and_at_most_half_the_quota_so_far():
    users = Users(spread())
    run_ladder(ladder("ttft_p90:5%"), users)
    steps = list(zip(quotas(users), quotas(users)[1:], strict=False))
    assert len(steps) >= 2
    assert all(1 <= after - before <= max(before // 2, 1) for before, after in steps)


def test_a_level_whose_target_cannot_be_met_stops_at_the_cap_marked_capped():
    users = Users(spread())
    run_ladder(ladder("ttft_p90:0.5%", most=100), users)
    (tally,) = users.tallies.values()
    assert tally.capped and not tally.precision()[0].met
    assert tally.measured == 100 and quotas(users)[-1] == 25


def test_a_level_met_at_its_first_count_sends_only_that():
    users = Users(lambda: 0.5)  # no spread: the interval is a point once there is one
    run_ladder(ladder("ttft_p90:5%", levels=(4, 8)), users)
    assert [t.measured for t in users.tallies.values()] == [40, 80]
    assert quotas(users) == [10, 10]


def test_a_level_too_small_for_an_interval_grows_until_it_has_one():
    """C=1 at 10: a p90's interval needs 29 values; half again at most each time."""
    users = Users(lambda: 0.5)
    run_ladder(ladder("ttft_p90:5%", levels=(1,)), users)
    assert quotas(users) == [10, 15, 22, 30] and users.tallies[0].precision()[0].met


def test_min_requests_per_level_sets_the_first_count_in_whole_rounds():
    users = Users(lambda: 0.5)
    run_ladder(ladder("ttft_p90:5%", levels=(8,), least=30), users)
    assert quotas(users)[0] == 4  # 32 requests: 30 in rounds of 8


def test_a_level_whose_one_round_passes_the_cap_sends_one_round():
    rule = PrecisionRule((parse_target("ttft_p90:5%"),), None, 10, requests_per_user=10)
    assert rule.first_quota(16, 1) == 1


class JudgedUsers(Users):
    """Users whose levels meet the search's bounds up to C=2."""

    def judge_level(self, index, bounds):
        meets = self.tallies[index].concurrency <= 2
        return [ProbeVerdict(index, meets, {}, []) for _ in bounds]

    def record_capacity(self, results):
        self.results = results


def test_each_capacity_probe_grows_as_a_ladder_level_does():
    users = JudgedUsers(spread())
    rule = PrecisionRule((parse_target("ttft_p90:5%"),), None, 2000, requests_per_user=10)
    run_ladder(SearchShape(prober(CONCURRENCY, 1, 8), 10, precision=rule), users)
    probes = list(users.tallies.values())
    assert [t.concurrency for t in probes] == [1, 2, 4, 3]
    assert all(t.precision()[0].met for t in probes)
    assert any(t.measured > 10 * t.concurrency for t in probes)
