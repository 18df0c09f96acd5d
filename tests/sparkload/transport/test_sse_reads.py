"""Reading a stream's body read by read: each event gets its packet's kernel stamp, and time
never runs backwards within a request.

No scripted server can make the kernel stamp a later packet earlier than the one before it, so
these tests hand geventhttpclient's own response parser a socket whose packets arrive with
chosen ``SO_TIMESTAMPNS`` stamps (tests/packets.py).
"""

from __future__ import annotations

import gzip
import socket
import ssl
import struct
import time
import zlib

import pytest
from geventhttpclient.response import HTTPSocketResponse

from sparkload.transport.sse import (
    READ_SIZE,
    SO_TIMESTAMPNS,
    BodyDecodeError,
    Ending,
    body_decoder,
    drain,
    kernel_stamps_enabled,
    pop_events,
    read_events,
    receive,
)
from tests.packets import END, HEADERS, SECOND, PacketSocket, chunk, event, stamped, timestamp


def response_on(sock: PacketSocket, headers: bytes = HEADERS) -> HTTPSocketResponse:
    """geventhttpclient's response, its headers read off the socket's first packet."""
    sock.packets.insert(0, (headers, []))
    return HTTPSocketResponse(sock, method="POST")


def read_all(response, arrival: int = 0, decode=None) -> tuple[list[tuple[bytes, int]], Ending]:
    """Every event up to ``[DONE]`` with its arrival time, and how reading ended."""
    events: list[tuple[bytes, int]] = []

    def on_event(data: bytes, at: int) -> bool:
        events.append((data, at))
        return data == b"[DONE]"

    ending = read_events(response, on_event, arrival, True, decode)
    return events, ending


def test_a_read_stamped_before_the_previous_one_takes_the_previous_reads_time():
    sock = stamped((event("a"), 1000), (event("b"), 3000), (event("c"), 2000), (event("d"), 4000))
    sock.packets.append((b"", []))
    events, _ = read_all(response_on(sock))
    assert events == [(b"a", 1000), (b"b", 3000), (b"c", 3000), (b"d", 4000)]


def test_a_read_stamped_before_the_previous_one_marks_the_request_clock_adjusted():
    sock = stamped((event("a"), 3000), (event("b"), 2000), (event("[DONE]"), 4000))
    assert read_all(response_on(sock))[1] == Ending(done=True, clock_adjusted=True)


def test_reads_stamped_in_order_or_at_the_same_instant_keep_their_times_and_the_clock():
    sock = stamped((event("a"), 1000), (event("b"), 1000), (event("[DONE]"), 2500))
    events, ending = read_all(response_on(sock), arrival=900)
    assert events == [(b"a", 1000), (b"b", 1000), (b"[DONE]", 2500)]
    assert ending == Ending(done=True, clock_adjusted=False)


def test_a_read_stamped_before_the_headers_takes_the_headers_time():
    sock = stamped((event("a"), 500), (event("[DONE]"), 2000))
    events, ending = read_all(response_on(sock), arrival=1000)
    assert events[0] == (b"a", 1000) and ending.clock_adjusted


def test_events_that_came_with_the_headers_carry_the_time_given_for_them():
    sock = stamped((event("b"), 2000), (event("[DONE]"), 3000))
    events, _ = read_all(response_on(sock, HEADERS + event("a")), arrival=1500)
    assert events[:2] == [(b"a", 1500), (b"b", 2000)]


def test_several_events_in_one_packet_share_its_stamp():
    sock = stamped((event("a") + event("b"), 1000), (event("[DONE]"), 2000))
    assert read_all(response_on(sock))[0][:2] == [(b"a", 1000), (b"b", 1000)]


def test_an_event_split_over_two_packets_arrives_with_the_second():
    whole = b'data: {"x": 1}\n\n'
    sock = stamped((chunk(whole[:7]), 1000), (chunk(whole[7:]), 2000), (event("[DONE]"), 3000))
    assert read_all(response_on(sock))[0][0] == (b'{"x": 1}', 2000)


def test_reading_stops_at_the_event_that_ends_the_stream():
    sock = stamped((event("a"), 1000), (event("[DONE]"), 2000), (END, 3000))
    events, ending = read_all(response_on(sock))
    assert ending == Ending(done=True, clock_adjusted=False)
    assert len(sock.packets) == 1  # the closing chunk is left for ``drain``


def test_a_connection_closed_before_the_end_event_is_not_done():
    sock = stamped((event("a"), 1000), (b"", 2000))
    events, ending = read_all(response_on(sock))
    assert events == [(b"a", 1000)]
    assert ending == Ending(done=False, clock_adjusted=False)


def test_a_complete_body_without_the_end_event_is_not_done_and_not_read_further():
    sock = stamped((event("a"), 1000), (END, 2000))
    events, ending = read_all(response_on(sock))
    assert events == [(b"a", 1000)]
    assert ending == Ending(done=False, clock_adjusted=False)


def test_a_complete_body_read_whole_with_the_headers_is_not_read_further():
    response = response_on(stamped(), HEADERS + event("a") + END)
    events, ending = read_all(response, arrival=700)
    assert (events, ending) == ([(b"a", 700)], Ending(done=False, clock_adjusted=False))


def test_a_late_stamp_after_a_raised_one_still_marks_the_request():
    sock = stamped((event("a"), 3000), (event("b"), 2000), (b"", 4000))
    assert read_all(response_on(sock))[1] == Ending(done=False, clock_adjusted=True)


def test_events_with_crlf_line_ends_are_each_found():
    body = b"data: a\r\n\r\ndata: b\r\ndata: c\r\n\r\n"
    sock = stamped((chunk(body), 1000), (event("[DONE]"), 2000))
    assert [data for data, _ in read_all(response_on(sock))[0]] == [b"a", b"b\nc", b"[DONE]"]


def test_a_crlf_line_end_split_between_two_packets_is_still_found():
    sock = stamped((chunk(b"data: a\r"), 1000), (chunk(b"\n\r\n"), 2000), (event("[DONE]"), 3000))
    assert read_all(response_on(sock))[0][0] == (b"a", 2000)


def test_a_compressed_body_is_decoded_packet_by_packet_each_event_at_its_packets_time():
    compressor = zlib.compressobj(wbits=31)
    first = compressor.compress(b"data: a\n\n") + compressor.flush(zlib.Z_SYNC_FLUSH)
    second = compressor.compress(b"data: [DONE]\n\n") + compressor.flush()
    sock = stamped((chunk(first), 1000), (chunk(second), 2000))
    events, ending = read_all(response_on(sock), decode=body_decoder("gzip"))
    assert events == [(b"a", 1000), (b"[DONE]", 2000)] and ending.done


def test_a_compressed_body_that_came_with_the_headers_is_decoded_too():
    body = gzip.compress(b"data: a\n\ndata: [DONE]\n\n")
    response = response_on(stamped(), HEADERS + chunk(body))
    events, _ = read_all(response, arrival=800, decode=body_decoder("gzip"))
    assert events == [(b"a", 800), (b"[DONE]", 800)]


def test_draining_reads_the_closing_chunk_so_the_connection_can_take_the_next_request():
    sock = stamped((event("[DONE]"), 1000), (END, 2000))
    response = response_on(sock)
    read_all(response)
    assert not response.message_complete
    drain(response)
    assert response.message_complete and sock.packets == []


def test_draining_a_connection_closed_before_the_closing_chunk_just_returns():
    sock = stamped((event("[DONE]"), 1000), (b"", 2000))
    response = response_on(sock)
    read_all(response)
    drain(response)
    assert not response.message_complete and sock.packets == []


def test_draining_a_complete_message_reads_nothing():
    response = response_on(stamped(), HEADERS + event("[DONE]") + END)
    drain(response)
    assert response.message_complete


def test_an_empty_event_is_skipped_and_the_events_after_it_popped():
    buffer = bytearray(b"\n\ndata: x\n\n")
    assert pop_events(buffer) == [b"x"] and buffer == bytearray()


def test_a_carriage_return_ending_a_data_line_is_not_part_of_the_data():
    assert pop_events(bytearray(b"data: x \r\n\n")) == [b"x "]


def test_only_carriage_returns_are_trimmed_from_the_end_of_a_data_line():
    assert pop_events(bytearray(b"data: MAX\r\n\n")) == [b"MAX"]


def test_an_unstamped_read_is_timed_when_it_is_read():
    left, right = socket.socketpair()
    with left, right:
        left.sendall(b"data: x\n\n")
        before = time.time_ns()
        data, at = receive(right, False)
        after = time.time_ns()
    assert data == b"data: x\n\n" and before <= at <= after


def test_a_stamped_read_takes_the_kernels_stamp():
    assert receive(stamped((b"x", 5 * SECOND + 7)), True) == (b"x", 5 * SECOND + 7)


def test_a_stamped_read_that_came_without_a_stamp_is_timed_when_it_is_read():
    before = time.time_ns()
    data, at = receive(PacketSocket([(b"x", [])]), True)
    assert data == b"x" and before <= at <= time.time_ns()


def test_other_control_messages_are_not_taken_for_the_stamp():
    other_level = (socket.IPPROTO_IP, SO_TIMESTAMPNS, struct.pack("qq", 1, 0))
    other_kind = (socket.SOL_SOCKET, SO_TIMESTAMPNS + 1, struct.pack("qq", 2, 0))
    sock = PacketSocket([(b"x", [other_level, other_kind, timestamp(3 * SECOND)])])
    assert receive(sock, True) == (b"x", 3 * SECOND)


def test_a_read_asks_for_a_whole_buffer_and_room_for_the_stamp():
    asked = []

    class Recording(PacketSocket):
        def recvmsg(self, size, ancillary_size=0):
            asked.append((size, ancillary_size))
            return super().recvmsg(size, ancillary_size)

    receive(Recording([(b"x", [timestamp(SECOND)])]), True)
    assert asked == [(READ_SIZE, socket.CMSG_SPACE(16))]


def test_a_plain_tcp_socket_is_stamped_by_the_kernel():
    with socket.socket() as sock:
        assert kernel_stamps_enabled(sock)
        assert sock.getsockopt(socket.SOL_SOCKET, SO_TIMESTAMPNS) == 1


def test_a_tls_socket_is_not_stamped():
    context = ssl.create_default_context()
    with context.wrap_socket(socket.socket(), server_hostname="localhost") as tls:
        assert not kernel_stamps_enabled(tls)


def test_a_socket_that_refuses_the_option_is_not_stamped():
    sock = socket.socket()
    sock.close()
    assert not kernel_stamps_enabled(sock)


@pytest.mark.parametrize("coding", ["gzip", "x-gzip", "GZip ", "deflate"])
def test_gzip_and_deflate_bodies_are_decoded(coding):
    body = zlib.compress(b"data: x\n\n") if coding == "deflate" else gzip.compress(b"data: x\n\n")
    assert body_decoder(coding)(body) == b"data: x\n\n"


def test_an_unknown_coding_is_refused_naming_at_most_its_first_40_characters():
    with pytest.raises(BodyDecodeError) as refused:
        body_decoder("z" * 50)
    assert str(refused.value) == f"unsupported Content-Encoding: {'z' * 40!r}"
