"""A child process whose output is streamed line by line, with a deadline and a clean stop.

The matrix runs deploy commands, health commands and Locust runs as children. Each gets its own
session (process group), so a Ctrl-C in the terminal reaches sparkload only and sparkload stops
the child the way a user at its terminal would: SIGINT first (Locust then marks its run
directory "stopped" and stops the simulator it started; a sparkload Locust run does not survive
SIGTERM that cleanly), SIGKILL to whatever is left of the group after a grace period. A child
is done when it exits, not when its output closes: a deploy command may leave a server running
in the background that still holds the pipe.
"""

from __future__ import annotations

import contextlib
import os
import queue
import signal
import subprocess
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass

STOP_GRACE_S = 30.0  # Locust needs a few seconds to stop its workers and close the run
_DRAIN_S = 0.5  # after the child exits, how long to wait for its last buffered lines
_TAIL = 20


@dataclass(frozen=True)
class Finished:
    returncode: int | None  # None when the child was stopped at its deadline
    tail: tuple[str, ...]  # its last lines, for a one-line reason when it failed

    @property
    def ok(self) -> bool:
        return self.returncode == 0


def run(
    command: list[str] | str,
    on_line: Callable[[str], None],
    timeout: float | None = None,
    env: dict[str, str] | None = None,
) -> Finished:
    """Run ``command`` (a shell command when a string), passing each output line to ``on_line``.

    At ``timeout`` seconds the child is stopped and ``returncode`` is None. A KeyboardInterrupt
    stops the child (its remaining output still goes to ``on_line``) and is raised again.
    """
    proc = subprocess.Popen(
        command,
        shell=isinstance(command, str),
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        stdin=subprocess.DEVNULL,
        text=True,
        errors="replace",
        start_new_session=True,
        env=env,
    )
    lines: queue.Queue[str | None] = queue.Queue()
    threading.Thread(target=_read, args=(proc, lines), daemon=True).start()
    tail: deque[str] = deque(maxlen=_TAIL)

    def take(line: str) -> None:
        tail.append(line)
        on_line(line)

    deadline = None if timeout is None else time.monotonic() + timeout
    try:
        while proc.poll() is None:
            if deadline is not None and time.monotonic() >= deadline:
                stop(proc)
                _drain(lines, take, _DRAIN_S)
                return Finished(None, tuple(tail))
            _drain(lines, take, 0.2)
    except KeyboardInterrupt:
        stop(proc)
        _drain(lines, take, _DRAIN_S)
        raise
    _drain(lines, take, _DRAIN_S)
    return Finished(proc.returncode, tuple(tail))


def _read(proc: subprocess.Popen, lines: queue.Queue) -> None:
    assert proc.stdout is not None  # started with stdout=PIPE
    for line in proc.stdout:
        lines.put(line.rstrip("\n"))
    lines.put(None)


def _drain(lines: queue.Queue, take: Callable[[str], None], wait_s: float) -> None:
    """Pass on the lines already read; wait up to ``wait_s`` for the first or for the end."""
    until = time.monotonic() + wait_s
    while True:
        try:
            line = (
                lines.get(timeout=max(0.0, until - time.monotonic()))
                if wait_s
                else lines.get_nowait()
            )
        except queue.Empty:
            return
        if line is None:
            return
        take(line)


def stop(proc: subprocess.Popen, grace_s: float = STOP_GRACE_S) -> None:
    """SIGINT the child, then SIGKILL its whole process group; a second Ctrl-C skips the wait."""
    try:
        if proc.poll() is None:
            proc.send_signal(signal.SIGINT)
            proc.wait(grace_s)
    except (subprocess.TimeoutExpired, KeyboardInterrupt):
        pass
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()
