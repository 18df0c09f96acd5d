"""Per-level summary rows: only the levels a label ran, failures by kind, the level's wall time,
reproducible confidence intervals, and the means of optional fields."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest

from analysis.figures.metrics import (
    CLOSED,
    EXTRA_COLUMNS,
    OPEN,
    SUMMARY_COLUMNS,
    Settings,
    in_flight,
    loop_levels,
    summarize,
)
from analysis.reading.load import load
from tests.analysis_synthetic import (
    arrival_manifest,
    closed_loop_level,
    make_record,
    open_loop_level,
    write_run,
)

NO_BOOTSTRAP = Settings(bootstrap_resamples=0)


def level(c: int, index: int, t0: float, **fields) -> list[dict]:
    figures = {"ttft": 0.1, "itl": 0.02, "tps": 30.0, "latency": 2.0, **fields}
    return closed_loop_level(c, index, t0, per_user=2, **figures)


def summary_of(tmp_path, runs: dict[str, list[dict]], settings=NO_BOOTSTRAP, **fields):
    paths = [
        write_run(tmp_path / "results", label, records, stamp=f"20260101T00000{i}Z", **fields)
        for i, (label, records) in enumerate(runs.items())
    ]
    return summarize(load(paths), settings)


def test_two_labels_with_different_ladders_each_report_only_their_own_levels(tmp_path):
    summary = summary_of(
        tmp_path,
        {
            "a": level(1, 0, 1000.0) + level(2, 1, 1100.0),
            "b": level(1, 0, 1000.0) + level(4, 1, 1100.0),
        },
    )
    rows = list(zip(summary["label"], summary["concurrency"], summary["n"], strict=True))
    assert rows == [("a", 1, 2), ("a", 2, 4), ("b", 1, 2), ("b", 4, 8)]
    assert list(summary["runs"]) == [1, 1, 1, 1] and summary["wall_s"].notna().all()
    assert list(summary["ttft_ms_mean"]) == pytest.approx([100.0] * 4)


def test_two_labels_at_one_offered_rate_keep_their_own_in_flight_figures(tmp_path):
    paths = [
        write_run(
            tmp_path / "r",
            label,
            open_loop_level(4, 0, 1000.0, interval=0.5, count=6, latency=latency),
            stamp=f"20260101T00000{i}Z",
            manifest_fields=arrival_manifest([2.0], 4),
        )
        for i, (label, latency) in enumerate((("a", 0.25), ("b", 1.0)))
    ]
    summary = summarize(load(paths), NO_BOOTSTRAP)
    assert list(zip(summary["label"], summary["offered_rps"], strict=True)) == [
        ("a", 2.0),
        ("b", 2.0),
    ]
    walls = [5 * 0.5 + latency for latency in (0.25, 1.0)]
    expected = [6 * latency / wall for latency, wall in zip((0.25, 1.0), walls, strict=True)]
    assert list(summary["inflight_mean"]) == pytest.approx(expected)
    assert list(summary["inflight_peak"]) == [1, 2]


def test_two_labels_with_different_offered_rates_each_report_only_their_own_rates(tmp_path):
    def sweep(rate: float) -> list[dict]:
        return open_loop_level(4, 0, 1000.0, interval=1 / rate, count=6, latency=1.0)

    paths = [
        write_run(
            tmp_path / "r",
            label,
            sweep(rate),
            stamp=f"20260101T00000{i}Z",
            manifest_fields=arrival_manifest([rate], 4),
        )
        for i, (label, rate) in enumerate((("a", 1.5), ("b", 2.5)))
    ]
    summary = summarize(load(paths), NO_BOOTSTRAP)
    assert list(zip(summary["label"], summary["offered_rps"], strict=True)) == [
        ("a", 1.5),
        ("b", 2.5),
    ]
    assert list(summary["n"]) == [6, 6]
    assert list(summary["ttft_ms_mean"]) == pytest.approx([200.0, 200.0])
    walls = [5 / rate + 1.0 for rate in (1.5, 2.5)]
    assert list(summary["inflight_mean"]) == pytest.approx([6 / wall for wall in walls])


def failed(c: int, index: int, start: float, kind: str | None) -> dict:
    return make_record(
        c,
        index,
        ttft=None,
        itl=None,
        tps=None,
        latency=None,
        start_time=start,
        status="error",
        error_kind=kind,
    )


def test_failures_are_counted_by_kind_and_a_failure_without_one_as_unknown(tmp_path):
    records = level(1, 0, 1000.0)
    for start, kind in ((1010.0, "timeout"), (1011.0, None), (1012.0, "timeout")):
        records.append(failed(1, 0, start, kind))
    row = summary_of(tmp_path, {"a": records}).iloc[0]
    assert (row["n"], row["failures"]) == (2, 3)
    assert sorted(row["error_kinds"].split("; ")) == ["timeout: 2", "unknown: 1"]


def test_each_label_and_level_names_only_the_failures_it_had(tmp_path):
    summary = summary_of(
        tmp_path,
        {
            "a": level(1, 0, 1000.0) + [failed(1, 0, 1010.0, "timeout")],
            "b": level(1, 0, 1000.0) + level(2, 1, 1100.0) + [failed(2, 1, 1110.0, "http_500")],
        },
    )
    kinds = {(r.label, r.concurrency): r.error_kinds for r in summary.itertuples()}
    assert kinds == {("a", 1): "timeout: 1", ("b", 1): "", ("b", 2): "http_500: 1"}


def test_a_level_ends_when_its_last_request_does_even_a_failed_one_without_a_latency(tmp_path):
    records = level(1, 0, 1000.0)  # two requests of 2 s: 1000 to 1004
    records.append(
        make_record(
            1,
            0,
            ttft=None,
            itl=None,
            tps=None,
            latency=None,
            start_time=1010.0,
            status="error",
            error_kind="connect",
        )
    )
    assert summary_of(tmp_path, {"a": records}).iloc[0]["wall_s"] == pytest.approx(10.0)


def test_warm_up_requests_are_counted_apart(tmp_path):
    records = closed_loop_level(
        2,
        0,
        1000.0,
        ttft=0.1,
        itl=0.02,
        tps=30.0,
        latency=2.0,
        per_user=2,
        warmup={"ttft": 9.0, "itl": 0.02, "tps": 30.0, "latency": 2.0},
    )
    row = summary_of(tmp_path, {"a": records}).iloc[0]
    assert (row["n"], row["warmup_excluded"], row["ttft_ms_mean"]) == (4, 1, pytest.approx(100.0))


def test_no_bootstrap_resamples_means_no_confidence_intervals(tmp_path):
    row = summary_of(tmp_path, {"a": level(4, 0, 1000.0)}).iloc[0]
    assert row["ttft_ms_p90"] == pytest.approx(100.0)
    assert pd.isna(row["ttft_ms_p90_ci_low"]) and pd.isna(row["latency_s_p50_ci_high"])


def test_confidence_intervals_come_out_the_same_on_every_run(tmp_path):
    records = [
        make_record(1, 0, ttft=t, itl=0.02, tps=30.0, latency=2.0, start_time=1000.0 + 2 * i)
        for i, t in enumerate(np.random.default_rng(3).uniform(0.1, 0.3, 30))
    ]
    run = write_run(tmp_path / "r", "a", records)
    settings = Settings(bootstrap_resamples=200)
    first, second = (summarize(load([run]), settings).iloc[0] for _ in range(2))
    assert first["ttft_ms_p90_ci_low"] < first["ttft_ms_p90_ci_high"]
    assert (first["ttft_ms_p90_ci_low"], first["ttft_ms_p90_ci_high"]) == (
        second["ttft_ms_p90_ci_low"],
        second["ttft_ms_p90_ci_high"],
    )


def test_means_of_output_tokens_decode_rate_and_chunk_gaps(tmp_path):
    records = level(1, 0, 1000.0)
    for record in records:
        record.update(output_tokens=64, decode_tps=50.0, chunk_gap_mean=0.015)
    row = summary_of(tmp_path, {"a": records}).iloc[0]
    assert (row["output_tokens_sum"], row["output_tokens_mean"]) == (128.0, 64.0)
    assert row["decode_tps_mean"] == pytest.approx(50.0)
    assert row["chunk_itl_ms_mean"] == pytest.approx(15.0)


def test_fields_no_record_has_leave_their_means_empty(tmp_path):
    row = summary_of(tmp_path, {"a": level(1, 0, 1000.0)}).iloc[0]
    assert pd.isna(row["decode_tps_mean"]) and pd.isna(row["chunk_itl_ms_mean"])


def test_an_open_loop_level_whose_only_request_failed_at_once_has_no_in_flight_mean(tmp_path):
    records = [
        make_record(
            4,
            0,
            ttft=None,
            itl=None,
            tps=None,
            latency=None,
            start_time=1000.0,
            status="error",
            error_kind="connect",
            scheduled_time=1000.0,
            queue_wait=0.0,
        )
    ]
    manifest = arrival_manifest([1.0], 4)
    row = summary_of(tmp_path, {"a": records}, manifest_fields=manifest).iloc[0]
    assert (row["loop"], row["failures"], row["inflight_peak"]) == ("open", 1, 0)
    assert pd.isna(row["inflight_mean"])


def test_in_flight_wall_time_runs_from_the_first_start_to_the_last_end():
    sweep = in_flight(np.array([10.0, 11.0]), np.array([12.0, 14.0]))
    assert (sweep.wall_s, sweep.peak, sweep.request_seconds) == (4.0, 2, 5.0)


def test_one_loops_levels_keep_the_summarys_columns_numbered_from_zero(tmp_path):
    paths = [
        write_run(tmp_path / "r", "closed", level(2, 0, 1000.0), stamp="20260101T000001Z"),
        write_run(
            tmp_path / "r",
            "open",
            open_loop_level(4, 0, 1000.0, interval=0.5, count=4, latency=1.0),
            manifest_fields=arrival_manifest([2.0], 4),
        ),
    ]
    summary = summarize(load(paths), NO_BOOTSTRAP)
    closed, opened = loop_levels(summary, CLOSED), loop_levels(summary, OPEN)
    assert list(closed.columns) == list(summary.columns) == list(opened.columns)
    assert list(closed.index) == [0] and list(opened.index) == [0]
    assert closed["concurrency"].dtype == np.int64 and list(closed["concurrency"]) == [2]


def test_a_run_where_every_request_failed_is_summarized_by_its_counts(tmp_path):
    failed = [
        make_record(
            2,
            0,
            ttft=None,
            itl=None,
            tps=None,
            latency=None,
            start_time=1000.0 + i,
            status="error",
            error_kind="connect",
        )
        for i in range(3)
    ]
    row = summary_of(tmp_path, {"down": failed}).iloc[0]
    assert (row["concurrency"], row["n"], row["failures"], row["error_kinds"]) == (
        2,
        0,
        3,
        "connect: 3",
    )
    assert pd.isna(row["ttft_ms_p90"]) and pd.isna(row["tps_mean"])


def test_the_summary_has_exactly_the_contract_columns_and_whole_number_keys(tmp_path):
    summary = summary_of(tmp_path, {"a": level(1, 0, 1000.0)})
    assert list(summary.columns) == SUMMARY_COLUMNS + EXTRA_COLUMNS
    assert [str(summary[c].dtype) for c in ("concurrency", "tp", "nodes")] == ["Int64"] * 3
    open_columns = ["offered_rps", "inflight_mean", "send_lateness_ms_p99"]
    assert all(summary[c].dtype == float and summary[c].isna().all() for c in open_columns)


def test_closed_and_open_levels_side_by_side_keep_their_own_figures(tmp_path):
    paths = [
        write_run(tmp_path / "r", "closed", level(2, 0, 1000.0), stamp="20260101T000001Z"),
        write_run(
            tmp_path / "r",
            "open",
            open_loop_level(4, 0, 1000.0, interval=0.5, count=4, latency=1.0),
            manifest_fields=arrival_manifest([2.0], 4),
        ),
    ]
    summary = summarize(load(paths), NO_BOOTSTRAP)
    assert list(summary["loop"]) == ["closed", "open"]
    assert summary.loc[0, "saturation_pct"] == 100.0 and pd.isna(summary.loc[1, "saturation_pct"])
    assert list(summary.index) == [0, 1]


def test_labels_come_in_the_order_given_and_levels_by_concurrency(tmp_path):
    summary = summary_of(
        tmp_path, {"zeta": level(4, 1, 1100.0) + level(1, 0, 1000.0), "alpha": level(2, 0, 1000.0)}
    )
    rows = list(zip(summary["label"], summary["concurrency"], strict=True))
    assert rows == [("zeta", 1), ("zeta", 4), ("alpha", 2)]


def test_the_summarys_labels_are_plain_text_not_the_loaders_categories(tmp_path):
    summary = summary_of(tmp_path, {"a": level(1, 0, 1000.0), "b": level(2, 0, 1000.0)})
    assert not isinstance(summary["label"].dtype, pd.CategoricalDtype)
    assert list(summary["label"]) == ["a", "b"]


def test_a_label_is_incomplete_when_any_of_its_runs_is(tmp_path):
    root = tmp_path / "r"
    paths = [
        write_run(root, "x", level(1, 0, 1000.0), status="running", stamp="20260101T000001Z"),
        write_run(root, "x", level(1, 0, 2000.0), stamp="20260101T000002Z"),
        write_run(root, "y", level(1, 0, 1000.0), stamp="20260101T000003Z"),
    ]
    summary = summarize(load(paths), NO_BOOTSTRAP)
    assert list(zip(summary["label"], summary["incomplete"], strict=True)) == [
        ("x", True),
        ("y", False),
    ]
    assert list(summary["runs"]) == [2, 1]


def test_a_label_run_at_two_time_scales_names_both(tmp_path):
    root = tmp_path / "r"
    paths = [
        write_run(root, "sim", level(1, 0, 1000.0), time_scale=20, stamp="20260101T000001Z"),
        write_run(root, "sim", level(1, 0, 2000.0), time_scale=10, stamp="20260101T000002Z"),
        write_run(root, "real", level(1, 0, 1000.0), stamp="20260101T000003Z"),
    ]
    summary = summarize(load(paths), NO_BOOTSTRAP)
    assert list(summary["time_scale"]) == ["10/20", "1"]


def test_a_levels_flags_are_joined_in_one_cell(tmp_path):
    manifest = {
        "levels": [
            {
                "index": 0,
                "concurrency": 1,
                "expected": 2,
                "started_at": "t",
                "client_flags": ["event loop late", "CPU 95 %"],
                "stream_flags": ["collapsed stream"],
            }
        ]
    }
    row = summary_of(tmp_path, {"a": level(1, 0, 1000.0)}, manifest_fields=manifest).iloc[0]
    assert (row["client_flags"], row["stream_flags"]) == (
        "event loop late; CPU 95 %",
        "collapsed stream",
    )


def flagged_level(kinds: list[str]) -> dict:
    return {
        "index": 0,
        "concurrency": 1,
        "expected": 2,
        "started_at": "t",
        "stream_flags": [f"{kind}: what was seen" for kind in kinds],
        "stream_flag_kinds": kinds,
    }


def test_a_levels_stream_flag_kinds_are_named_once_each_over_its_runs(tmp_path):
    runs = [
        write_run(
            tmp_path / "results",
            "a",
            level(1, 0, 1000.0 * (i + 1)),
            stamp=f"20260101T00000{i}Z",
            manifest_fields={"levels": [flagged_level(kinds)]},
        )
        for i, kinds in enumerate((["partial_burst", "headers_held"], ["partial_burst"]))
    ]
    (row,) = summarize(load(runs), NO_BOOTSTRAP).itertuples()
    assert row.stream_flag_kinds == "partial_burst headers_held"


def test_a_level_without_stream_flags_has_no_kinds_and_a_closed_one_no_schedule(tmp_path):
    (row,) = summary_of(tmp_path, {"a": level(1, 0, 1000.0)}).itertuples()
    assert row.stream_flag_kinds == ""
    assert pd.isna(row.scheduled) and pd.isna(row.arrival_cv)


def test_summarizing_a_plain_ladder_raises_no_numeric_warning(tmp_path):
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)  # no mean of nothing, no 0 / 0
        summary_of(tmp_path, {"a": level(1, 0, 1000.0) + level(2, 1, 1100.0)})
