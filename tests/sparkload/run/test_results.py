"""The run directory's writer: records in parts as they arrive, a finished repetition's records
written out before the next one runs, late records kept."""

from __future__ import annotations

from sparkload.records import Manifest
from sparkload.records.requests_files import read_records
from sparkload.run.results import ResultsWriter
from tests.sparkload.records.test_columnar import record


def parts(writer: ResultsWriter) -> list[str]:
    return sorted(path.name for path in (writer.path / "requests.parquet").iterdir())


def test_finishing_writes_the_records_taken_as_a_part(tmp_path):
    writer = ResultsWriter(tmp_path, Manifest(label="x"))
    writer.append_records([record(request_id="a"), record(request_id="b")])
    assert parts(writer) == ["_pending-000000.jsonl"]
    writer.finish("complete")
    assert parts(writer) == ["part-000000.parquet"]


def test_records_arriving_after_the_finish_are_kept_in_a_part_of_their_own(tmp_path):
    writer = ResultsWriter(tmp_path, Manifest(label="x"))
    writer.append_records([record(request_id="a")])
    writer.finish("complete")
    writer.append_records([record(request_id="late")])
    writer.close()
    assert parts(writer) == ["part-000000.parquet", "part-000001.parquet"]
    assert [r["request_id"] for r in read_records(writer.path)] == ["a", "late"]
