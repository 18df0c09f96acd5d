"""A thinking model's time to answer beside TTFT wherever the report summarizes a level, and a
table of its reasoning and tool calls; a plain label's tables stay as they were."""

from __future__ import annotations

import pandas as pd

from analysis.cli import main
from tests.analysis_synthetic import (
    arrival_manifest,
    closed_loop_level,
    make_record,
    markdown_table,
    open_loop_level,
    write_run,
)
from tests.report_files import section_number


def thinking_record(level: int, index: int, start: float, **fields) -> dict:
    measured = dict(
        ttfo=0.9,
        t_last_reasoning=0.8,
        reasoning_tokens=64,
        answer_tokens=64,
        reasoning_counted_by="usage",
        reasoning_tps=63 / 0.7,
        answer_tps=63 / 1.1,
    )
    return make_record(
        level,
        index,
        ttft=0.1,
        itl=0.015,
        tps=64.0,
        latency=2.0,
        start_time=start,
        **{**measured, **fields},
    )


def thinking_ladder(root, label="think", **fields):
    records = [
        thinking_record(c, index, 1000.0 * (index + 1) + i, **fields)
        for index, c in enumerate((1, 2))
        for i in range(4)
    ]
    records.append(
        thinking_record(
            2, 1, 2010.0, ttfo=None, answer_tokens=0, answer_tps=None, finish_reason="length"
        )
    )
    return write_run(root, label, records)


def plain_ladder(root, label="plain"):
    records = []
    for index, c in enumerate((1, 2)):
        records += closed_loop_level(
            c, index, 5000.0 + 1000 * index, ttft=0.1, itl=0.01, tps=80, latency=1.6
        )
    for record in records:
        record["ttfo"] = record["ttft"]
    return write_run(root, label, records)


def report_of(tmp_path, *runs) -> str:
    out = tmp_path / "out"
    assert main([*map(str, runs), "--out", str(out), "--no-charts", "--quiet"]) == 0
    return (out / "report.md").read_text()


def test_the_means_show_ttfo_beside_ttft(tmp_path):
    report = report_of(tmp_path, thinking_ladder(tmp_path / "r"))
    header, first, _ = markdown_table(report, "think: performance (means)")
    assert header[3:5] == ["TTFT (ms)", "TTFO (ms)"] and first[3:5] == ["100.00", "900.00"]
    percentiles = markdown_table(report, "think: p50 / p90 (linear) with bootstrap 90 % CI")
    assert percentiles[0][2:6] == ["TTFT ms p50", "TTFT ms p90", "TTFO ms p50", "TTFO ms p90"]


def test_the_thinking_table_counts_what_never_answered_and_says_who_counted(tmp_path):
    report = report_of(tmp_path, thinking_ladder(tmp_path / "r"))
    rows = markdown_table(report, "think: time to answer, reasoning and tool calls")
    assert rows[0] == [
        "Concurrency",
        "n",
        "No answer",
        "TTFT p50 (ms)",
        "TTFO p50 (ms)",
        "TTFO p90 (ms)",
        "Reasoning tokens",
        "Answer tokens",
        "Reasoning share",
        "Reasoning tok/s",
        "Answer tok/s",
        "Reasoning counted by",
    ]  # no tool-call columns: no request called a tool
    assert rows[1][:3] == ["1", "4", "0"] and rows[2][:3] == ["2", "5", "1"]
    assert rows[1][6:9] == ["64.0", "64.0", "50.0%"] and rows[1][-1] == "usage"
    assert "TTFO (time to first output token" in report


def test_tool_calls_get_their_columns_where_there_were_some(tmp_path):
    run = thinking_ladder(tmp_path / "r", tool_calls=1, tool_args_done=0.95, tool_args_valid=True)
    rows = markdown_table(
        report_of(tmp_path, run), "think: time to answer, reasoning and tool calls"
    )
    assert rows[0][-4:] == ["Tool calls", "Tool args done p50 (ms)", "Args valid", "Args truncated"]
    assert rows[1][-4:] == ["4", "950.00", "100.0%", "0"]


def test_a_plain_label_beside_a_thinking_one_keeps_its_tables(tmp_path):
    report = report_of(tmp_path, thinking_ladder(tmp_path / "r"), plain_ladder(tmp_path / "r"))
    assert "TTFO (ms)" not in markdown_table(report, "plain: performance (means)")[0]
    assert "**plain: time to answer, reasoning and tool calls**" not in report
    summary = pd.read_csv(tmp_path / "out" / "summary.csv")
    assert summary.set_index("label").loc["plain", "ttfo_ms_mean"].tolist() == [100.0, 100.0]


def test_a_plain_report_says_nothing_of_ttfo(tmp_path):
    report = report_of(tmp_path, plain_ladder(tmp_path / "r"))
    assert "TTFO" not in report and "reasoning" not in report.lower()
    assert "ttfo" not in pd.read_csv(tmp_path / "out" / "summary.csv").columns


def test_the_operating_points_show_the_time_to_answer_beside_ttft(tmp_path):
    report = report_of(tmp_path, thinking_ladder(tmp_path / "r"))
    header = markdown_table(report, "Operating points per level")[0]
    assert header[4:6] == ["TTFT p90 (ms)", "TTFO p90 (ms)"]


def test_an_open_loop_level_shows_ttfo_beside_ttft(tmp_path):
    records = open_loop_level(8, 0, 1000.0, interval=0.5, count=6, latency=1.0)
    for record in records:
        record.update(ttfo=0.6, reasoning_tokens=30, answer_tokens=98)
    run = write_run(tmp_path / "r", "arr", records, manifest_fields=arrival_manifest([2], 8))
    header, row = markdown_table(report_of(tmp_path, run), "arr: per offered rate")
    assert header[1:5] == ["TTFT ms mean", "TTFT ms p50", "TTFT ms p90", "TTFO ms mean"]
    assert row[4] == "600.00"


def test_the_concurrency_effect_ends_with_the_time_to_answer_across_levels(tmp_path):
    report = report_of(tmp_path, thinking_ladder(tmp_path / "r"))
    header, row = markdown_table(report, "Mean TTFO (ms), time to answer")
    assert header == ["Label", "C=1", "C=2", "C min → max"] and row[:3] == [
        "think",
        "900.00",
        "900.00",
    ]
    number = section_number(report, "Concurrency effect")
    headings = [line for line in report.splitlines() if line.startswith(f"### {number}.")]
    assert headings[-1].endswith(" TTFO increase")  # last: the other subsections keep numbers


def test_a_side_by_side_comparison_shows_ttfo_after_ttft(tmp_path):
    runs = [thinking_ladder(tmp_path / "r", label) for label in ("think", "think-MTP")]
    rows = markdown_table(report_of(tmp_path, *runs), "think vs think-MTP at C=1")
    metrics = [row[0] for row in rows[1:]]
    assert metrics[metrics.index("TTFT (ms)") + 1] == "TTFO (ms)"
