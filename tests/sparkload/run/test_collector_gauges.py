"""Mid-level samples of the server's /metrics are paced in the target's time: a simulator that
runs S times faster than real time is sampled S times as often, so a level gets as many samples
whatever the time scale."""

from __future__ import annotations

import gevent

from sparkload.records import Manifest
from sparkload.run.collector import RunCollector
from sparkload.run.results import ResultsWriter


class Scraper:
    """Counts the mid-level samples the collector asks for."""

    active = True

    def __init__(self) -> None:
        self.during = 0

    def take(self, level_index, concurrency, when, names=None) -> list[dict]:
        self.during += when == "during"
        return []


def samples_in(tmp_path, time_scale: float, real_seconds: float) -> int:
    scraper = Scraper()
    master = RunCollector(
        lambda run: ResultsWriter(tmp_path, Manifest(label="x")), time_scale, scraper, 5.0
    )
    master.begin_level(0, 2, None)
    gevent.sleep(real_seconds)
    master.end_level(0)
    return scraper.during


def test_an_interval_of_5_s_at_time_scale_50_samples_every_tenth_of_a_real_second(tmp_path):
    # 0.55 real seconds are 27.5 s of the simulator's time: five samples (four on a busy
    # machine whose sleeps overrun), not none
    assert samples_in(tmp_path, time_scale=50.0, real_seconds=0.55) in (4, 5)


def test_at_time_scale_1_the_interval_is_real_seconds(tmp_path):
    assert samples_in(tmp_path, time_scale=1.0, real_seconds=0.55) == 0
