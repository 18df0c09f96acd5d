"""The collector's watchers (the live Prometheus metrics) see what it sees: the run's label and
variant, each level as it begins, every batch in simulated time, and the run's end."""

from __future__ import annotations

from collections.abc import Callable

from sparkload.records import Manifest
from sparkload.run.collector import RunCollector
from sparkload.run.livetable import LevelTally
from sparkload.run.results import ResultsWriter


class Watcher:
    def __init__(self) -> None:
        self.seen: list[tuple] = []
        self.in_flight: Callable[[], int] = lambda: -1

    def run_began(self, label: str, variant: str, in_flight: Callable[[], int]) -> None:
        self.seen.append(("run", label, variant))
        self.in_flight = in_flight

    def level_began(self, tally: LevelTally) -> None:
        self.seen.append(("level", tally.index, tally.concurrency))

    def took(self, records: list[dict]) -> None:
        self.seen.append(("records", [r["ttft"] for r in records]))

    def run_closed(self) -> None:
        self.seen.append(("closed",))


def collector(tmp_path, watcher: Watcher, time_scale: float = 1.0) -> RunCollector:
    manifest = Manifest(label="nvfp4-tp1", variant="nvfp4")
    return RunCollector(
        lambda run: ResultsWriter(tmp_path, manifest), time_scale, watchers=[watcher]
    )


def measured(ttft: float) -> dict:
    return {"level_index": 0, "level": 2, "phase": "measure", "status": "ok", "ttft": ttft}


def test_a_watcher_is_told_the_run_each_level_every_batch_and_the_end(tmp_path):
    watcher = Watcher()
    master = collector(tmp_path, watcher)
    master.begin_level(0, 2, 2)
    master.take({"node": "local", "issued": 2, "records": [measured(0.1), measured(0.2)]})
    master.close("complete")
    assert watcher.seen == [
        ("run", "nvfp4-tp1", "nvfp4"),
        ("level", 0, 2),
        ("records", [0.1, 0.2]),
        ("closed",),
    ]


def test_a_watcher_gets_the_records_in_simulated_time_as_the_live_table_does(tmp_path):
    watcher = Watcher()
    master = collector(tmp_path, watcher, time_scale=10.0)
    master.begin_level(0, 2, 1)
    master.take({"node": "local", "issued": 1, "records": [measured(0.03)]})
    assert watcher.seen[-1] == ("records", [0.3])
    assert master.tallies[0].ttft.mean() == 0.3


def test_a_watcher_reads_the_requests_in_flight_from_the_collector(tmp_path):
    watcher = Watcher()
    master = collector(tmp_path, watcher)
    master.begin_level(0, 2, 2)
    master.take({"node": "local", "issued": 5, "records": [measured(0.1)]})
    assert watcher.in_flight() == 4
