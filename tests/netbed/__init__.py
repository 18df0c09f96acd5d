"""A multi-host test bed on one machine: a network namespace per host, joined by emulated links.

``NetBed`` makes one namespace per ``Host`` (names unique to the test run), a TUN device in each
with an address of a private range that exists only inside them, and one process that carries
packets between the devices with each link's delay and loss (``tests.netbed.wire``: this
kernel has no netem). Processes run inside a host with ``ip netns exec``, under the host's own
name (a UTS namespace: a worker's Locust client id starts with it). Everything is bounded and
torn down on exit, failure included: the processes the bed started (by pid), the wire, the
namespaces. Needs root, iproute2 and /dev/net/tun (``unavailable`` says what is missing).
"""

from __future__ import annotations

import functools
import os
import secrets
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

from sparkload.run.simulator_process import ServerProcess
from tests.conftest import kill_tree
from tests.netbed.wire import DEVICE, READY

WIRE = str(Path(__file__).with_name("wire.py"))  # run as a script: it imports nothing here
SUBNET = "10.213.76"  # private (RFC 1918), used only inside the bed's namespaces
COMMAND_TIMEOUT = 10  # seconds for each ip(8) command


@dataclass(frozen=True)
class Host:
    """A host of the bed: its name, and its link's one-way delay and loss (a packet crosses
    two links, its sender's and its receiver's)."""

    name: str
    delay_ms: float = 0.0
    loss: float = 0.0


def require() -> None:
    """Skip the calling test, with the reason, where this machine cannot hold the bed."""
    why = unavailable()
    if why is not None:
        pytest.skip(f"no multi-host test bed here: {why}")


@functools.cache
def unavailable() -> str | None:
    """Why this machine cannot hold the bed, or None (asked once: it makes a namespace)."""
    if sys.platform != "linux":
        return "network namespaces are Linux's"
    if os.geteuid() != 0:
        return "making network namespaces needs root"
    for tool in ("ip", "unshare"):
        if shutil.which(tool) is None:
            return f"{tool} is not installed (iproute2, util-linux)"
    if not os.path.exists("/dev/net/tun"):
        return "no /dev/net/tun (the kernel's TUN driver)"
    probe = f"slprobe{secrets.token_hex(3)}"
    made = _ip("netns", "add", probe, check=False)
    if made.returncode != 0:
        return f"ip netns add failed: {made.stderr.strip()}"
    _ip("netns", "delete", probe, check=False)
    return None


class NetBed:
    """The hosts, their namespaces and links; ``start`` runs a process on a host."""

    def __init__(self, hosts: list[Host], directory: Path, deadline: float) -> None:
        self.hosts = {host.name: host for host in hosts}
        self.directory = directory
        self.deadline = deadline
        self.prefix = f"sl{os.getpid()}{secrets.token_hex(2)}-"
        self.addresses = {host.name: f"{SUBNET}.{i}" for i, host in enumerate(hosts, 1)}
        self.processes: dict[str, subprocess.Popen] = {}
        self.servers: list[ServerProcess] = []
        self._made: list[str] = []
        self._wire: subprocess.Popen | None = None

    def netns(self, host: str) -> str:
        return self.prefix + host

    def __enter__(self) -> NetBed:
        try:
            self._build()
        except BaseException:
            self.close()
            raise
        return self

    def __exit__(self, *_exc: object) -> None:
        self.close()

    def _build(self) -> None:
        for name in self.hosts:
            _ip("netns", "add", self.netns(name))
            self._made.append(self.netns(name))
            _ip("-n", self.netns(name), "link", "set", "lo", "up")
        links = [
            f"{self.netns(h.name)},{self.addresses[h.name]},{h.delay_ms},{h.loss}"
            for h in self.hosts.values()
        ]
        with (self.directory / "wire.log").open("w") as log:
            self._wire = subprocess.Popen(
                [sys.executable, WIRE, "--deadline", str(self.deadline)]
                + [arg for link in links for arg in ("--link", link)],
                stdout=subprocess.PIPE,
                stderr=log,
                stdin=subprocess.DEVNULL,
                text=True,
            )
        assert self._wire.stdout is not None
        if self._wire.stdout.readline().strip() != READY:
            raise RuntimeError(
                f"the wire did not start: {(self.directory / 'wire.log').read_text()}"
            )
        for name in self.hosts:
            netns = self.netns(name)
            _ip("-n", netns, "addr", "add", f"{self.addresses[name]}/24", "dev", DEVICE)
            _ip("-n", netns, "link", "set", DEVICE, "up")

    def command(self, host: str, argv: list[str]) -> list[str]:
        """``argv`` as run inside ``host``: its network namespace, its own host name."""
        as_host = f'hostname {host} && exec "$@"'
        return [
            "ip",
            "netns",
            "exec",
            self.netns(host),
            "unshare",
            "--uts",
            "sh",
            "-c",
            as_host,
            "sh",
            *argv,
        ]

    def start(
        self, host: str, name: str, argv: list[str], env: dict[str, str] | None = None
    ) -> subprocess.Popen:
        """Run ``argv`` on ``host``; its output goes to ``<directory>/<name>.log``."""
        with (self.directory / f"{name}.log").open("w") as log:
            process = subprocess.Popen(
                self.command(host, argv),
                stdout=log,
                stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL,
                env={**os.environ, **(env or {})},
            )
        self.processes[name] = process
        return process

    def serve(self, host: str, argv: list[str], ready_prefix: str, name: str) -> str:
        """Run a server on ``host`` that prints ``<ready_prefix><url>``; its URL."""
        server = ServerProcess(self.command(host, argv), ready_prefix, name)
        self.servers.append(server)
        return server.start()

    def kill(self, name: str) -> None:
        """SIGKILL a process started here, and whatever it started (faketime forks)."""
        kill_tree(self.processes[name])

    def output(self, name: str) -> str:
        return (self.directory / f"{name}.log").read_text()

    def close(self) -> None:
        for process in self.processes.values():
            kill_tree(process)
        for server in self.servers:
            server.stop()
        if self._wire is not None:
            self._wire.terminate()
            try:
                self._wire.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self._wire.kill()
                self._wire.wait()
        for netns in self._made:
            _ip("netns", "delete", netns, check=False)
        self._made.clear()


def _ip(*args: str, check: bool = True) -> subprocess.CompletedProcess:
    done = subprocess.run(
        ["ip", *args],
        capture_output=True,
        text=True,
        timeout=COMMAND_TIMEOUT,
        stdin=subprocess.DEVNULL,
    )
    if check and done.returncode != 0:
        raise RuntimeError(f"ip {' '.join(args)}: {done.stderr.strip()}")
    return done
