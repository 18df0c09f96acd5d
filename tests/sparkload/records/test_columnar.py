"""A record dict survives the trip to Arrow columns and back whole, typed column by column."""

from __future__ import annotations

import math
from dataclasses import fields as dataclass_fields
from dataclasses import replace

import pyarrow as pa
import pytest

from sparkload.records import RequestRecord
from sparkload.records.columnar import SCHEMA, UNKNOWN_COLUMN, to_batch, to_records

RECORD_FIELDS = {field.name for field in dataclass_fields(RequestRecord)}


def record(**fields) -> dict:
    """A streamed, answered request as RequestRecord.to_dict writes it (its derived metrics
    filled), with ``fields`` on top (a name RequestRecord does not have: at the end)."""
    base = RequestRecord(
        request_id="0-17",
        level=4,
        level_index=1,
        phase="measure",
        worker="0",
        user=3,
        endpoint="http://127.0.0.1:8000/v1",
        model="qwen",
        prompt_index=12,
        max_tokens=128,
        start_time=1_767_225_600.123456,
        http_status=200,
        ttfb=0.0012,
        ttft=0.031,
        ttfc=0.031,
        t_last_token=0.536,
        latency=0.537,
        output_tokens=128,
        tokens_counted_by="usage",
        chunks=44,
        prompt_tokens=129,
        cached_tokens=0,
        finish_reason="length",
        response_id="chatcmpl-f20bd64c",
        spec_histogram=[12, 5, 3, 24],
        extra={"workload": "chat", "identical": False, "prompt_chars": 514},
    ).derive()
    known = {name: value for name, value in fields.items() if name in RECORD_FIELDS}
    return {**replace(base, **known).to_dict(), **fields}


def round_trip(records: list[dict]) -> list[dict]:
    return list(to_records(to_batch(records)))


def test_a_record_comes_back_equal_with_its_keys_in_the_same_order():
    original = record()
    (back,) = round_trip([original])
    assert back == original
    assert list(back) == list(original)


def test_fields_left_out_when_none_stay_out_and_fields_some_records_have_come_back():
    plain = record()
    agent = record(session_id="s1", turn=2, turns=3, step="tool_call", tool_calls=1)
    assert round_trip([plain, agent]) == [plain, agent]


def test_a_failure_keeps_its_kind_and_text_and_its_unmeasured_fields_null():
    failed = record(status="error", error_kind="http_500", error="boom", ttft=None, latency=None)
    (back,) = round_trip([failed])
    assert back == failed and back["ttft"] is None


def test_a_key_the_schema_has_no_column_for_comes_back_under_its_own_name():
    newer = record(from_a_newer_worker={"nested": [1, 2]})
    assert round_trip([newer, record()]) == [newer, record()]


def test_a_value_not_of_its_columns_type_comes_back_as_it_was():
    odd = record(prompt_tokens=12.5, ttft="n/a", worker=7)
    batch = to_batch([odd, record()])
    assert batch.column("prompt_tokens").to_pylist() == [None, 129]
    assert list(to_records(batch)) == [odd, record()]


def test_a_nan_reads_as_null_as_json_lines_wrote_it():
    (back,) = round_trip([record(ttft=math.nan)])
    assert back["ttft"] is None


def test_the_columns_are_typed_by_the_record_fields():
    types = {field.name: field.type for field in SCHEMA}
    assert types["ttft"] == pa.float64() and types["output_tokens"] == pa.int64()
    assert types["resent"] == pa.bool_()
    assert types["error_kind"] == pa.dictionary(pa.int32(), pa.string())
    assert types["request_id"] == pa.string()
    assert types["spec_histogram"] == pa.list_(pa.int64())
    assert types["extra"] == pa.string() and types[UNKNOWN_COLUMN] == pa.string()


def test_a_batch_of_another_layout_is_refused():
    foreign = pa.RecordBatch.from_pydict({"ttft": [0.1]})
    with pytest.raises(ValueError, match="not a sparkload records layout"):
        list(to_records(foreign))
