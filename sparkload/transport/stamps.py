"""The kernel's receive stamps on this process's clock.

sparkload takes a request's send time from ``time.time_ns()`` and its receive times from the
kernel's packet stamps (``SO_TIMESTAMPNS``, ``transport.sse``). On a real host these are one
clock, CLOCK_REALTIME. A process whose clock calls are intercepted (``faketime``'s
LD_PRELOAD library, a test that shifts a worker's wall clock) reads a time the kernel does not
stamp with: every receive would sit seconds before its send, be clamped to it, and each record
would say ``clock_adjusted`` with every duration zero.

``calibrate`` measures the split with loopback datagrams at start: each one's kernel stamp
against ``time.time_ns()`` read just before and after its send. The stamp falls between the two
reads on one clock, so the split lies in each sample's window; the narrowest window gives it to
a few microseconds. ``decide`` then picks how this process times its receives:

- ``kernel``: no split (within ``NEGLIGIBLE_NS``): the stamps as they are;
- ``translated``: a steady split: each stamp minus the split, still the packet's own time (the
  uncertainty is the calibration's, microseconds);
- ``read``: a split that moved between the two bursts of samples (a faked clock that runs at
  another rate, or jumps): the read times, late by the event loop's delay (0.4-9 ms in
  ``benchmarks/client_accuracy.py``; ``benchmarks/faked_clock.py`` measures both under faketime).

The decision is process-wide (``use``), kept in the manifest per process (``describe``).
"""

from __future__ import annotations

import socket
import struct
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field

import gevent

KERNEL = "kernel"
TRANSLATED = "translated"
READ = "read"

SAMPLES = 8  # datagrams per burst
BURST_GAP = 0.05  # seconds between the two bursts: a clock running at another rate shows in it
NEGLIGIBLE_NS = 1_000_000  # a split under 1 ms is no split: real hosts measure microseconds
STEADY_NS = 1_000_000  # the two bursts' splits agree within this: translate, else read times

SO_TIMESTAMPNS = getattr(socket, "SO_TIMESTAMPNS", 35 if sys.platform.startswith("linux") else None)


@dataclass(frozen=True)
class Window:
    """One datagram: the process's clock just before and after its send, and the kernel's
    stamp of its arrival (loopback: the arrival happens inside the send)."""

    before: int
    stamp: int
    after: int

    @property
    def split(self) -> int:
        """The kernel's clock minus the process's, at the window's middle."""
        return self.stamp - (self.before + self.after) // 2

    @property
    def width(self) -> int:
        return self.after - self.before


@dataclass(frozen=True)
class StampClock:
    """How this process times receives: the method, and what a kernel stamp is shifted by."""

    method: str = KERNEL
    split_ns: int = 0  # kernel stamp - process clock; subtracted when ``translated``
    uncertainty_ns: int = 0  # half the narrowest calibration window
    note: str = ""  # why, when calibration could not run
    # what every kernel stamp is shifted by: a field, not a property, as it is read once a read
    shift_ns: int = field(init=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "shift_ns", self.split_ns if self.method == TRANSLATED else 0)

    @property
    def uses_kernel_stamps(self) -> bool:
        return self.method != READ

    def describe(self) -> dict:
        """The manifest's entry: method, split (ms) and its uncertainty (us)."""
        entry: dict = {
            "method": self.method,
            "split_ms": round(self.split_ns / 1e6, 3),
            "uncertainty_us": round(self.uncertainty_ns / 1e3, 1),
        }
        if self.note:
            entry["note"] = self.note
        return entry


def best(windows: list[Window]) -> Window:
    """The sample with the narrowest window: the least time between the two reads."""
    return min(windows, key=lambda window: window.width)


def decide(first: list[Window], second: list[Window]) -> StampClock:
    """The method for two bursts of samples taken ``BURST_GAP`` apart (pure).

    A split no larger than its window's half-width plus ``NEGLIGIBLE_NS`` is no split: the stamp
    fell between the two reads on one clock. A busy host that preempts the sender between its
    reads widens every window, and a split measured across such a window is not evidence of
    another clock (translating by it would shift every receive by the noise)."""
    a, b = best(first), best(second)
    uncertainty = max(a.width, b.width) // 2
    if all(abs(w.split) <= NEGLIGIBLE_NS + w.width // 2 for w in (a, b)):
        return StampClock(KERNEL, 0, uncertainty)
    if abs(a.split - b.split) <= STEADY_NS:
        return StampClock(
            TRANSLATED, (a.split + b.split) // 2, uncertainty + abs(a.split - b.split)
        )
    return StampClock(READ, b.split, uncertainty)


def sample(count: int, clock: Callable[[], int] = time.time_ns) -> list[Window]:
    """``count`` loopback datagrams, each with its kernel stamp and the clock around its send."""
    if SO_TIMESTAMPNS is None:
        raise OSError("no kernel receive stamps on this system")
    receiver = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    sender = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    try:
        receiver.setsockopt(socket.SOL_SOCKET, SO_TIMESTAMPNS, 1)
        receiver.bind(("127.0.0.1", 0))
        receiver.settimeout(1.0)
        address = receiver.getsockname()
        windows = []
        for _ in range(count):
            before = clock()
            sender.sendto(b"t", address)
            after = clock()
            _data, ancillary, _flags, _from = receiver.recvmsg(16, socket.CMSG_SPACE(16))
            stamps = [
                payload
                for level, kind, payload in ancillary
                if level == socket.SOL_SOCKET and kind == SO_TIMESTAMPNS
            ]
            if not stamps:
                raise OSError("the kernel gave no receive stamp")
            seconds, nanoseconds = struct.unpack("qq", stamps[0][:16])
            windows.append(Window(before, seconds * 1_000_000_000 + nanoseconds, after))
        return windows
    finally:
        receiver.close()
        sender.close()


def calibrate() -> StampClock:
    """Measure this process's clock against the kernel's stamps (two bursts, ``BURST_GAP``
    apart; under a millisecond of work). Where it cannot (no loopback, no stamps), the stamps
    are used as they are, and the note says why."""
    try:
        first = sample(SAMPLES)
        gevent.sleep(BURST_GAP)
        second = sample(SAMPLES)
    except OSError as exc:
        return StampClock(KERNEL, note=f"not calibrated: {exc}")
    return decide(first, second)


active = StampClock()  # this process's; sparkload.transport.sse reads it on every receive


def use(clock: StampClock) -> None:
    """Make ``clock`` this process's way of timing receives."""
    global active
    active = clock
