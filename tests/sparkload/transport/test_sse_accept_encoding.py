"""A compressed stream is decoded as it arrives, each event timed by its compressed bytes."""

from __future__ import annotations

import pytest

from sparkload.records import RequestRecord
from sparkload.transport.sse import BodyDecodeError, body_decoder
from tests.servers import Script, measure_on


def measured(script: Script, accept: str) -> tuple[RequestRecord, str]:
    records, server = measure_on(script, max_tokens=16, accept_encoding=accept)
    return records[0], server.requests[0][0]


@pytest.mark.parametrize("coding", ["gzip", "br"])
def test_a_stream_compressed_and_flushed_per_event_keeps_its_token_timing(coding):
    record, head = measured(Script(tokens=16, gap=0.004, encoding=coding), coding)
    assert f"Accept-Encoding: {coding}" in head
    assert (record.status, record.chunks, record.output_tokens) == ("ok", 16, 16), record.error
    assert 0.003 < record.chunk_gap_p50 < 0.02


def test_a_compressed_stream_flushed_only_at_the_end_is_read_whole():
    record, _ = measured(Script(tokens=16, gap=0.004, encoding="gzip", flush_each=False), "gzip")
    assert (record.status, record.chunks, record.output_tokens) == ("ok", 16, 16), record.error
    assert record.chunk_gap_p50 < 0.001  # every event decoded from the one final flush


def test_an_unreadable_content_coding_is_a_classified_failure():
    record, _ = measured(Script(tokens=4, extra_headers=b"Content-Encoding: zstd\r\n"), "identity")
    assert (record.status, record.error_kind) == ("error", "malformed_sse")
    assert "zstd" in record.error


def test_identity_needs_no_decoder_and_an_unknown_coding_is_refused():
    assert body_decoder(None) is None and body_decoder("identity") is None
    with pytest.raises(BodyDecodeError):
        body_decoder("compress")
