"""One request's times, exactly, from the packets' kernel stamps and the send time: the headers
read with the same stamped reads as the body, and no time before the send or before an earlier
read (a clock step, or a read that fell back to the read time).

The connection here is a stand-in whose one response (geventhttpclient's parser, sparkload's
StampedResponse) comes off a socket of scripted, stamped packets (tests/packets.py), so every
figure of the record is known to the nanosecond.
"""

from __future__ import annotations

import json
import time

import pytest

from sparkload.apis.chat import ChatStream
from sparkload.records import RequestRecord
from sparkload.transport.client import Answer, StampedResponse, StreamRequest, measure
from tests.packets import END, HEADERS, SECOND, PacketSocket, event, stamped

MS = 1_000_000
SENT = time.time_ns() + 3600 * SECOND  # a send time no real clock reading comes near


class Pool:
    """What a response hands its socket back to."""

    def release_socket(self, sock) -> None:
        pass

    def return_socket(self, sock) -> None:
        pass


class OneResponse:
    """A connection whose request, sent at SENT, is answered by ``packets`` (or fails)."""

    def __init__(self, sock: PacketSocket | None = None, error: Exception | None = None) -> None:
        self.sock, self.error, self.closed = sock, error, False

    def send(self, method: str, path: str, body: bytes, headers: dict) -> Answer:
        if self.error is not None:
            raise self.error
        return Answer(StampedResponse(self.sock, Pool(), True), SENT, True, False)

    def close(self) -> None:
        self.closed = True


def token(text: str, finish_reason: str | None = None) -> str:
    choice = {"index": 0, "delta": {"content": text}, "finish_reason": finish_reason}
    return json.dumps({"id": "chatcmpl-9", "choices": [choice]})


USAGE = json.dumps({"choices": [], "usage": {"prompt_tokens": 7, "completion_tokens": 3}})


def measured(connection: OneResponse, timeout: float = 5.0) -> RequestRecord:
    request = StreamRequest("/v1/chat/completions", b"{}", {}, timeout, ChatStream)
    record = RequestRecord("r", 1, 0, "measure", "local", 0, "h", "m", 0, 3, 0.0)
    return measure(connection, request, record)  # type: ignore[arg-type]


def stream_at(headers_at: int, *token_times: int) -> PacketSocket:
    """Headers at ``headers_at`` ns after the send, one token per later packet, then the end."""
    packets = [(HEADERS, SENT + headers_at)]
    *tokens, last = token_times
    packets += [(event(token(f"t{i}")), SENT + at) for i, at in enumerate(tokens)]
    packets.append((event(token("end", "length")) + event(USAGE), SENT + last))
    packets.append((event("[DONE]") + END, SENT + last + 2 * MS))
    return stamped(*packets)


def test_every_time_is_the_packets_stamp_minus_the_send():
    r = measured(OneResponse(stream_at(5 * MS, 20 * MS, 30 * MS, 45 * MS)))
    assert (r.status, r.clock_adjusted) == ("ok", False)
    assert r.start_time == pytest.approx(SENT / SECOND, abs=1e-6)  # epoch seconds of the send
    assert (r.ttfb, r.ttft, r.ttfc, r.t_last_token, r.latency) == (
        0.005,
        0.02,
        0.02,
        0.045,
        0.047,
    )
    assert (r.chunks, r.output_tokens, r.prompt_tokens, r.finish_reason) == (3, 3, 7, "length")
    assert r.itl == pytest.approx(0.0125) and r.chunk_gap_max == pytest.approx(0.015)


def test_the_first_byte_counts_when_the_headers_came_in_two_packets():
    sock = stream_at(8 * MS, 20 * MS, 30 * MS)
    head = sock.packets[0][0]
    sock.packets[0:1] = stamped((head[:10], SENT + 3 * MS), (head[10:], SENT + 8 * MS)).packets
    r = measured(OneResponse(sock))
    assert (r.ttfb, r.ttft, r.clock_adjusted) == (0.003, 0.02, False)


def test_headers_stamped_before_the_send_are_timed_at_the_send_and_marked():
    r = measured(OneResponse(stream_at(-4 * MS, 10 * MS, 20 * MS)))
    assert (r.ttfb, r.ttft, r.clock_adjusted) == (0.0, 0.01, True)


def test_a_first_byte_stamped_before_the_send_is_timed_at_the_send():
    sock = stream_at(6 * MS, 20 * MS, 30 * MS)
    head = sock.packets[0][0]
    sock.packets[0:1] = stamped((head[:10], SENT - 2 * MS), (head[10:], SENT + 6 * MS)).packets
    r = measured(OneResponse(sock))
    assert (r.ttfb, r.ttft) == (0.0, 0.02)


def test_a_body_read_stamped_before_the_headers_is_raised_to_them_and_marked():
    r = measured(OneResponse(stream_at(10 * MS, 4 * MS, 30 * MS)))
    assert (r.ttfb, r.ttft, r.t_last_token, r.clock_adjusted) == (0.01, 0.01, 0.03, True)
    assert min(r.chunk_gap_p50, r.itl) >= 0


def test_a_read_stamped_before_the_previous_one_is_raised_and_marked():
    r = measured(OneResponse(stream_at(5 * MS, 30 * MS, 20 * MS, 40 * MS)))
    assert (r.ttft, r.t_last_token, r.clock_adjusted) == (0.03, 0.04, True)
    assert r.chunk_gap_max == pytest.approx(0.01) and r.itl == pytest.approx(0.005)


def test_a_stream_cut_before_its_end_lasts_until_its_last_token_at_least():
    sock = stamped(
        (HEADERS, SENT + 5 * MS),
        (event(token("a")), SENT + 10 * SECOND),
        (b"", SENT + 11 * SECOND),
    )
    r = measured(OneResponse(sock))
    assert (r.error_kind, r.ttft, r.t_last_token) == ("disconnect", 10.0, 10.0)
    assert r.latency == 10.0  # the read time, an hour before SENT, does not shorten it


def test_a_failure_before_any_token_lasts_from_the_send_to_the_failure():
    before = time.time_ns()
    r = measured(OneResponse(error=ConnectionResetError("reset")))
    elapsed = (time.time_ns() - before) / SECOND
    assert (r.error_kind, r.error, r.ttft) == ("disconnect", "ConnectionResetError: reset", None)
    assert 0 <= r.latency <= elapsed


def test_a_silent_socket_is_a_timeout_naming_the_budget():
    connection = OneResponse(error=TimeoutError("timed out"))
    r = measured(connection, timeout=7)
    assert (r.error_kind, r.error) == ("timeout", "no data for 7 s")
    assert connection.closed


def test_a_fault_of_the_client_itself_is_a_client_error_not_an_exception():
    connection = OneResponse(error=RuntimeError("a bug"))
    r = measured(connection)
    assert (r.status, r.error_kind, r.error) == ("error", "client_error", "RuntimeError: a bug")
    assert connection.closed


def test_a_successful_stream_keeps_its_connection():
    connection = OneResponse(stream_at(5 * MS, 20 * MS))
    assert measured(connection).status == "ok" and not connection.closed
