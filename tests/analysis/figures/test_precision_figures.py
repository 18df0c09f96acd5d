"""The report's precision per level and target: computed from the records with the load side's
own rule, in the metric's unit and simulated time, only for runs that set targets."""

from __future__ import annotations

import pytest

from analysis.figures import precision
from analysis.reading.load import load
from sparkload.records import LevelEntry, PrecisionEntry, parse_target, reach
from tests.analysis_synthetic import closed_loop_level, write_run

TTFTS = [0.1 + 0.01 * i for i in range(40)]  # seconds, on the client's clock


def precision_run(tmp_path, time_scale: float = 1.0, targets: bool = True):
    records = closed_loop_level(4, 0, 1000.0, ttft=0.1, itl=0.01, tps=50.0, latency=1.0)
    for record, ttft in zip(records, TTFTS, strict=True):
        record["ttft"] = ttft
    level = LevelEntry(0, 4, 40, "2026-01-01T00:00:00Z", received=40)
    if targets:
        level.precision = [PrecisionEntry("ttft_p90:5%", 40)]
        level.capped = True
    write_run(
        tmp_path,
        "run",
        records,
        time_scale=time_scale,
        manifest_fields={"levels": [level.to_dict()]},
    )
    return load([tmp_path])


def test_a_levels_precision_is_the_stop_rules_on_the_same_values(tmp_path):
    (row,) = precision.per_level(precision_run(tmp_path)).to_dict("records")
    reached = reach(parse_target("ttft_p90:5%"), sorted(TTFTS))
    assert row["value"] == pytest.approx(1000 * reached.value)
    assert (row["low"], row["high"]) == pytest.approx((1000 * reached.low, 1000 * reached.high))
    assert row["half_width_pct"] == pytest.approx(100 * reached.half_width)
    assert (row["unit"], row["requests"], row["met"], row["capped"]) == ("ms", 40, False, True)


def test_the_time_scale_moves_the_value_not_the_half_width(tmp_path):
    plain = precision.per_level(precision_run(tmp_path / "a")).iloc[0]
    scaled = precision.per_level(precision_run(tmp_path / "b", time_scale=10.0)).iloc[0]
    assert scaled["value"] == pytest.approx(10 * plain["value"])
    assert scaled["half_width_pct"] == pytest.approx(plain["half_width_pct"])


def test_a_run_without_targets_adds_nothing_to_summary_json(tmp_path):
    assert precision.json_tables(precision_run(tmp_path, targets=False)) == {}
