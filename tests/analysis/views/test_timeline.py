"""Request timelines: one bar per request per level, bounded, in the HTML report."""

from __future__ import annotations

import pytest

from analysis.cli import main
from analysis.outputs.timeline_html import figure
from analysis.reading.load import load
from analysis.views.timeline import MAX_BARS, sample, timelines
from tests.analysis_synthetic import (
    arrival_manifest,
    closed_loop_level,
    make_record,
    open_loop_level,
    write_run,
)


def test_a_small_level_shows_every_request():
    assert list(sample(5, most=10)) == [0, 1, 2, 3, 4]


def test_a_large_level_shows_consecutive_requests_from_its_middle():
    assert list(sample(10, most=4)) == [3, 4, 5, 6]
    chosen = sample(10_000, most=400)
    assert (len(chosen), chosen[0], chosen[-1]) == (400, 4_800, 5_199)


def test_one_timeline_per_level_with_rows_in_send_order_from_the_first_send(tmp_path):
    records = closed_loop_level(2, 0, 1000.0, ttft=0.2, itl=0.02, tps=40, latency=3.0, per_user=3)
    records += closed_loop_level(4, 1, 1020.0, ttft=0.4, itl=0.03, tps=30, latency=4.2)
    shuffled = records[::-1]
    (low, high) = timelines(load([write_run(tmp_path / "r", "x", shuffled)]))
    assert (low.level, low.total, high.level, high.total) == ("C=2", 6, "C=4", 40)
    assert list(low.sent) == [0.0, 0.0, 3.0, 3.0, 6.0, 6.0]
    assert list(low.first_token) == pytest.approx(low.sent + 0.2)
    assert list(low.last_token) == pytest.approx(low.sent + 0.2 + 127 * 0.02)
    assert low.subtitle.startswith("all 6 requests")


def test_a_level_of_thousands_of_requests_shows_a_bounded_sample_and_says_so(tmp_path):
    records = closed_loop_level(50, 0, 1000.0, ttft=0.2, itl=0.02, tps=40, latency=3.0, per_user=30)
    (level,) = timelines(load([write_run(tmp_path / "r", "x", records)]))
    assert (level.shown, level.total, level.sampled) == (MAX_BARS, 1500, True)
    # 50 users, back to back every 3 s: requests 550..949 in send order are rounds 11..18
    assert level.subtitle.startswith(
        f"{MAX_BARS} of 1,500 requests shown: those sent from 33.0 s to 54.0 s, the middle"
    )


def test_an_open_loop_level_gets_its_timeline_named_by_its_offered_rate(tmp_path):
    records = open_loop_level(4, 0, 1000.0, interval=0.5, count=10, latency=1.0)
    run = write_run(tmp_path / "r", "open", records, manifest_fields=arrival_manifest([2.0], 4))
    (level,) = timelines(load([run]))
    assert (level.level, level.total) == ("offered 2 req/s", 10)
    assert level.key == "open_01_r2"


def test_a_failed_request_is_one_bar_from_its_send_to_its_end(tmp_path):
    records = [
        make_record(1, 0, ttft=0.2, itl=0.01, tps=50, latency=2.0, start_time=1000.0),
        make_record(
            1,
            0,
            ttft=None,
            itl=None,
            tps=None,
            latency=0.5,
            start_time=1002.0,
            status="error",
            error_kind="http_500",
            output_tokens=None,
        ),
    ]
    (level,) = timelines(load([write_run(tmp_path / "r", "x", records)]))
    waiting, decoding, failed = figure(level)["data"]
    assert (len(waiting["y"]), len(decoding["y"])) == (1, 1)
    assert (failed["y"], failed["base"], failed["x"]) == ([1], [2.0], [0.5])


def test_the_bars_run_from_send_to_first_token_and_on_to_the_last(tmp_path):
    records = closed_loop_level(1, 0, 1000.0, ttft=0.5, itl=0.01, tps=50, latency=2.0, per_user=2)
    (level,) = timelines(load([write_run(tmp_path / "r", "x", records)]))
    waiting, decoding = figure(level)["data"]
    assert waiting["base"] == [0.0, 2.0] and waiting["x"] == pytest.approx([0.5, 0.5])
    assert decoding["base"] == pytest.approx([0.5, 2.5])
    assert decoding["x"] == pytest.approx([1.27, 1.27])


def test_the_report_writes_a_page_per_level_and_links_it(tmp_path):
    records = closed_loop_level(1, 0, 1000.0, ttft=0.2, itl=0.02, tps=40, latency=3.0)
    records += closed_loop_level(2, 1, 1040.0, ttft=0.3, itl=0.02, tps=38, latency=3.1)
    run = write_run(tmp_path / "r", "x", records)
    out = tmp_path / "out"
    assert main([str(run), "--out", str(out), "--quiet"]) == 0
    pages = sorted(p.name for p in (out / "timelines").iterdir())
    assert pages == ["x_01_c1.html", "x_02_c2.html"]
    page = (out / "timelines" / "x_02_c2.html").read_text()
    assert 'src="../plotly.min.js"' in page and "first → last token (decoding)" in page
    assert "[C=2](timelines/x_02_c2.html)" in (out / "report.md").read_text()
    assert 'href="timelines/x_01_c1.html"' in (out / "index.html").read_text()
