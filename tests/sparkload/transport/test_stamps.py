"""The kernel's receive stamps on the process's clock: kept, translated, or replaced by read
times (sparkload.transport.stamps), and what sse.receive then returns."""

from __future__ import annotations

import socket
import time
from collections.abc import Iterator
from contextlib import contextmanager

from sparkload.transport import stamps
from sparkload.transport.sse import kernel_stamps_enabled, receive
from sparkload.transport.stamps import KERNEL, READ, TRANSLATED, StampClock, Window, decide, sample

SECOND = 1_000_000_000


def burst(split_ns: int, width_ns: int = 4_000) -> list[Window]:
    """Samples whose kernel stamp sits ``split_ns`` after the process's clock."""
    return [Window(t, t + width_ns // 2 + split_ns, t + width_ns) for t in (0, 10_000, 20_000)]


@contextmanager
def clock_in_use(clock: StampClock) -> Iterator[None]:
    saved = stamps.active
    stamps.use(clock)
    try:
        yield
    finally:
        stamps.use(saved)


@contextmanager
def connected_pair() -> Iterator[tuple[socket.socket, socket.socket]]:
    with socket.create_server(("127.0.0.1", 0)) as server:
        left = socket.create_connection(server.getsockname())
        right, _ = server.accept()
    try:
        yield left, right
    finally:
        left.close()
        right.close()


def test_a_host_whose_clock_is_the_kernels_keeps_the_stamps_as_they_are():
    assert decide(burst(3_000), burst(-2_000)).method == KERNEL


def test_a_steady_split_is_translated_and_its_uncertainty_is_half_the_narrowest_window():
    clock = decide(burst(-2 * SECOND), burst(-2 * SECOND))
    assert (clock.method, clock.split_ns, clock.shift_ns) == (TRANSLATED, -2 * SECOND, -2 * SECOND)
    assert clock.uncertainty_ns == 2_000


def test_a_split_inside_a_busy_hosts_wide_window_is_no_split():
    """Preempted between its reads, every window is 40 ms wide: a 12 ms split within it says
    nothing of another clock, and the stamps are kept as they are."""
    wide = 40_000_000
    assert decide(burst(12_000_000, wide), burst(-9_000_000, wide)).method == KERNEL


def test_a_split_beyond_its_window_is_still_measured():
    assert decide(burst(30_000_000, 4_000_000), burst(30_000_000, 4_000_000)).method == TRANSLATED


def test_the_narrowest_window_of_a_burst_gives_the_split():
    wide = Window(0, 500_000 - 2 * SECOND, 1_000_000)  # a read delayed by half a millisecond
    narrow = Window(2_000_000, 2_001_000 - 2 * SECOND, 2_002_000)
    clock = decide([wide, narrow], [narrow])
    assert clock.split_ns == -2 * SECOND and clock.uncertainty_ns == 1_000


def test_a_split_that_moves_between_the_bursts_falls_back_to_read_times():
    clock = decide(burst(-2 * SECOND), burst(-2 * SECOND + 50_000_000))  # a clock at 2x rate
    assert clock.method == READ and not clock.uses_kernel_stamps and clock.shift_ns == 0


def test_the_manifest_entry_gives_the_split_in_ms_and_the_uncertainty_in_us():
    assert StampClock(TRANSLATED, -2_000_123_456, 3_210).describe() == {
        "method": "translated",
        "split_ms": -2000.123,
        "uncertainty_us": 3.2,
    }


def test_on_this_host_the_kernels_stamp_falls_between_the_reads_around_the_send():
    windows = sample(8)
    assert decide(windows, windows).method == KERNEL
    assert all(w.before <= w.stamp for w in windows)


def test_a_shifted_process_clock_is_measured_to_within_its_window():
    def ahead() -> int:  # this process's clock 2 s ahead of the kernel's
        return time.time_ns() + 2 * SECOND

    clock = decide(sample(8, ahead), sample(8, ahead))
    assert clock.method == TRANSLATED
    assert abs(clock.split_ns + 2 * SECOND) <= clock.uncertainty_ns + 1_000_000


def test_a_translated_stamp_is_on_the_process_clock():
    with clock_in_use(StampClock(TRANSLATED, -2 * SECOND)), connected_pair() as (left, right):
        stamped = kernel_stamps_enabled(right)
        left.sendall(b": prime\n\n")  # the kernel turns stamping on lazily
        time.sleep(0.05)
        receive(right, stamped)
        sent = time.time_ns()
        left.sendall(b"data: x\n\n")
        time.sleep(0.01)
        _data, arrival = receive(right, stamped)
    assert stamped
    assert sent + 2 * SECOND <= arrival < sent + 2 * SECOND + 10_000_000


def test_no_socket_asks_for_kernel_stamps_when_read_times_were_chosen():
    with clock_in_use(StampClock(READ)), connected_pair() as (_left, right):
        assert not kernel_stamps_enabled(right)
