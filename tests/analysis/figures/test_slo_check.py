"""--check: every bound at every level, with the report's definitions; exit 0, 4 or 2."""

from __future__ import annotations

import pytest

from analysis.cli import main
from analysis.figures import slo
from analysis.figures.metrics import Settings, summarize
from analysis.reading.load import load
from sparkload.records import EXIT_CHECK_FAILED
from tests.analysis_synthetic import (
    arrival_manifest,
    closed_loop_level,
    make_record,
    open_loop_level,
    write_run,
)


@pytest.fixture
def ladder(tmp_path):
    """C=1, 2, 4: TTFT 200 / 600 / 1400 ms; C=2 has one timeout beside its 20 requests."""
    records = []
    for index, (c, ttft) in enumerate([(1, 0.2), (2, 0.6), (4, 1.4)]):
        records += closed_loop_level(
            c, index, 1000.0 + 1000 * index, ttft=ttft, itl=0.04, tps=20, latency=6.0
        )
    records.append(
        make_record(
            2,
            1,
            ttft=None,
            itl=None,
            tps=None,
            latency=None,
            start_time=2001.0,
            status="error",
            error_kind="timeout",
        )
    )
    return write_run(tmp_path / "results", "fp8-tp1", records)


def _check(capsys, *argv) -> tuple[int, list[str], str]:
    code = main([*map(str, argv), "--quiet"])
    captured = capsys.readouterr()
    return code, captured.out.splitlines(), captured.err


def test_the_exit_code_of_a_breach_is_4():
    assert EXIT_CHECK_FAILED == 4


def test_a_breach_exits_4_and_names_label_level_figure_and_bound(ladder, capsys):
    code, lines, _ = _check(capsys, ladder, "--check", "ttft_p90_ms<=1000,failure_ratio<=0.01")
    assert code == EXIT_CHECK_FAILED
    assert lines == [
        "check failed: fp8-tp1 C=2: failure_ratio = 0.047619 > 0.01",  # 1 / (20 + 1)
        "check failed: fp8-tp1 C=4: ttft_p90_ms = 1400 > 1000",
    ]


def test_bounds_that_hold_at_every_level_exit_0_with_one_line(ladder, capsys):
    code, lines, _ = _check(
        capsys, ladder, "--check", "ttft_p90_ms<=1500,tps_p10>=15,failure_ratio<=0.05"
    )
    assert (code, lines) == (0, ["check passed: 3 bounds hold at every level (3 levels)"])


def test_a_bound_in_other_units_is_checked_and_shown_in_the_figures_unit(ladder, capsys):
    code, lines, _ = _check(capsys, ladder, "--check", "ttft_p90_s<1.4")
    assert code == EXIT_CHECK_FAILED
    assert lines == ["check failed: fp8-tp1 C=4: ttft_p90_ms = 1400 >= 1400"]


def test_the_check_writes_no_report(ladder, capsys):
    _check(capsys, ladder, "--check", "ttft_p90_ms<=1500")
    assert not (ladder / "report").exists()


@pytest.mark.parametrize("spec", ["ttft<=1000", "failure_ratio<=", "gpu_p90<=1", ""])
def test_an_unreadable_spec_is_one_line_and_exit_2(ladder, capsys, spec):
    code, lines, err = _check(capsys, ladder, "--check", spec)
    assert (code, lines) == (2, [])
    assert err.count("\n") == 1 and "error: --check: " in err


def test_check_options_validates_the_spec_without_reading_a_run(capsys):
    assert main(["--check-options", "--check", "ttft_p90_ms<=1000"]) == 0
    assert main(["--check-options", "--check", "ttft<=1000"]) == 2


def test_an_open_loop_run_is_checked_per_offered_rate(tmp_path, capsys):
    records = open_loop_level(64, 0, 1000.0, interval=0.5, count=10, latency=1.0, ttft=0.3)
    records += open_loop_level(64, 1, 1100.0, interval=0.125, count=40, latency=2.0, ttft=1.2)
    run = write_run(tmp_path / "r", "arr", records, manifest_fields=arrival_manifest([2, 8], 64))
    code, lines, _ = _check(capsys, run, "--check", "ttft_p90_ms<=1000")
    assert code == EXIT_CHECK_FAILED
    assert lines == ["check failed: arr offered 8 req/s: ttft_p90_ms = 1200 > 1000"]


def test_failure_ratio_is_failures_over_measured_requests(ladder):
    dataset, settings = load([ladder]), Settings(bootstrap_resamples=0)
    bounds = slo.parse("failure_ratio<=0.01")
    levels = slo.evaluate(dataset.records, summarize(dataset, settings), bounds, settings)
    assert list(levels["failure_ratio<=0.01"]) == pytest.approx([0.0, 1 / 21, 0.0])


def flagged_run(root, kinds_by_level: dict[int, list[str]]):
    """C=1, 2 (TTFT 200 ms); each level's stream check raised ``kinds_by_level[index]``."""
    records = []
    for index, c in enumerate((1, 2)):
        records += closed_loop_level(
            c, index, 1000.0 + 1000 * index, ttft=0.2, itl=0.04, tps=20, latency=2.0
        )
    levels = [
        {
            "index": index,
            "concurrency": c,
            "expected": 10 * c,
            "started_at": "2026-01-01T00:00:00Z",
            "stream_flags": [f"{kind.replace('_', ' ')}: what was seen" for kind in kinds],
            "stream_flag_kinds": kinds,
        }
        for index, (c, kinds) in enumerate(zip((1, 2), kinds_by_level.values(), strict=True))
    ]
    return write_run(root, "proxied", records, manifest_fields={"levels": levels})


def test_a_partly_collapsed_level_fails_any_check_naming_level_and_flag(tmp_path, capsys):
    run = flagged_run(tmp_path / "r", {0: [], 1: ["partial_burst", "headers_held"]})
    code, lines, _ = _check(capsys, run, "--check", "ttft_p90_ms<=100000")
    assert code == EXIT_CHECK_FAILED
    assert lines == ["check failed: proxied C=2: stream check: partial burst: what was seen"]


def test_a_collapsed_level_fails_the_check_too(tmp_path, capsys):
    run = flagged_run(tmp_path / "r", {0: ["collapsed"], 1: []})
    code, lines, _ = _check(capsys, run, "--check", "failure_ratio<=0.5")
    assert (code, lines) == (EXIT_CHECK_FAILED, [lines[0]])
    assert lines[0].startswith("check failed: proxied C=1: stream check: collapsed")


def test_held_headers_alone_do_not_fail_a_check(tmp_path, capsys):
    run = flagged_run(tmp_path / "r", {0: ["headers_held"], 1: ["headers_held", "long_tail"]})
    code, lines, _ = _check(capsys, run, "--check", "ttft_p90_ms<=100000")
    assert (code, lines) == (0, ["check passed: 1 bound holds at every level (2 levels)"])


def test_stream_flags_bound_counts_the_kinds_each_level_raised(tmp_path, capsys):
    run = flagged_run(tmp_path / "r", {0: [], 1: ["headers_held", "long_tail"]})
    code, lines, _ = _check(capsys, run, "--check", "stream_flags<=0")
    assert code == EXIT_CHECK_FAILED
    assert lines == ["check failed: proxied C=2: stream_flags = 2 > 0"]


def test_stream_flags_bound_holds_on_a_level_without_flags(tmp_path, capsys):
    run = flagged_run(tmp_path / "r", {0: [], 1: []})
    code, lines, _ = _check(capsys, run, "--check", "stream_flags<=0")
    assert (code, lines) == (0, ["check passed: 1 bound holds at every level (2 levels)"])


def test_empty_replies_pass_as_answered_unless_empty_ratio_bounds_them(tmp_path, capsys):
    records = [
        make_record(1, 0, ttft=0.2, itl=0.04, tps=20, latency=6.0, start_time=1000.0 + i)
        for i in range(3)
    ]
    records.append(  # the model ended at once: ok, no token
        make_record(
            1, 0, ttft=None, itl=None, tps=1.0, latency=0.1, start_time=1004.0, output_tokens=1
        )
    )
    run = write_run(tmp_path / "results", "eos", records)
    assert _check(capsys, run, "--check", "failure_ratio<=0,ttft_p90_ms<=1000")[0] == 0
    code, lines, _ = _check(capsys, run, "--check", "empty_ratio<=0.1")
    assert code == EXIT_CHECK_FAILED
    assert lines == ["check failed: eos C=1: empty_ratio = 0.25 > 0.1"]


def test_a_label_run_in_both_loops_judges_each_level_by_its_own_loops_requests(tmp_path):
    """A closed-loop C=4 and an open-loop level with a pool of 4 under one label: the records
    of both name level 4, and neither loop's statistic takes the other's requests."""
    closed = closed_loop_level(4, 0, 1000.0, ttft=0.2, itl=0.04, tps=20, latency=6.0)
    write_run(tmp_path / "r", "x", closed, stamp="20260101T000000Z")
    arrivals = open_loop_level(4, 0, 3000.0, interval=0.5, count=10, latency=1.0, ttft=1.2)
    manifest = arrival_manifest([2], 4)
    write_run(tmp_path / "r", "x", arrivals, stamp="20260102T000000Z", manifest_fields=manifest)
    dataset, settings = load([tmp_path / "r"]), Settings()
    levels = slo.evaluate(
        dataset.records, summarize(dataset, settings), slo.parse("ttft_p90_ms<=1000"), settings
    )
    by_loop = levels.set_index("loop")
    assert by_loop.loc["closed", "ttft_p90_ms<=1000"] == pytest.approx(200.0)
    assert by_loop.loc["closed", "n"] == 40
    assert by_loop.loc["open", "ttft_p90_ms<=1000"] == pytest.approx(1200.0)
    assert by_loop.loc["open", "n"] == 10
