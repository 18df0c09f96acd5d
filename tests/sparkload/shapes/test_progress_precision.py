"""The progress line under --target-precision: no "n/expected" and no time left, whose count is
not known ahead, but the least precise target and the requests it needs by the estimate."""

from __future__ import annotations

from sparkload.records import parse_target
from sparkload.run.livetable import LevelTally
from sparkload.shapes.ladder import LadderShape
from sparkload.shapes.precision import PrecisionRule
from sparkload.shapes.progress import progress_line
from tests.sparkload.shapes.test_progress import collector, options


def aimed_tally(ttfts: list[float]) -> LevelTally:
    level = LevelTally(0, 1, 10)
    level.aim((parse_target("ttft_p90:10%"),))
    for ttft in ttfts:
        level.add({"phase": "measure", "status": "ok", "ttft": ttft, "latency": 2.0})
    return level


def precise_ladder() -> LadderShape:
    rule = PrecisionRule((parse_target("ttft_p90:10%"),), None, 2000, requests_per_user=10)
    return LadderShape((1, 2), 10, precision=rule)


def test_the_line_says_the_precision_reached_and_the_requests_it_needs():
    line = progress_line(
        precise_ladder(), collector(aimed_tally([float(v) for v in range(1, 30)])), options()
    )
    assert line == (
        "level 1/2 (C=1): 29 requests, ttft_p90 ±11.5 % of ±10 %, about 10 more · elapsed 1:40"
    )


def test_before_an_interval_the_line_says_so():
    line = progress_line(precise_ladder(), collector(aimed_tally([0.5] * 4)), options())
    assert "4 requests, ttft_p90 no interval yet of ±10 %, about 25 more" in line
    assert "left" not in line


def test_a_level_whose_targets_are_met_says_so():
    line = progress_line(precise_ladder(), collector(aimed_tally([0.5] * 30)), options())
    assert "30 requests, precision met" in line
