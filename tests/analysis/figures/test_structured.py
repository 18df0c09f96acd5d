"""Structured output per level: verdicts counted apart, the ratio over the replies that
finished, and schema_valid_ratio as a --check bound."""

from __future__ import annotations

import pytest

from analysis.cli import main
from analysis.figures.metrics import Settings, summarize
from analysis.reading.load import load
from sparkload.records import EXIT_CHECK_FAILED
from tests.analysis_synthetic import make_record, write_run

# 16 valid, 2 parse errors, 2 schema errors, 5 cut by max_tokens
VERDICTS = ["valid"] * 16 + ["parse_error"] * 2 + ["schema_error"] * 2 + ["truncated"] * 5


@pytest.fixture
def run(tmp_path):
    records = [
        make_record(
            1, 0, ttft=0.1, itl=0.01, tps=50, latency=1.0, start_time=100.0 + i, structured=v
        )
        for i, v in enumerate(VERDICTS)
    ]
    return write_run(tmp_path / "results", "structured", records)


def test_parse_errors_are_counted_by_their_kind_most_first(tmp_path):
    kinds = ["control_character", "incomplete", "control_character", None]  # None: older
    records = [
        make_record(
            1, 0, ttft=0.1, itl=0.01, tps=50, latency=1.0, start_time=100.0 + i,
            structured="parse_error", structured_error=kind,
        )
        for i, kind in enumerate(kinds)
    ]  # fmt: skip
    records.append(
        make_record(1, 0, ttft=0.1, itl=0.01, tps=50, latency=1, start_time=9, structured="valid")
    )
    level = summarize(load([write_run(tmp_path, "kinds", records)]), Settings()).iloc[0]
    assert level["structured_parse_error"] == 4
    assert level["parse_error_kinds"] == "control_character 2, incomplete 1, unnamed 1"


def test_each_kind_is_counted_apart_and_the_ratio_leaves_truncated_replies_out(run):
    level = summarize(load([run]), Settings()).iloc[0]
    counts = [level[f"structured_{k}"] for k in ("valid", "parse_error", "schema_error")]
    assert counts == [16, 2, 2] and level["structured_truncated"] == 5
    assert level["schema_valid_ratio"] == pytest.approx(16 / 20)
    assert level["json_parse_ratio"] == pytest.approx(18 / 20)


def test_a_plain_run_has_no_structured_columns(tmp_path):
    plain = [make_record(1, 0, ttft=0.1, itl=0.01, tps=50, latency=1.0, start_time=100.0)]
    summary = summarize(load([write_run(tmp_path / "r", "plain", plain)]), Settings())
    assert "schema_valid_ratio" not in summary


def test_a_schema_valid_ratio_bound_that_breaks_exits_4_naming_the_ratio(run, capsys):
    code = main([str(run), "--check", "schema_valid_ratio>=0.99", "--quiet"])
    assert code == EXIT_CHECK_FAILED
    assert capsys.readouterr().out.splitlines() == [
        "check failed: structured C=1: schema_valid_ratio = 0.8 < 0.99"
    ]


def test_a_schema_valid_ratio_bound_that_holds_exits_0(run, capsys):
    assert main([str(run), "--check", "schema_valid_ratio>=0.8", "--quiet"]) == 0
