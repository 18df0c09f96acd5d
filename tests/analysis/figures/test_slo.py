"""Service levels: bound syntax, goodput, interpolated capacity and Little's law."""

from __future__ import annotations

import pytest

from analysis.cli import main
from analysis.errors import InputError
from analysis.figures import slo
from analysis.figures.metrics import Settings, summarize
from analysis.reading.load import load
from tests.analysis_synthetic import closed_loop_level, make_record, write_run

SLO = "ttft_p90_ms<=1000,tps_p10>=15"


def test_bounds_are_parsed_into_summary_units():
    ttft, tps, latency = slo.parse("ttft_p90_s<=1, tps_p10>=15,latency_p99<12.5")
    assert (ttft.field, ttft.quantile, ttft.op, ttft.threshold) == ("ttft", 0.9, "<=", 1000.0)
    assert (tps.field, tps.quantile, tps.op, tps.threshold) == ("tps", 0.1, ">=", 15.0)
    assert (latency.name, latency.threshold) == ("latency_p99_s", 12.5)


@pytest.mark.parametrize(
    "text", ["ttft<=1000", "ttft_p90_ms=<1000", "tps_p10_ms>=15", "gpu_p90<=1", ""]
)
def test_unreadable_bounds_are_input_errors(text):
    with pytest.raises(InputError):
        slo.parse(text)


def _ladder_run(tmp_path):
    """C=1, 2, 4, identical requests per level.

    TTFT 200/600/1400 ms, TPS 30/25/10, latency 4/6/10 s.
    """
    records = []
    for index, (c, ttft, tps, latency) in enumerate(
        [(1, 0.2, 30, 4.0), (2, 0.6, 25, 6.0), (4, 1.4, 10, 10.0)]
    ):
        records += closed_loop_level(
            c, index, 1000.0 + 1000 * index, ttft=ttft, itl=0.04, tps=tps, latency=latency
        )
    return write_run(tmp_path / "results", "x", records)


def _levels(run, bounds):
    dataset = load([run])
    settings = Settings()
    return slo.evaluate(dataset.records, summarize(dataset, settings), bounds, settings)


def test_a_level_meets_the_slo_when_every_statistic_holds(tmp_path):
    levels = _levels(_ladder_run(tmp_path), slo.parse(SLO))
    assert list(levels["meets_slo"]) == [True, True, False]
    assert list(levels["ttft_p90_ms<=1000"]) == pytest.approx([200, 600, 1400])


def test_capacity_is_interpolated_to_the_earliest_crossing_and_users_follow_littles_law(tmp_path):
    bounds = slo.parse(SLO)
    cap = slo.capacity(_levels(_ladder_run(tmp_path), bounds), bounds, think_time_s=10.0)
    # TTFT crosses 1000 ms at C = 2 + (1000 − 600) / (1400 − 600) × 2 = 3.0;
    # TPS crosses 15 later (3.33).
    assert cap.concurrency == pytest.approx(3.0)
    assert "interpolated" in cap.how
    assert cap.latency_s == pytest.approx(8.0)  # mean latency interpolated between 6 s and 10 s
    assert cap.users == pytest.approx(3.0 / 8.0 * (8.0 + 10.0))  # N = X (R + Z), X = C / R


def test_capacity_when_every_level_or_no_level_meets_the_slo(tmp_path):
    run = _ladder_run(tmp_path)
    loose = slo.parse("ttft_p90_ms<=5000")
    cap = slo.capacity(_levels(run, loose), loose, think_time_s=0.0)
    assert (cap.concurrency, cap.users) == (4.0, pytest.approx(4.0))  # Z = 0: N = C
    assert cap.how.startswith("at least")
    strict = slo.parse("ttft_p90_ms<=100")
    assert slo.capacity(_levels(run, strict), strict, 10.0).concurrency is None


def test_goodput_counts_requests_meeting_every_threshold_with_failures_in_the_denominator(tmp_path):
    records = [
        make_record(
            1,
            0,
            ttft=1.5 if i < 2 else 0.2,
            itl=0.04,
            tps=20,
            latency=6.0,
            start_time=1000.0 + 6 * i,
        )
        for i in range(10)
    ]
    records.append(
        make_record(
            1,
            0,
            ttft=None,
            itl=None,
            tps=None,
            latency=None,
            start_time=1003.0,
            status="error",
            error_kind="timeout",
        )
    )
    level = _levels(write_run(tmp_path / "r", "x", records), slo.parse(SLO)).iloc[0]
    assert level["good"] == 8
    assert level["goodput_pct"] == pytest.approx(8 / 11 * 100)
    assert level["goodput_rps"] == pytest.approx(8 / 60.0)


def test_report_states_capacity_and_the_littles_law_formula(tmp_path):
    out = tmp_path / "out"
    assert (
        main(
            [
                str(_ladder_run(tmp_path)),
                "--out",
                str(out),
                "--slo",
                SLO,
                "--think-time",
                "10",
                "--no-charts",
                "--quiet",
            ]
        )
        == 0
    )
    report = (out / "report.md").read_text()
    assert (
        "highest concurrency meeting the SLO **C = 3.0** "
        "(interpolated linearly between C=2 (meets) and C=4 (fails))" in report
    )
    assert "N = X · (R + Z)" in report and "= **7 users**" in report
