"""--check-level: one level of a run judged as --check judges it, printed as JSON for the
capacity search."""

from __future__ import annotations

import json

import pytest

from analysis.cli import main
from tests.analysis.figures.test_slo_check import flagged_run
from tests.analysis_synthetic import (
    arrival_manifest,
    closed_loop_level,
    open_loop_level,
    write_run,
)


@pytest.fixture
def ladder(tmp_path):
    """C=1, 2, 4: TTFT 200 / 600 / 1400 ms, each level in the manifest."""
    records, levels = [], []
    for index, (c, ttft) in enumerate([(1, 0.2), (2, 0.6), (4, 1.4)]):
        records += closed_loop_level(
            c, index, 1000.0 + 1000 * index, ttft=ttft, itl=0.04, tps=20, latency=6.0
        )
        levels.append({"index": index, "concurrency": c, "expected": 10 * c, "started_at": ""})
    return write_run(tmp_path / "results", "fp8-tp1", records, manifest_fields={"levels": levels})


def _verdict(capsys, *argv) -> tuple[int, dict | None, str]:
    code = main([*map(str, argv), "--quiet"])
    captured = capsys.readouterr()
    return code, json.loads(captured.out) if captured.out.strip() else None, captured.err


def test_a_level_meeting_the_bounds_says_so_with_each_bounds_figure(ladder, capsys):
    code, verdict, _ = _verdict(capsys, ladder, "--check", "ttft_p90_ms<=1000", "--check-level", 1)
    assert code == 0
    assert verdict == {
        "level_index": 1,
        "level": "C=2",
        "meets": True,
        "figures": {"ttft_p90_ms<=1000": pytest.approx(600.0)},
        "breaches": [],
        "requests": 20,
        "intervals": {},
        "caveats": [
            "ttft_p90_ms<=1000: 20 requests are too few to bound a p90 (a 90 % interval needs 29)"
        ],
    }


def test_a_breaking_level_names_the_figure_as_check_does_and_still_exits_0(ladder, capsys):
    code, verdict, _ = _verdict(capsys, ladder, "--check", "ttft_p90_ms<=1000", "--check-level", 2)
    assert code == 0 and verdict is not None
    assert (verdict["meets"], verdict["breaches"]) == (False, ["ttft_p90_ms = 1400 > 1000"])


def test_only_the_asked_level_is_judged(ladder, capsys):
    """C=4 breaks the bound; level 0 (C=1) is judged alone and meets it."""
    _, verdict, _ = _verdict(capsys, ladder, "--check", "ttft_p90_ms<=1000", "--check-level", 0)
    assert verdict is not None and verdict["meets"] is True


def test_a_level_whose_streams_collapsed_breaks_whatever_the_bounds(tmp_path, capsys):
    run = flagged_run(tmp_path / "r", {0: [], 1: ["collapsed"]})
    _, verdict, _ = _verdict(capsys, run, "--check", "ttft_p90_ms<=100000", "--check-level", 1)
    assert verdict is not None and verdict["meets"] is False
    assert verdict["breaches"][0].startswith("stream check: collapsed")


def test_an_open_loop_level_judged_over_saturated_breaks_whatever_the_bounds(tmp_path, capsys):
    records = open_loop_level(64, 0, 1000.0, interval=0.5, count=10, latency=1.0, ttft=0.3)
    fields = arrival_manifest([2], 64)
    fields["levels"][0]["saturation"] = "in flight grew while TTFT rose"
    run = write_run(tmp_path / "r", "arr", records, manifest_fields=fields)
    _, verdict, _ = _verdict(capsys, run, "--check", "ttft_p90_ms<=1000", "--check-level", 0)
    assert verdict is not None and verdict["meets"] is False
    assert verdict["breaches"] == ["over-saturated: in flight grew while TTFT rose"]


def test_a_closed_loop_levels_saturation_flag_is_not_a_breach(ladder, capsys):
    manifest_path = ladder / "manifest.json"
    manifest = json.loads(manifest_path.read_text())
    manifest["levels"][2]["saturation"] = "the waiting queue rose throughout"
    manifest_path.write_text(json.dumps(manifest))
    _, verdict, _ = _verdict(capsys, ladder, "--check", "ttft_p90_ms<=5000", "--check-level", 2)
    assert verdict is not None and verdict["meets"] is True


def test_an_open_loop_level_is_judged_at_its_offered_rate(tmp_path, capsys):
    records = open_loop_level(64, 0, 1000.0, interval=0.5, count=10, latency=1.0, ttft=0.3)
    records += open_loop_level(64, 1, 1100.0, interval=0.125, count=40, latency=2.0, ttft=1.2)
    run = write_run(tmp_path / "r", "arr", records, manifest_fields=arrival_manifest([2, 8], 64))
    _, verdict, _ = _verdict(capsys, run, "--check", "ttft_p90_ms<=1000", "--check-level", 1)
    assert verdict is not None
    assert (verdict["level"], verdict["meets"]) == ("offered 8 req/s", False)


def test_a_level_the_run_does_not_have_is_one_line_and_exit_2(ladder, capsys):
    code, verdict, err = _verdict(capsys, ladder, "--check", "ttft_p90_ms<=1", "--check-level", 7)
    assert (code, verdict) == (2, None)
    assert err.count("\n") == 1 and "has no level 7" in err


def test_check_level_without_check_is_one_line_and_exit_2(ladder, capsys):
    code, _, err = _verdict(capsys, ladder, "--check-level", 0)
    assert code == 2 and "give --check" in err
