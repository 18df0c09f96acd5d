"""Load profiles, driven tick by tick against a fake conductor (no Locust, no network)."""

import gevent

from sparkload.records import NO_MARKS
from sparkload.run.livetable import LevelTally
from sparkload.shapes import SerialTicks
from sparkload.shapes.arrival import SCHEDULE_GRACE, ArrivalShape
from sparkload.shapes.ladder import LadderShape
from sparkload.shapes.steps import StepsShape
from sparkload.stages import ARRIVAL, IDLE, MEASURE, RUN, SPAWN, WARMUP


class FakeConductor:
    distributed = False

    def __init__(self):
        self.stages = []
        self.users = 0
        self.tallies = {}
        self.ended = []
        self.outstanding = 0
        self.saturation = {}
        self.sustain = {}  # level index -> its --sustain seconds (None: a level of the plan)

    def broadcast(self, stage):
        self.stages.append(stage)

    def users_ready(self, count):
        return self.users == count

    def busy_node(self):
        return "local"

    def begin_level(
        self, index, concurrency, expected, arrival_rate=None, sessions=None, marks=NO_MARKS
    ):
        self.tallies[index] = LevelTally(index, concurrency, expected, arrival_rate, 1.0, sessions)
        self.sustain[index] = marks.sustain
        return self.tallies[index]

    def end_level(self, index, saturation=None, stops_sweep=False):
        self.ended.append(index)
        self.saturation[index] = (saturation, stops_sweep)

    def in_flight(self):
        return self.outstanding

    def user_shares(self):
        return {"local": self.users}

    def deliver(self, index, phase, count):
        for _ in range(count):
            self.tallies[index].add(
                {
                    "phase": phase,
                    "status": "ok",
                    "ttft": 0.1,
                    "itl": 0.01,
                    "tps": 10.0,
                    "latency": 1.0,
                }
            )


def test_ladder_spawns_then_warms_up_then_measures_each_level():
    ladder, conductor = LadderShape((1, 2), requests_per_user=3), FakeConductor()
    assert ladder.tick(conductor, 0) == (1, 100.0)
    assert conductor.stages[-1].kind == SPAWN
    conductor.users = 1
    ladder.tick(conductor, 1)
    assert conductor.stages[-1].kind == WARMUP and conductor.stages[-1].warmup_node == "local"
    conductor.deliver(0, "warmup", 1)
    ladder.tick(conductor, 2)
    assert conductor.stages[-1].kind == MEASURE
    assert conductor.tallies[0].expected == 3


def test_ladder_moves_on_only_when_every_measured_record_of_the_level_is_in():
    ladder, conductor = LadderShape((1, 2), requests_per_user=3), FakeConductor()
    ladder.tick(conductor, 0)
    conductor.users = 1
    ladder.tick(conductor, 1)
    conductor.deliver(0, "warmup", 1)
    conductor.deliver(0, "measure", 2)
    assert ladder.tick(conductor, 2) == (1, 100.0)
    conductor.deliver(0, "measure", 1)
    assert ladder.tick(conductor, 3) == (2, 100.0)
    assert conductor.ended == [0]
    assert conductor.tallies[1].expected == 6


def test_a_ladder_keeping_its_users_holds_the_most_so_far_through_a_lower_level():
    ladder, conductor = LadderShape((4, 2), 1, keep_users=True), FakeConductor()
    measuring_level(ladder, conductor, users=4)
    conductor.deliver(0, "measure", 4)
    assert ladder.tick(conductor, 3) == (4, 100.0)  # level C=2: 4 users, 2 of them idle
    warmup = conductor.stages[-1]  # the 4 users it has are ready: no spawning
    assert (warmup.kind, warmup.index, warmup.concurrency) == (WARMUP, 1, 2)
    assert conductor.tallies[1].expected == 2


def turn(index: int, turns: int) -> dict:
    """A measured record of a conversation's turn ``index`` of ``turns``."""
    return {"phase": "measure", "status": "ok", "turn": index, "turns": turns, "latency": 1.0}


def measuring_level(ladder: LadderShape, conductor: FakeConductor, users: int) -> LevelTally:
    ladder.tick(conductor, 0)
    conductor.users = users
    ladder.tick(conductor, 1)
    conductor.deliver(0, "warmup", 1)
    ladder.tick(conductor, 2)
    return conductor.tallies[0]


def test_a_conversation_ladder_knows_a_levels_count_from_the_fixed_turns():
    ladder = LadderShape((2,), requests_per_user=3, requests_per_session=4)
    assert measuring_level(ladder, FakeConductor(), users=2).expected == 2 * 3 * 4


def test_with_drawn_turns_a_level_ends_when_every_conversation_has_all_its_turns_in():
    ladder, conductor = LadderShape((2, 4), 2, requests_per_session=None), FakeConductor()
    tally = measuring_level(ladder, conductor, users=2)
    assert tally.expected is None
    for record in (turn(1, 3), turn(1, 1), turn(2, 3), turn(3, 3), turn(1, 2), turn(2, 2)):
        tally.add(record)
    assert tally.expected is None and ladder.tick(conductor, 3) == (2, 100.0)  # 3 of 4 begun
    tally.add(turn(1, 2))
    assert tally.expected == 3 + 1 + 2 + 2 and not tally.complete
    tally.add(turn(2, 2))
    assert tally.complete and ladder.tick(conductor, 4) == (4, 100.0)
    assert conductor.ended == [0]


def test_records_of_a_conversation_may_arrive_in_any_order():
    tally = LevelTally(0, 1, None, sessions=2)
    for record in (turn(2, 2), turn(1, 1), turn(1, 2)):
        tally.add(record)
    assert (tally.expected, tally.complete) == (3, True)


def test_ladder_returns_none_after_the_last_level():
    ladder, conductor = LadderShape((1,), requests_per_user=1), FakeConductor()
    ladder.tick(conductor, 0)
    conductor.users = 1
    ladder.tick(conductor, 1)
    conductor.deliver(0, "warmup", 1)
    conductor.deliver(0, "measure", 1)
    assert ladder.tick(conductor, 2) is None
    assert ladder.finished
    assert conductor.stages[-1].kind == IDLE


def test_steps_hold_each_level_for_its_duration_then_drain():
    steps, conductor = StepsShape((1, 4), step_duration=10, request_timeout=60), FakeConductor()
    assert steps.tick(conductor, 0) == (1, 100.0)
    assert not conductor.stages  # users first
    conductor.users = 1
    steps.tick(conductor, 1)
    assert conductor.stages[-1].kind == RUN
    assert steps.tick(conductor, 10) == (1, 100.0)
    assert steps.tick(conductor, 11) == (4, 100.0)
    conductor.users = 4
    steps.tick(conductor, 12)
    assert conductor.stages[-1].index == 1
    conductor.outstanding = 2
    assert steps.tick(conductor, 22) == (4, 100.0)  # step over, requests still in flight
    assert conductor.stages[-1].kind == IDLE
    conductor.outstanding = 0
    assert steps.tick(conductor, 24) is None


def test_arrival_starts_the_schedule_once_the_pool_is_up_and_ends_after_its_duration():
    arrival, conductor = (
        ArrivalShape(rates=(5,), users=8, duration=30, request_timeout=60),
        FakeConductor(),
    )
    assert arrival.tick(conductor, 0) == (8, 100.0)
    assert not conductor.stages
    conductor.users = 8
    arrival.tick(conductor, 1)
    stage = conductor.stages[-1]
    assert (stage.kind, stage.arrival_rate, stage.arrival_duration) == (ARRIVAL, 5, 30)
    assert stage.shares == {"local": 8}
    # arrivals over (after a grace for the last ones in flight to be issued): the queue is served
    assert arrival.tick(conductor, 31 + SCHEDULE_GRACE) == (8, 100.0)
    assert arrival.tick(conductor, 32 + SCHEDULE_GRACE) is None
    assert conductor.ended == [0]


def test_a_level_of_target_time_lasts_its_duration_over_the_time_scale():
    arrival, conductor = (
        ArrivalShape(rates=(5,), users=2, duration=30, request_timeout=60, time_scale=10),
        FakeConductor(),
    )
    conductor.users = 2
    arrival.tick(conductor, 0)
    assert conductor.stages[-1].arrival_duration == 30  # the stage says target seconds
    arrival.tick(conductor, 2.9 + SCHEDULE_GRACE)
    assert arrival.drain.started is None  # 3 real seconds are 30 simulated ones
    arrival.tick(conductor, 3 + SCHEDULE_GRACE)
    assert arrival.drain.started is not None


def test_a_rate_sweep_runs_one_level_per_rate_each_after_the_last_is_served():
    arrival, conductor = (
        ArrivalShape(rates=(2, 8), users=4, duration=10, request_timeout=60),
        FakeConductor(),
    )
    conductor.users = 4
    arrival.tick(conductor, 0)
    assert conductor.tallies[0].arrival_rate == 2
    conductor.outstanding = 3
    over = 10 + SCHEDULE_GRACE
    arrival.tick(conductor, over)  # rate 2 is over, three requests still queued or in flight
    arrival.tick(conductor, over + 1)
    assert conductor.ended == [] and 1 not in conductor.tallies
    conductor.outstanding = 0
    arrival.tick(conductor, over + 2)
    assert conductor.ended == [0] and conductor.tallies[1].arrival_rate == 8
    assert (conductor.stages[-1].index, conductor.stages[-1].arrival_rate) == (1, 8)
    second = over + 2  # the rate 8 level started here (dated after the first level's end)
    arrival.tick(conductor, second + over + 0.5)
    assert arrival.tick(conductor, second + over + 1) is None and conductor.ended == [0, 1]


class SlowEndingConductor(FakeConductor):
    """A level's end writes files and reads /metrics: other greenlets run meanwhile."""

    def end_level(self, index, saturation=None, stops_sweep=False):
        gevent.sleep(0.01)
        super().end_level(index, saturation, stops_sweep)


def finished_first_level(conductor) -> LadderShape:
    ladder = LadderShape((1, 2), requests_per_user=3)
    ladder.tick(conductor, 0)
    conductor.users = 1
    ladder.tick(conductor, 1)
    conductor.deliver(0, "warmup", 1)
    ladder.tick(conductor, 2)
    conductor.deliver(0, "measure", 3)
    return ladder


def test_a_tick_arriving_while_a_level_ends_does_not_end_it_twice():
    conductor = SlowEndingConductor()
    ticks = SerialTicks(finished_first_level(conductor))
    first = gevent.spawn(ticks.tick, conductor, 3)
    second = gevent.spawn(ticks.tick, conductor, 3, False)  # records arrived meanwhile
    gevent.joinall([first, second])
    assert conductor.ended == [0]
    assert ticks.shape.index == 1  # level 2 comes next, not skipped


def test_a_step_that_follows_a_slow_level_end_is_dated_after_it():
    steps, conductor = (
        StepsShape(levels=(1, 2), step_duration=10, request_timeout=60),
        (SlowEndingConductor()),
    )
    conductor.users = 1
    steps.tick(conductor, 0.0)
    conductor.users = 2
    steps.tick(conductor, 10.0)  # the first step ends (its end takes 10 ms), the second begins
    assert steps.index == 1 and steps.step_started is not None
    assert steps.step_started >= 10.0 + 0.01
