"""SSE framing off the wire, and the kernel's receive stamps that time each event."""

from __future__ import annotations

import socket
import time

from sparkload.transport.sse import kernel_stamps_enabled, pop_events, receive


def test_complete_events_are_popped_and_a_partial_one_stays_in_the_buffer():
    buffer = bytearray(b'data: {"a":1}\n\ndata: {"b":2}\n\ndata: {"c"')
    assert pop_events(buffer) == [b'{"a":1}', b'{"b":2}']
    assert buffer == bytearray(b'data: {"c"')


def test_several_data_lines_are_joined_and_comments_and_other_fields_skipped():
    buffer = bytearray(b": keep-alive\n\nevent: message\nid: 7\ndata: first\ndata:second\n\n")
    assert pop_events(buffer) == [b"first\nsecond"]


def test_kernel_stamps_the_arrival_not_the_later_read():
    with socket.create_server(("127.0.0.1", 0)) as server:
        left = socket.create_connection(server.getsockname())
        right, _ = server.accept()
    try:
        stamped = kernel_stamps_enabled(right)
        left.sendall(
            b": prime\n\n"
        )  # the kernel turns stamping on lazily: the first packet may miss it
        time.sleep(0.05)
        receive(right, stamped)
        sent = time.time_ns()
        left.sendall(b"data: x\n\n")
        time.sleep(0.05)  # read 50 ms after the bytes arrived
        data, arrival = receive(right, stamped)
        read_at = time.time_ns()
    finally:
        left.close()
        right.close()
    assert stamped and data == b"data: x\n\n"
    assert (
        sent <= arrival < sent + 20_000_000 < read_at
    )  # stamped on arrival, within 20 ms of sending
