"""Time slices: windows of S seconds inside every level, and the throughput drift rule."""

from __future__ import annotations

import json
from itertools import zip_longest

import numpy as np
import pandas as pd
import pytest

from analysis.cli import main
from analysis.errors import InputError
from analysis.figures.metrics import Settings, summarize
from analysis.figures.slices import (
    MIN_STEADY_WINDOWS,
    LevelRequests,
    Slicing,
    delivered_tokens,
    drift,
    slice_level,
    slice_runs,
)
from analysis.reading.load import load
from tests.analysis_synthetic import closed_loop_level, make_record, write_run

NAN = float("nan")


def requests(*rows: dict) -> LevelRequests:
    """A level's requests from rows of sent, latency, ttft, last (token), tokens, ok."""
    frame = pd.DataFrame(
        [
            {
                "sent": 0.0,
                "latency": 1.0,
                "ttft": 0.1,
                "last": 0.9,
                "tokens": 10.0,
                "ok": True,
                **row,
            }
            for row in rows
        ]
    )
    return LevelRequests(
        sent=frame["sent"].to_numpy(float),
        latency=frame["latency"].to_numpy(float),
        ok=frame["ok"].to_numpy(bool),
        ttft=frame["ttft"].to_numpy(float),
        t_last_token=frame["last"].to_numpy(float),
        itl=((frame["last"] - frame["ttft"]) / (frame["tokens"] - 1)).to_numpy(float),
        output_tokens=frame["tokens"].to_numpy(float),
    )


def windows_of(level: LevelRequests, duration: float = 2.0) -> pd.DataFrame:
    return slice_level(level, duration, "linear")


def test_windows_start_at_the_first_send_and_the_last_one_ends_at_the_last_completion():
    level = requests({"sent": 10.0, "latency": 5.0}, {"sent": 11.0, "latency": 1.0})
    windows = windows_of(level)
    assert list(windows["start_s"]) == [0.0, 2.0, 4.0]
    assert list(windows["length_s"]) == [2.0, 2.0, 1.0]


def test_a_request_belongs_to_the_window_in_which_it_completed():
    level = requests(
        {"sent": 0.0, "latency": 1.5, "ttft": 0.2},
        {"sent": 0.5, "latency": 4.0, "ttft": 0.6},
        {"sent": 1.0, "latency": 3.2, "ttft": 1.0},
    )
    windows = windows_of(level)
    assert list(windows["completed"]) == [1, 0, 2]
    assert windows["ttft_ms_p50"].iloc[0] == pytest.approx(200.0)
    assert windows["ttft_ms_p50"].iloc[2] == pytest.approx(800.0)
    assert np.isnan(windows["ttft_ms_p90"].iloc[1])  # nothing completed there


def test_output_tokens_are_spread_over_each_requests_decode_span():
    # the first token at 1 s, the other four evenly over 1 s → 3 s: 1 + 2 in the first window
    level = requests({"sent": 0.0, "ttft": 1.0, "last": 3.0, "latency": 3.5, "tokens": 5})
    windows = windows_of(level)
    assert list(windows["output_tps"] * windows["length_s"]) == pytest.approx([3.0, 2.0])


def test_the_windows_tokens_add_up_to_the_levels_output_tokens():
    rng = np.random.default_rng(7)
    sent = np.sort(rng.uniform(0, 30, 200))
    ttft = rng.uniform(0.05, 2.0, 200)
    decode = rng.uniform(0.0, 6.0, 200)  # some requests emit everything at once
    rows = [
        {
            "sent": s,
            "ttft": t,
            "last": t + d,
            "latency": t + d + 0.01,
            "tokens": float(rng.integers(1, 300)),
        }
        for s, t, d in zip(sent, ttft, decode, strict=True)
    ]
    level = requests(*rows)
    windows = windows_of(level, 1.5)
    delivered = (windows["output_tps"] * windows["length_s"]).sum()
    assert delivered == pytest.approx(sum(r["tokens"] for r in rows))


def test_tokens_delivered_rise_one_at_the_first_token_then_evenly():
    level = requests({"sent": 0.0, "ttft": 1.0, "last": 2.0, "latency": 2.0, "tokens": 11})
    at = np.array([0.5, 1.0, 1.0 + 1e-9, 1.5, 2.0, 5.0])
    assert delivered_tokens(level, at) == pytest.approx([0, 0, 1, 6, 11, 11], abs=1e-6)


def test_in_flight_is_the_time_mean_over_the_window():
    # one request in flight for the whole first window, another for half of it
    level = requests({"sent": 0.0, "latency": 4.0}, {"sent": 1.0, "latency": 1.0})
    windows = windows_of(level)
    assert list(windows["inflight_mean"]) == pytest.approx([1.5, 1.0])


def test_a_failure_is_counted_where_it_ended_in_flight_until_then_and_adds_no_tokens():
    level = requests(
        {"sent": 0.0, "latency": 3.0, "ttft": 0.5, "last": 2.9, "tokens": 20},
        {"sent": 0.0, "latency": 2.5, "ttft": NAN, "last": NAN, "tokens": 0, "ok": False},
    )
    windows = windows_of(level)
    assert list(windows["failures"]) == [0, 1]
    assert list(windows["completed"]) == [0, 1]
    assert (windows["output_tps"] * windows["length_s"]).sum() == pytest.approx(20)
    assert windows["inflight_mean"].iloc[0] == pytest.approx(2.0)


def test_steady_windows_leave_out_the_first_window_and_the_drain_after_the_last_send():
    # back-to-back 1 s requests until a send at 9 s; the last one ends at 10.5 s
    rows = [{"sent": float(t), "latency": 1.0} for t in range(9)] + [{"sent": 9.0, "latency": 1.5}]
    windows = windows_of(requests(*rows))
    assert list(windows["steady"]) == [False, True, True, True, False, False]


def tokens_per_window(values: list[float]) -> pd.DataFrame:
    return pd.DataFrame(
        {"output_tps": values, "steady": [False, *([True] * (len(values) - 2)), False]}
    )


def test_drift_compares_the_first_and_last_quarters_of_the_steady_windows():
    found = drift(tokens_per_window([50, 100, 100, 96, 94, 90, 80, 80, 10]), 10.0)
    assert (found.steady_windows, found.first_tps, found.last_tps) == (7, 100, 80)
    assert found.change_pct == pytest.approx(-20.0)
    assert found.flagged


def test_a_fall_within_the_threshold_is_not_drift():
    found = drift(tokens_per_window([50, 100, 99, 97, 95, 91, 10]), 10.0)
    assert found.judged and not found.flagged
    assert found.change_pct == pytest.approx(-9.0)


def test_a_rise_in_throughput_is_not_drift():
    assert not drift(tokens_per_window([50, 80, 85, 90, 100, 10]), 10.0).flagged


def test_too_few_steady_windows_say_nothing_about_drift():
    found = drift(tokens_per_window([100] + [100, 10, 10][: MIN_STEADY_WINDOWS - 1] + [5]), 10.0)
    assert not found.judged and not found.flagged
    assert "not judged" in found.describe()


def run_with_slices(tmp_path, slice_duration=None, time_scale=1.0):
    records = closed_loop_level(2, 0, 1000.0, ttft=0.2, itl=0.02, tps=40, latency=3.0)
    fields = {} if slice_duration is None else {"slice_duration": slice_duration}
    return write_run(tmp_path / "r", "x", records, time_scale=time_scale, manifest_fields=fields)


def test_a_runs_own_slice_duration_comes_from_its_manifest(tmp_path):
    dataset = load([run_with_slices(tmp_path, slice_duration=2.0)])
    (level,) = slice_runs(dataset, Settings(), Slicing())
    assert (level.level, level.duration_s, len(level.windows)) == ("C=2", 2.0, 15)


def test_the_reports_slice_duration_overrides_the_manifests_and_zero_turns_slicing_off(tmp_path):
    dataset = load([run_with_slices(tmp_path, slice_duration=2.0)])
    (level,) = slice_runs(dataset, Settings(), Slicing(5.0))
    assert len(level.windows) == 6
    assert slice_runs(dataset, Settings(), Slicing(0.0)) == []


@pytest.mark.parametrize("width", ["two", -2, [2]])
def test_an_unreadable_slice_duration_in_a_manifest_is_noted_and_slices_nothing(tmp_path, width):
    dataset = load([run_with_slices(tmp_path, slice_duration=width)])
    assert f"slice_duration {width!r} unreadable: no time slices" in dataset.runs[0].notes
    assert slice_runs(dataset, Settings(), Slicing()) == []


def test_a_run_without_a_slice_duration_is_not_sliced(tmp_path):
    assert slice_runs(load([run_with_slices(tmp_path)]), Settings(), Slicing()) == []


def test_the_slice_duration_is_in_the_targets_simulated_time(tmp_path):
    # 30 s of records at time scale 10 are 300 simulated seconds: 2 s windows → 150
    dataset = load([run_with_slices(tmp_path, time_scale=10.0)])
    (level,) = slice_runs(dataset, Settings(), Slicing(2.0))
    assert len(level.windows) == 150
    tokens = (level.windows["output_tps"] * level.windows["length_s"]).sum()
    summary = summarize(dataset, Settings(bootstrap_resamples=0))
    assert tokens == pytest.approx(summary["output_tokens_sum"].iloc[0])


def test_warm_up_requests_are_left_out_of_the_windows(tmp_path):
    records = closed_loop_level(
        1,
        0,
        1000.0,
        ttft=0.2,
        itl=0.02,
        tps=40,
        latency=3.0,
        warmup={"ttft": 5.0, "itl": 0.1, "tps": 5, "latency": 20.0},
    )
    dataset = load([write_run(tmp_path / "r", "x", records)])
    (level,) = slice_runs(dataset, Settings(), Slicing(3.0))
    assert level.windows["completed"].sum() == 10
    assert level.windows["ttft_ms_p90"].max() == pytest.approx(200.0)


def test_an_open_loop_level_is_sliced_and_named_by_its_offered_rate(tmp_path):
    records = [
        make_record(8, 0, ttft=0.1, itl=0.01, tps=50, latency=1.0, start_time=100.0 + i * 0.5)
        for i in range(20)
    ]
    fields = {
        "mode": "arrival",
        "levels": [
            {"index": 0, "concurrency": 8, "expected": None, "started_at": "", "arrival_rate": 2}
        ],
    }
    dataset = load([write_run(tmp_path / "r", "open", records, manifest_fields=fields)])
    (level,) = slice_runs(dataset, Settings(), Slicing(2.0))
    assert (level.level, level.concurrency, level.offered_rps) == ("offered 2 req/s", None, 2.0)
    assert level.windows["completed"].sum() == 20


def test_a_slice_duration_that_makes_too_many_windows_is_bad_input(tmp_path):
    dataset = load([run_with_slices(tmp_path)])
    with pytest.raises(InputError, match="--slice-duration 0.0001 s cuts x C=2 .* into more than"):
        slice_runs(dataset, Settings(), Slicing(0.0001))


def test_the_report_exits_2_with_one_line_for_too_short_a_slice(tmp_path, capsys):
    run = run_with_slices(tmp_path)
    argv = [str(run), "--out", str(tmp_path / "out"), "--slice-duration", "0.0001", "--quiet"]
    assert main(argv) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and "give a longer --slice-duration" in err


def test_summary_json_and_the_report_carry_every_window_and_the_drift(tmp_path):
    run = run_with_slices(tmp_path, slice_duration=2.0)
    out = tmp_path / "out"
    assert main([str(run), "--out", str(out), "--no-charts", "--quiet"]) == 0
    slices = json.loads((out / "summary.json").read_text())["slices"]
    (level,) = slices["levels"]
    assert (level["concurrency"], level["slice_duration_s"], len(level["windows"])) == (2, 2, 15)
    assert level["drift"]["judged"] and not level["drift"]["flagged"]
    assert slices["drift_threshold_pct"] == 10
    report = (out / "report.md").read_text()
    assert "Time slices and drift" in report
    assert "| x | 20260101T000000Z-x | C=2 | 2 | 15 |" in report
    (windows,) = (out / "tables").glob("*_x_windows.csv")
    assert len(pd.read_csv(windows)) == 15


def test_a_throttled_step_is_flagged_in_the_report(tmp_path):
    """A 60 s level whose requests slow down by half after 30 s: drift shown and in JSON."""
    records = []
    t = 1000.0
    while t < 1060.0:
        latency = 1.0 if t < 1030.0 else 2.0
        records += [
            make_record(
                2,
                0,
                ttft=0.1,
                itl=(latency - 0.1) / 99,
                tps=100 / latency,
                latency=latency,
                start_time=t,
                output_tokens=100,
                user=user,
            )
            for user in range(2)
        ]
        t += latency
    run = write_run(tmp_path / "r", "hot", records, manifest_fields={"slice_duration": 5.0})
    out = tmp_path / "out"
    argv = [str(run), "--out", str(out), "--no-charts", "--quiet", "--drift-threshold", "25"]
    assert main(argv) == 0
    (level,) = json.loads((out / "summary.json").read_text())["slices"]["levels"]
    assert level["drift"]["flagged"] and level["drift"]["change_pct"] == pytest.approx(-50, abs=3)
    assert "**DRIFT** hot C=2" in (out / "report.md").read_text()


def test_a_record_without_a_send_time_is_left_out_of_the_windows(tmp_path):
    records = closed_loop_level(1, 0, 1000.0, ttft=0.2, itl=0.02, tps=40, latency=3.0)
    records[3]["start_time"] = None
    dataset = load([write_run(tmp_path / "r", "x", records, manifest_fields={"slice_duration": 3})])
    (level,) = slice_runs(dataset, Settings(), Slicing())
    assert level.windows["completed"].sum() == 9


def test_each_run_and_level_is_sliced_from_its_own_records_however_they_interleave(tmp_path):
    low = closed_loop_level(1, 0, 1000.0, ttft=0.2, itl=0.02, tps=40, latency=3.0)
    high = closed_loop_level(2, 1, 1030.0, ttft=0.3, itl=0.02, tps=40, latency=3.0)
    interleaved = [record for pair in zip_longest(high, low) for record in pair if record]
    sliced = {"slice_duration": 3.0}
    first = write_run(tmp_path / "a", "a", interleaved, manifest_fields=sliced)
    second = write_run(tmp_path / "b", "b", low, manifest_fields=sliced)
    levels = slice_runs(load([first, second]), Settings(), Slicing())
    assert [(level.label, level.level, level.windows["completed"].sum()) for level in levels] == [
        ("a", "C=1", 10),
        ("a", "C=2", 20),
        ("b", "C=1", 10),
    ]
    assert levels[1].windows["ttft_ms_p50"].max() == pytest.approx(300.0)
