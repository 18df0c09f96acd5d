"""A run's records on disk: Parquet parts as they fill, the open part's records as pending JSON
lines, and one reader of that layout and of earlier versions' requests.jsonl."""

from __future__ import annotations

import json
import math
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from sparkload.records import REQUESTS_FILE, REQUESTS_PARQUET
from sparkload.records.columnar import to_batch
from sparkload.records.requests_files import (
    RequestsReader,
    RequestsWriter,
    has_records,
    read_records,
)
from tests.sparkload.records.test_columnar import record


def records(count: int, start: int = 0) -> list[dict]:
    return [record(request_id=f"0-{n}", user=n % 4) for n in range(start, start + count)]


def files(run_dir: Path) -> list[str]:
    return sorted(path.name for path in (run_dir / REQUESTS_PARQUET).iterdir())


def test_records_appended_in_batches_read_back_in_arrival_order_across_parts(tmp_path):
    writer = RequestsWriter(tmp_path, part_rows=5)
    taken = records(12)
    for start in range(0, 12, 3):
        writer.append(taken[start : start + 3])
    writer.close()
    assert files(tmp_path) == ["part-000000.parquet", "part-000001.parquet", "part-000002.parquet"]
    assert read_records(tmp_path) == taken


def test_a_full_part_is_written_and_its_pending_lines_removed_the_open_part_stays_pending(tmp_path):
    writer = RequestsWriter(tmp_path, part_rows=4)
    writer.append(records(6))
    assert files(tmp_path) == ["_pending-000001.jsonl", "part-000000.parquet"]
    assert (
        len((tmp_path / REQUESTS_PARQUET / "_pending-000001.jsonl").read_bytes().splitlines()) == 2
    )


def test_a_part_built_from_its_lines_holds_the_columns_to_batch_makes(tmp_path):
    taken = [*records(3), record(from_a_newer_worker={"nested": [1, 2]}), record(ttft=math.nan)]
    writer = RequestsWriter(tmp_path, part_rows=len(taken))
    writer.append(taken)
    part = pq.read_table(tmp_path / REQUESTS_PARQUET / "part-000000.parquet")
    assert part.equals(pa.Table.from_batches([to_batch(taken)]))


@pytest.mark.parametrize(
    "odd",
    [{"prompt_tokens": 12.5}, {"ttft": True}, {"ttft": "n/a"}, {"worker": 7}, {"level": 2**63}],
    ids=["float-in-int", "flag-in-float", "text-in-float", "int-in-text", "int-too-large"],
)
def test_a_part_whose_lines_hold_a_value_not_of_its_column_keeps_it(tmp_path, odd):
    taken = [*records(2), record(**odd)]
    writer = RequestsWriter(tmp_path, part_rows=len(taken))
    writer.append(taken)
    assert files(tmp_path) == ["part-000000.parquet"]
    assert read_records(tmp_path) == taken


def test_parts_built_in_a_thread_are_all_in_place_once_the_writer_is_closed(tmp_path):
    taken = records(11)
    with ThreadPoolExecutor(1) as pool:
        writer = RequestsWriter(tmp_path, part_rows=4, build=pool.submit)
        for start in range(0, 11, 2):
            writer.append(taken[start : start + 2])
        writer.close()
        assert files(tmp_path) == [f"part-00000{n}.parquet" for n in range(3)]
    assert read_records(tmp_path) == taken


def test_a_run_killed_before_its_close_keeps_every_record_it_took(tmp_path):
    writer = RequestsWriter(tmp_path, part_rows=4)
    writer.append(records(6))  # never closed: the process was killed
    assert read_records(tmp_path) == records(6)


def test_a_torn_last_pending_line_is_skipped_and_counted_naming_its_file(tmp_path):
    RequestsWriter(tmp_path, part_rows=4).append(records(6))
    with (tmp_path / REQUESTS_PARQUET / "_pending-000001.jsonl").open("ab") as pending:
        pending.write(b'{"request_id": "0-6", "lev')
    reader = RequestsReader(tmp_path)
    assert reader.records() == records(6)
    assert reader.skipped == 1
    assert reader.skipped_in == {f"{REQUESTS_PARQUET}/_pending-000001.jsonl": 1}


def test_pending_lines_whose_part_was_written_are_read_once(tmp_path):
    """A kill between the part's rename and the pending file's removal leaves both."""
    writer = RequestsWriter(tmp_path, part_rows=4)
    writer.append(records(3))
    pending = (tmp_path / REQUESTS_PARQUET / "_pending-000000.jsonl").read_bytes()
    writer.close()
    (tmp_path / REQUESTS_PARQUET / "_pending-000000.jsonl").write_bytes(pending)
    assert read_records(tmp_path) == records(3)


def test_an_earlier_versions_requests_jsonl_is_read_with_its_torn_line_counted(tmp_path):
    lines = "".join(json.dumps(r) + "\n" for r in records(3))
    (tmp_path / REQUESTS_FILE).write_text(lines + '{"request_id": "torn')
    reader = RequestsReader(tmp_path)
    assert has_records(tmp_path)
    assert reader.records() == records(3)
    assert reader.skipped_in == {REQUESTS_FILE: 1}


def test_both_layouts_give_the_same_arrow_columns(tmp_path):
    old, new = tmp_path / "old", tmp_path / "new"
    old.mkdir(), new.mkdir()
    taken = records(7) + [record(request_id="x", status="error", error_kind="timeout", ttft=None)]
    (old / REQUESTS_FILE).write_text("".join(json.dumps(r) + "\n" for r in taken))
    writer = RequestsWriter(new, part_rows=3)
    writer.append(taken)
    writer.close()
    columns = ["ttft", "error_kind", "phase", "spec_histogram"]
    from_old = pa.Table.from_batches(RequestsReader(old).arrow_batches(columns))
    from_new = pa.Table.from_batches(RequestsReader(new).arrow_batches(columns))
    assert from_old.to_pylist() == from_new.to_pylist()
    assert from_new.schema == from_old.schema


def test_a_part_written_before_a_field_existed_reads_it_as_missing(tmp_path):
    writer = RequestsWriter(tmp_path, part_rows=2)
    writer.append(records(2))
    writer.close()
    (part,) = (tmp_path / REQUESTS_PARQUET).glob("*.parquet")
    pq.write_table(pq.read_table(part).drop_columns(["connect_time", "ttft"]), part)
    (batch,) = RequestsReader(tmp_path).arrow_batches(["ttft", "connect_time", "status"])
    assert batch.schema.names == ["ttft", "connect_time", "status"]
    assert batch.column("ttft").null_count == 2
    assert batch.column("status").to_pylist() == ["ok", "ok"]
    assert [r["request_id"] for r in read_records(tmp_path)] == ["0-0", "0-1"]


def test_a_damaged_part_is_named(tmp_path):
    writer = RequestsWriter(tmp_path, part_rows=2)
    writer.append(records(2))
    (tmp_path / REQUESTS_PARQUET / "part-000000.parquet").write_bytes(b"not parquet")
    with pytest.raises(ValueError, match="part-000000.parquet: not a readable Parquet part"):
        read_records(tmp_path)


def test_a_directory_without_records_has_none(tmp_path):
    assert not has_records(tmp_path)
    assert read_records(tmp_path) == []
