"""The end of every shape: wait for requests still in flight, then for Locust's last report."""

from __future__ import annotations

from sparkload.shapes import Conductor

# Workers report Locust's own statistics every 3 s; one more interval lets its CSV/HTML include
# the last requests (the records travel separately and are already complete).
LOCUST_REPORT_WAIT = 4.0


class Drain:
    def __init__(self, timeout: float = 0.0) -> None:
        self.timeout = timeout  # longest wait for in-flight requests (their own timeout bounds it)
        self.started: float | None = None
        self.settled: float | None = None

    def done(self, conductor: Conductor, now: float) -> bool:
        if self.started is None:
            self.started = now
        if self.settled is None and (
            conductor.in_flight() <= 0 or now - self.started > self.timeout
        ):
            self.settled = now
        if self.settled is None:
            return False
        return not conductor.distributed or now - self.settled >= LOCUST_REPORT_WAIT
