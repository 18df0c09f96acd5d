"""What every process knows about the load plan: the current stage, broadcast by the master.

The master (or the single local process) decides; users everywhere read ``LevelSignal.current``
and sleep on ``wait_change`` between requests, so a level change wakes them at once.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Protocol

from gevent.event import Event
from gevent.queue import Empty, Queue

# Stage kinds
IDLE = "idle"  # nothing to send (before a run, between levels, after the last one)
SPAWN = "spawn"  # users are being started for a new level; they wait
WARMUP = "warmup"  # one user on ``warmup_node`` sends the level's warm-up request
MEASURE = "measure"  # every user sends its quota of measured requests, then waits
RUN = "run"  # time-based step: users send back to back until the stage changes
ARRIVAL = "arrival"  # open loop: users take requests from the process's arrival schedule
# open loop, an over-saturated level: its arrivals stopped early; users finish what they hold
ARRIVALS_STOPPED = "arrivals_stopped"

MSG_STAGE = "sparkload_stage"
MSG_RECORDS = "sparkload_records"


@dataclass(frozen=True)
class Stage:
    kind: str = IDLE
    index: int = -1  # level index
    concurrency: int = 0
    warmup_node: str | None = None
    arrival_rate: float = 0.0  # open loop, whole run (requests/s, target time)
    arrival_duration: float = 0.0  # target seconds
    # open loop: each process's users (node id -> users); a process takes this share of the
    # run's one schedule (``shapes.arrival.my_share``)
    shares: dict[str, int] = field(default_factory=dict)
    # a counted level: sessions per user (0: the plan's --requests-per-user); --target-precision
    # broadcasts the level's MEASURE stage again with a larger quota to extend it
    quota: int = 0
    # a time-based step of a plan that keeps Locust's users at its highest level so far (a
    # scenario): users numbered C and above idle, so a lower phase never kills a request
    idle_above: bool = False
    churn: bool = False  # every request opens a new connection (a scenario's churn phase)

    def to_message(self) -> dict:
        return asdict(self)


@dataclass(frozen=True)
class Arrival:
    due_wall: float  # epoch seconds, for the record
    due: float  # perf_counter seconds, for the queue wait
    # its index in the level's whole schedule (a trace replay's: the trace line it sends), the
    # same on every process: what deals an open loop's arrivals to --tenants' classes
    line: int | None = None
    # the level whose schedule made it: a user that waited for it across a level change still
    # files it under its own level
    stage: Stage | None = None


class Schedule(Protocol):
    """A process's feed of one level's arrivals (``shapes.arrival.Feed``)."""

    def stop(self) -> int:
        """Stop feeding; the arrivals it never issued."""
        ...


class LevelSignal:
    def __init__(self) -> None:
        self.current = Stage()
        self._changed = Event()
        self._warmups_claimed: set[int] = set()
        self.arrivals: Queue[Arrival] = Queue()
        self._schedule: Schedule | None = None

    def update(self, stage: Stage) -> None:
        self.current = stage
        changed, self._changed = self._changed, Event()
        changed.set()

    def wait_change(self, timeout: float) -> None:
        self._changed.wait(timeout)

    def claim_warmup(self, node_id: str) -> bool:
        """True for exactly one caller per level, on the node the master picked."""
        stage = self.current
        if (
            stage.kind != WARMUP
            or stage.warmup_node != node_id
            or stage.index in self._warmups_claimed
        ):
            return False
        self._warmups_claimed.add(stage.index)
        return True

    def next_arrival(self, timeout: float) -> Arrival | None:
        try:
            return self.arrivals.get(timeout=timeout)
        except Empty:
            return None

    def run_schedule(self, schedule: Schedule | None) -> None:
        """Replace this process's arrival schedule (None just stops the current one)."""
        if self._schedule is not None:
            self._schedule.stop()
        self._schedule = schedule
        if schedule is None:
            self.arrivals = Queue()

    def stop_arrivals(self) -> tuple[int, int]:
        """Stop the level's arrivals early: (arrivals never issued, issued ones that were still
        waiting for a free user and are now dropped, never to be sent)."""
        never = self._schedule.stop() if self._schedule is not None else 0
        self._schedule = None
        dropped = 0
        while True:
            try:
                self.arrivals.get_nowait()
            except Empty:
                return never, dropped
            dropped += 1

    def reset(self) -> None:
        self.run_schedule(None)
        self._warmups_claimed.clear()
        self.update(Stage())
