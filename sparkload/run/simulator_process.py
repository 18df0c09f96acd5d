"""Run the built-in simulator as a child process for a run given no ``--host``.

A separate process keeps the simulator's timing off the load generator's event loop (and off
its core). It prints one ready line with its URL; we wait for it, and stop it at the end.
"""

from __future__ import annotations

import subprocess
import sys
import tempfile

import gevent

from sparkload.errors import ConfigError

READY_PREFIX = "sparkload-sim listening on "
START_TIMEOUT = 30.0


class ServerProcess:
    """A child process serving HTTP on loopback that prints ``<ready_prefix><url>`` when ready."""

    def __init__(
        self,
        args: list[str],
        ready_prefix: str = READY_PREFIX,
        name: str = "the built-in simulator",
    ):
        self.args = args
        self.ready_prefix = ready_prefix
        self.name = name
        self.process: subprocess.Popen | None = None
        self.url: str | None = None
        self._stderr = tempfile.TemporaryFile(mode="w+")  # noqa: SIM115 - lives as long as the child

    def start(self) -> str:
        # stdin stays an open pipe: a child started with --exit-with-parent ends when it closes
        self.process = subprocess.Popen(
            self.args, stdout=subprocess.PIPE, stderr=self._stderr, stdin=subprocess.PIPE, text=True
        )
        line = ""
        assert self.process.stdout is not None
        with gevent.Timeout(START_TIMEOUT, False):
            line = self.process.stdout.readline()
        if not line.startswith(self.ready_prefix):
            self.stop()
            raise ConfigError(f"{self.name} did not start: {self._last_error() or 'no ready line'}")
        self.url = line[len(self.ready_prefix) :].strip()
        return self.url

    def stop(self) -> None:
        if self.process is None or self.process.poll() is not None:
            return
        if self.process.stdin is not None:
            self.process.stdin.close()
        self.process.terminate()
        try:
            self.process.wait(timeout=5)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()

    def _last_error(self) -> str:
        self._stderr.seek(0)
        lines = [line.strip() for line in self._stderr.read().splitlines() if line.strip()]
        return lines[-1] if lines else ""


class SimulatorProcess(ServerProcess):
    """``sparkload sim OPTIONS`` on a free loopback port, ending with this process."""

    def __init__(self, options: list[str]) -> None:
        super().__init__(
            [sys.executable, "-m", "sparkload.sim", *options, "--port", "0", "--exit-with-parent"]
        )
