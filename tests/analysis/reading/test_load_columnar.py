"""The analysis reads a run's columnar records (requests.parquet) into the very columns it reads
from the same records as JSON lines (requests.jsonl, earlier versions' run directories)."""

from __future__ import annotations

import shutil

import pandas as pd

from analysis.cli import main
from analysis.reading.load import load
from sparkload.records import REQUESTS_FILE
from sparkload.records.requests_files import RequestsWriter, read_records
from tests.analysis_synthetic import closed_loop_level, make_record, write_run


def levels_with_failures() -> list[dict]:
    records = closed_loop_level(2, 0, 1000.0, ttft=0.2, itl=0.05, tps=20, latency=6.5)
    records += closed_loop_level(4, 1, 1100.0, ttft=0.4, itl=0.07, tps=14, latency=9.0)
    return records + [
        make_record(2, 0, ttft=None, itl=None, tps=None, latency=None, start_time=1001.0,
                    status="error", error_kind=kind)
        for kind in ("timeout", "http_500")
    ]  # fmt: skip


def level_with_failures_and_a_conversation() -> list[dict]:
    return levels_with_failures() + [
        make_record(4, 1, ttft=0.3, itl=0.06, tps=15, latency=8.0, start_time=1101.0 + turn,
                    session_id="s1", turn=turn, turns=2, extra={"identical": True})
        for turn in (1, 2)
    ]  # fmt: skip


def to_columnar(run, part_rows: int = 7) -> None:
    """In place: the run directory's records written as the master writes them now."""
    records = read_records(run)
    (run / REQUESTS_FILE).unlink()
    writer = RequestsWriter(run, part_rows=part_rows)
    writer.append(records)
    writer.close()


def columnar_copy(run, destination):
    shutil.copytree(run, destination)
    to_columnar(destination)
    return destination


def test_columnar_records_load_into_the_same_columns_as_their_json_lines(tmp_path):
    old = write_run(tmp_path / "old", "x", level_with_failures_and_a_conversation())
    new = columnar_copy(old, tmp_path / "new" / old.name)
    from_old, from_new = load([old]), load([new])
    pd.testing.assert_frame_equal(from_old.records, from_new.records)
    assert from_old.runs[0].records == from_new.runs[0].records == 64


def test_a_columnar_run_reports_the_same_tables(tmp_path):
    run = write_run(tmp_path / "runs", "x", levels_with_failures())
    assert main([str(run), "--out", str(tmp_path / "old"), "--no-charts", "--quiet"]) == 0
    to_columnar(run)
    assert main([str(run), "--out", str(tmp_path / "new"), "--no-charts", "--quiet"]) == 0
    tables = sorted(p.relative_to(tmp_path / "old") for p in (tmp_path / "old").rglob("*.csv"))
    assert len(tables) > 5
    for name in [*tables, "summary.json", "report.md"]:
        assert (tmp_path / "old" / name).read_bytes() == (tmp_path / "new" / name).read_bytes()


def test_a_killed_runs_pending_records_are_loaded_and_its_torn_line_noted(tmp_path):
    old = write_run(tmp_path / "old", "x", level_with_failures_and_a_conversation())
    new = tmp_path / "new" / old.name
    shutil.copytree(old, new)
    (new / REQUESTS_FILE).unlink()
    RequestsWriter(new, part_rows=20).append(read_records(old))  # never closed
    (pending,) = (new / "requests.parquet").glob("_pending-*.jsonl")
    with pending.open("ab") as tail:
        tail.write(b'{"request_id": "torn", "lev')
    dataset = load([new])
    assert (dataset.runs[0].records, dataset.runs[0].skipped_lines) == (64, 1)
    assert dataset.runs[0].notes[-1] == (
        f"1 unparsable line(s) in requests.parquet/{pending.name} skipped"
    )
