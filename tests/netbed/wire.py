"""The links of the test bed, emulated in user space: ``python tests/netbed/wire.py``.

One TUN device in each host's network namespace, all read by this one process: a packet from
host A to host B waits A's link delay plus B's (as netem on each end of a veth to a switch
would hold it), is dropped with either link's loss, and is then written to B's device. This
kernel has no ``sch_netem`` (CONFIG_NET_SCH_NETEM is not set), so the bed cannot ask ``tc``.
Runs as root (it enters each namespace to open its device), prints ``READY`` once every device
exists, and exits at its deadline or on SIGTERM; its devices vanish with it.
"""

from __future__ import annotations

import argparse
import contextlib
import ctypes
import fcntl
import heapq
import os
import random
import select
import signal
import struct
import sys
import time
from dataclasses import dataclass

TUNSETIFF = 0x400454CA
IFF_TUN = 0x0001
IFF_NO_PI = 0x1000
CLONE_NEWNET = 0x40000000
DEVICE = "slw0"  # the device's name inside every namespace
READY = "READY"


@dataclass(frozen=True)
class Link:
    """A host's link to the switch: where it lives, its address, one-way delay and loss."""

    netns: str
    address: bytes  # IPv4, packed
    delay: float  # seconds
    loss: float  # 0..1

    @classmethod
    def parse(cls, text: str) -> Link:
        """``NETNS,ADDRESS,DELAY_MS,LOSS``."""
        netns, address, delay_ms, loss = text.split(",")
        packed = bytes(int(part) for part in address.split("."))
        return cls(netns, packed, float(delay_ms) / 1000, float(loss))


def open_device(netns: str) -> int:
    """A TUN device named DEVICE inside ``netns``, opened from here (setns there and back)."""
    libc = ctypes.CDLL(None, use_errno=True)
    home = os.open("/proc/self/ns/net", os.O_RDONLY)
    there = os.open(f"/var/run/netns/{netns}", os.O_RDONLY)
    try:
        if libc.setns(there, CLONE_NEWNET) != 0:
            raise OSError(ctypes.get_errno(), f"setns into {netns}")
        try:
            fd = os.open("/dev/net/tun", os.O_RDWR | os.O_NONBLOCK)
            fcntl.ioctl(fd, TUNSETIFF, struct.pack("16sH", DEVICE.encode(), IFF_TUN | IFF_NO_PI))
        finally:
            if libc.setns(home, CLONE_NEWNET) != 0:
                raise OSError(ctypes.get_errno(), "setns back home")
    finally:
        os.close(home)
        os.close(there)
    return fd


def run(links: list[Link], deadline: float, seed: int) -> None:
    devices = {open_device(link.netns): link for link in links}
    by_address = {link.address: fd for fd, link in devices.items()}
    print(READY, flush=True)
    rng = random.Random(seed)
    queue: list[tuple[float, int, int, bytes]] = []  # (due, order, device, packet)
    order = 0
    end = time.monotonic() + deadline
    while (now := time.monotonic()) < end:
        while queue and queue[0][0] <= now:
            _due, _order, fd, packet = heapq.heappop(queue)
            with contextlib.suppress(BlockingIOError):  # a full queue drops it, as a queue would
                os.write(fd, packet)
        wait = min(queue[0][0] - now if queue else 0.1, end - now)
        readable, _, _ = select.select(list(devices), [], [], max(wait, 0))
        for fd in readable:
            packet = os.read(fd, 65536)
            out = by_address.get(packet[16:20]) if packet[:1] and packet[0] >> 4 == 4 else None
            if out is None:
                continue  # not IPv4 (IPv6 router solicitations), or nobody's address
            src, dst = devices[fd], devices[out]
            if rng.random() < src.loss or rng.random() < dst.loss:
                continue
            order += 1
            heapq.heappush(queue, (time.monotonic() + src.delay + dst.delay, order, out, packet))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="wire.py", description=__doc__)
    parser.add_argument(
        "--link", action="append", required=True, help="NETNS,ADDRESS,DELAY_MS,LOSS"
    )
    parser.add_argument("--deadline", type=float, required=True, help="seconds to run at most")
    parser.add_argument("--seed", type=int, default=0, help="of the packet losses")
    args = parser.parse_args(argv)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    run([Link.parse(text) for text in args.link], args.deadline, args.seed)
    return 0


if __name__ == "__main__":
    sys.exit(main())
