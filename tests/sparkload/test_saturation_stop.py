"""The over-saturation stop, piece by piece (no Locust, no network): the shape stops a level's
arrivals and the sweep, a process withdraws what it will not send, the master records it."""

from __future__ import annotations

import time
from types import SimpleNamespace

import gevent

from sparkload.config import default
from sparkload.plugin.shipper import RecordShipper
from sparkload.records import Manifest
from sparkload.run.collector import RunCollector
from sparkload.run.results import ResultsWriter
from sparkload.shapes.arrival import ArrivalShape, Feed
from sparkload.shapes.progress import progress_line
from sparkload.stages import ARRIVAL, ARRIVALS_STOPPED, IDLE, LevelSignal
from tests.sparkload.test_shapes import FakeConductor

DURATION = 15.0


def answer(conductor: FakeConductor, index: int, latency: float, ttft: float = 0.5) -> None:
    conductor.tallies[index].add(
        {"phase": "measure", "status": "ok", "ttft": ttft, "latency": latency, "tps": 20.0}
    )


def kept_up_first_level(shape: ArrivalShape, conductor: FakeConductor) -> float:
    """Level 1: 1/s, answered 13 s after each arrival; returns the time level 2 began."""
    conductor.users = shape.users
    shape.tick(conductor, 0)
    for t in range(1, 30):
        conductor.outstanding = min(t, 13) if t <= DURATION else max(28 - t, 0)
        if t >= 13:
            answer(conductor, 0, latency=13.0)
        shape.tick(conductor, t)
        if conductor.ended:
            return float(t)
    raise AssertionError("the first level never ended")


def unanswered_second_level(shape: ArrivalShape, conductor: FakeConductor, start: float) -> None:
    """Level 2: 8/s that the server never answers, ticked until 30 s after its arrivals."""
    for step in range(1, 46):
        conductor.outstanding = 8 * min(step, DURATION)
        shape.tick(conductor, start + step)


def sweep(saturation_stop: bool = True) -> tuple[ArrivalShape, FakeConductor, float]:
    shape = ArrivalShape((1, 8, 16), 256, DURATION, 600, saturation_stop=saturation_stop)
    conductor = FakeConductor()
    start = kept_up_first_level(shape, conductor)
    unanswered_second_level(shape, conductor, start)
    return shape, conductor, start


def test_a_sweep_stops_the_arrivals_of_an_over_saturated_level():
    shape, conductor, _ = sweep()
    stopped = [stage for stage in conductor.stages if stage.kind == ARRIVALS_STOPPED]
    assert [(stage.index, stage.arrival_rate) for stage in stopped] == [(1, 8)]
    assert shape.planned == 2


def test_an_over_saturated_level_ends_with_what_was_seen_and_no_later_rate_runs():
    shape, conductor, start = sweep()
    conductor.outstanding = 0
    shape.tick(conductor, start + 50)
    why, stops = conductor.saturation[1]
    assert why.startswith("backlog rose to 120 in 15 s of arrivals") and stops
    assert conductor.saturation[0] == (None, False)
    assert 2 not in conductor.tallies and conductor.stages[-1].kind == IDLE
    assert shape.tick(conductor, start + 51) is None


def test_without_the_stop_the_level_is_flagged_and_the_sweep_goes_on():
    shape, conductor, start = sweep(saturation_stop=False)
    assert not [stage for stage in conductor.stages if stage.kind == ARRIVALS_STOPPED]
    conductor.outstanding = 0
    shape.tick(conductor, start + 50)
    why, stops = conductor.saturation[1]
    assert why is not None and not stops
    assert conductor.tallies[2].arrival_rate == 16
    assert (conductor.stages[-1].kind, conductor.stages[-1].index) == (ARRIVAL, 2)


def test_a_stopped_sweep_draining_its_last_level_is_finishing_not_counting_down():
    shape, conductor, _ = sweep()
    collector = SimpleNamespace(
        tallies=conductor.tallies, started=time.monotonic() - 60, time_scale=1.0
    )
    opts = SimpleNamespace(plan=SimpleNamespace(level_count=3, repeat=1), level_count=3)
    line = progress_line(shape, collector, opts)  # type: ignore[arg-type]
    assert line.startswith("level 2/3") and line.endswith("· finishing")


def test_stopping_a_feed_counts_its_arrivals_never_issued_and_drops_the_waiting_ones():
    signal, issued = LevelSignal(), []
    due_now, later = [(0.0, None)] * 3, [(50.0, None), (60.0, None)]
    signal.run_schedule(Feed(signal, due_now + later, 1.0, lambda: issued.append(1)))
    gevent.sleep(0.05)  # the three due ones are issued and wait for a user
    assert signal.stop_arrivals() == (2, 3)
    assert len(issued) == 3 and signal.arrivals.empty()


class Runner:
    def __init__(self) -> None:
        self.sent: list[dict] = []

    def send_message(self, kind: str, data: dict) -> None:
        self.sent.append(data)


def test_a_process_withdraws_the_dropped_arrivals_and_ships_the_unsent_at_once():
    runner = Runner()
    shipper = RecordShipper(runner, "local")
    for _ in range(10):
        shipper.issue()
    shipper.withdraw(level_index=2, never_issued=5, dropped=3)
    assert runner.sent[-1]["issued"] == 7 and runner.sent[-1]["unsent"] == {"2": 8}


def collector(tmp_path, gauge_interval: float = 0.0) -> RunCollector:
    return RunCollector(
        lambda run: ResultsWriter(tmp_path, Manifest(label="x")), 1.0, None, gauge_interval
    )


def batch(node: str, issued: int, unsent: dict[str, int]) -> dict:
    return {"node": node, "issued": issued, "records": [], "unsent": unsent}


def test_the_master_records_the_saturation_the_unsent_and_where_the_sweep_stopped(tmp_path):
    master = collector(tmp_path)
    master.begin_level(0, 256, None, arrival_rate=8.0)
    master.take(batch("a", 100, {"0": 30}))
    master.take(batch("b", 90, {"0": 12}))
    master.end_level(0, "backlog rose", stops_sweep=True)
    level = master.manifest.levels[0]
    assert (level.saturation, level.unsent) == ("backlog rose", 42)
    assert master.manifest.saturated_at == 0


def test_a_closed_loop_level_is_flagged_from_the_servers_waiting_queue(tmp_path):
    master = collector(tmp_path, gauge_interval=5.0)
    master.begin_level(0, 64, 640)
    for i in range(40):
        sample = {"name": "vllm:num_requests_waiting", "labels": {}, "value": float(i)}
        master._note_queue({"time": 5.0 * i, "endpoint": "e", "samples": [sample]})
    master.end_level(0)
    assert master.manifest.levels[0].saturation == (
        "the server's waiting queue rose from 4 to 34 (quarter means) over 195 s"
    )
    assert master.manifest.saturated_at is None


def test_the_option_defaults_to_stopping_a_sweep_at_its_first_over_saturated_level():
    assert default("no_saturation_stop") is False
