"""The live table under --target-precision: each target's reached half-width, the requests
still to go by the estimate, and "capped" once a level stopped at the cap."""

from __future__ import annotations

import pytest

from sparkload.records import parse_target
from sparkload.run.livetable import LevelTally, format_table


def aimed(*targets: str, ttfts: list[float], **fields: float) -> LevelTally:
    tally = LevelTally(0, 4, expected=None)
    tally.aim(tuple(parse_target(t) for t in targets))
    for ttft in ttfts:
        tally.add({"phase": "measure", "status": "ok", "ttft": ttft, "latency": 1.0, **fields})
    return tally


def test_a_row_shows_each_targets_half_width_in_percent_and_the_requests_to_go():
    row = aimed("ttft_p90:10%", ttfts=[float(v) for v in range(1, 30)]).row()
    assert row["reached_ttft_p90"] == pytest.approx(100 * 3 / 26.2)
    assert row["precision_left"] == 10


def test_before_an_interval_the_half_width_is_blank_and_the_count_to_go_is_what_gives_one():
    row = aimed("ttft_p90:10%", ttfts=[0.5] * 10).row()
    assert row["reached_ttft_p90"] is None and row["precision_left"] == 19


def test_a_capped_level_says_so_in_place_of_the_count_to_go():
    tally = aimed("ttft_p90:1%", ttfts=[float(v) for v in range(1, 30)])
    tally.capped = True
    assert tally.row()["precision_left"] == "capped"


def test_the_table_titles_the_precision_columns_by_target():
    table = format_table([aimed("ttft_p90:10%", ttfts=[0.5] * 30).row()])
    assert "ttft_p90 ±%" in table.splitlines()[0] and "to go" in table.splitlines()[0]


def test_a_table_without_targets_has_no_precision_columns():
    tally = LevelTally(0, 4, expected=1)
    tally.add({"phase": "measure", "status": "ok", "ttft": 0.5, "latency": 1.0})
    assert "±%" not in format_table([tally.row()])


def test_a_target_on_a_metric_the_table_does_not_show_is_still_tracked():
    tally = aimed("server_ttft_p50:50%", ttfts=[0.5] * 5, server_ttft=0.2)
    (reached,) = tally.precision()
    assert (reached.requests, reached.value, reached.met) == (5, 0.2, True)
