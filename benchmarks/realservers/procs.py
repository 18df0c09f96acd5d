"""Child processes for the real servers: started on 127.0.0.1, ready when HTTP answers, always
stopped (and killed by the kernel if their parent dies first, so a crashed test leaves none)."""

from __future__ import annotations

import contextlib
import ctypes
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from pathlib import Path
from types import TracebackType
from typing import Self

PR_SET_PDEATHSIG = 1


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _die_with_parent() -> None:
    """In the child: SIGTERM when the parent goes away (Linux); harmless elsewhere."""
    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGTERM)


def spawn(args: list[str], log: Path, env: dict[str, str] | None = None) -> subprocess.Popen:
    """Start ``args`` with stdout+stderr to ``log``, in its own process group."""
    with open(log, "ab") as out:
        return subprocess.Popen(
            args,
            stdout=out,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            env={**os.environ, **(env or {})},
            preexec_fn=_die_with_parent,
            start_new_session=True,
        )


def stop(process: subprocess.Popen | None, grace: float = 5.0) -> None:
    """SIGTERM the child's process group, SIGKILL it after ``grace`` seconds."""
    if process is None or process.poll() is not None:
        return
    with contextlib.suppress(ProcessLookupError):
        os.killpg(process.pid, signal.SIGTERM)
    try:
        process.wait(timeout=grace)
    except subprocess.TimeoutExpired:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGKILL)
        process.wait()


def wait_http(url: str, process: subprocess.Popen, timeout: float, log: Path) -> None:
    """Poll ``url`` until it answers 200; fail early if the process exits."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"exited with {process.returncode} before ready:\n{tail(log)}")
        try:
            with urllib.request.urlopen(url, timeout=2) as response:
                if response.status == 200:
                    return
        except (urllib.error.URLError, ConnectionError, TimeoutError):
            pass
        time.sleep(0.1)
    raise RuntimeError(f"{url} not ready within {timeout:.0f} s:\n{tail(log)}")


def tail(log: Path, lines: int = 20) -> str:
    try:
        return "\n".join(log.read_text(errors="replace").splitlines()[-lines:])
    except OSError:
        return ""


def serve_until_stopped(process: subprocess.Popen) -> None:
    """CLI use: block until the child exits, Ctrl-C or SIGTERM (the caller then stops it)."""
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    with contextlib.suppress(KeyboardInterrupt):
        process.wait()


class ChildServer:
    """A server child process as a context manager: ``start`` on entry, ``stop`` and the removal
    of its temporary directory on exit (a failed test included)."""

    _tmp: tempfile.TemporaryDirectory
    process: subprocess.Popen | None
    log: Path

    def _launch(
        self,
        args: list[str],
        url: str,
        ready: str,
        timeout: float,
        env: dict[str, str] | None = None,
    ) -> str:
        """Start the child and wait until ``url + ready`` answers; one that never does is
        stopped before the error goes up. Returns ``url``."""
        self.process = spawn(args, self.log, env)
        try:
            wait_http(url + ready, self.process, timeout, self.log)
        except BaseException:
            self.stop()
            raise
        return url

    def start(self) -> str:
        raise NotImplementedError

    def stop(self) -> None:
        raise NotImplementedError

    def __enter__(self) -> Self:
        self.start()
        return self

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.stop()
        self._tmp.cleanup()
