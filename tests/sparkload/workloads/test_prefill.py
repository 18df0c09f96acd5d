"""The prefill probe's record: its prefill time, and a reply with no visible token marked so."""

from __future__ import annotations

from sparkload.records import STATUS_OK, RequestRecord
from sparkload.workloads import registry
from sparkload.workloads.contract import Slot
from tests.options import run_options


def probed(chunks: int, ttft: float | None) -> RequestRecord:
    workload = registry.load(run_options("--workload", "prefill"))
    user = workload.new_user(0, lambda: 0)
    planned = workload.next_request(user, Slot(0))
    record = RequestRecord("r", 1, 0, "measure", "local", 0, "u", "m", 0, 1, 0.0)
    record.status, record.chunks, record.ttft, record.latency = STATUS_OK, chunks, ttft, 0.3
    record.output_tokens = 1
    workload.after(user, planned, record, None)
    return record


def test_a_probe_whose_only_token_was_invisible_takes_the_streams_end_as_its_prefill_time():
    record = probed(chunks=0, ttft=None)
    assert record.extra["prefill_s"] == 0.3
    assert record.extra["visible_output"] is False


def test_a_probe_with_its_token_takes_ttft_as_its_prefill_time():
    record = probed(chunks=1, ttft=0.2)
    assert record.extra["prefill_s"] == 0.2
    assert "visible_output" not in record.extra
