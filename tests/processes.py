"""Masters and workers as separate processes on 127.0.0.1, each bounded in time, and a TCP
relay that keeps every byte that crosses it (what a worker and its master say to each other)."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import gevent
from gevent.server import StreamServer

from tests.conftest import kill_tree, locust_command

DEADLINE = 120  # seconds any process here may run
SECRET_NAMES = ("OPENAI_API_KEY", "SPARKLOAD_HEADER", "SPARKLOAD_WORKER_TOKEN")
FAKETIME = shutil.which("faketime")


def faked_clock(shift: str) -> list[str]:
    """The command prefix that runs a process with its wall clock shifted (Debian's faketime;
    the monotonic clock untouched)."""
    assert FAKETIME is not None
    return ["env", "FAKETIME_DONT_FAKE_MONOTONIC=1", FAKETIME, "-f", shift]


class Processes:
    """Processes started for one test; each one's output goes to its own file."""

    def __init__(self, directory: Path) -> None:
        self.directory = directory
        self.started: dict[str, subprocess.Popen] = {}

    def start(
        self,
        name: str,
        args: list[str],
        env: dict[str, str] | None = None,
        prefix: list[str] | None = None,
    ) -> subprocess.Popen:
        """``locust -f locustfiles/chat.py ARGS`` with only ``env``'s secrets (none inherited)."""
        clean = {k: v for k, v in os.environ.items() if k not in SECRET_NAMES}
        with (self.directory / f"{name}.log").open("w") as log:
            process = subprocess.Popen(
                [*(prefix or []), *locust_command(*args)],
                stdout=log,
                stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL,
                env={**clean, **(env or {})},
            )
        self.started[name] = process
        return process

    def wait(self, name: str, timeout: float = DEADLINE) -> int:
        return self.started[name].wait(timeout=timeout)

    def output(self, name: str) -> str:
        return (self.directory / f"{name}.log").read_text()

    def stop_all(self) -> None:
        for process in self.started.values():
            kill_tree(process)


@contextmanager
def processes(directory: Path) -> Iterator[Processes]:
    started = Processes(directory)
    try:
        yield started
    finally:
        started.stop_all()


@contextmanager
def recording_relay(port: int) -> Iterator[tuple[int, bytearray]]:
    """A relay on 127.0.0.1 to ``port``: yields its own port and every byte it carried."""
    seen = bytearray()

    def pipe(source: socket.socket, sink: socket.socket) -> None:
        try:
            while data := source.recv(65536):
                seen.extend(data)
                sink.sendall(data)
        except OSError:
            pass
        finally:
            source.close()
            sink.close()

    def handle(client: socket.socket, _address: object) -> None:
        upstream = socket.create_connection(("127.0.0.1", port))
        gevent.joinall([gevent.spawn(pipe, client, upstream), gevent.spawn(pipe, upstream, client)])

    server = StreamServer(("127.0.0.1", 0), handle)
    server.start()
    try:
        yield server.server_port, seen
    finally:
        server.stop(timeout=1)
