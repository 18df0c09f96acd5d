"""One Locust user's side of the run: what to send next, and sending it into a record.

Plain Python (no Locust): the user class hands it the level signal each time and fires the
events; everything a request needs was given when the session was made.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field

from sparkload.client import Connection, StreamRequest, measure
from sparkload.plugin.context import RunContext
from sparkload.plugin.shipper import RecordShipper
from sparkload.prompts import PromptOrder
from sparkload.records import PHASE_MEASURE, PHASE_WARMUP, RequestRecord
from sparkload.stages import ARRIVAL, MEASURE, RUN, WARMUP, Arrival, LevelSignal, Stage
from sparkload.target import Endpoint
from sparkload.workloads.contract import Slot, UserState

IDLE_WAIT = 1.0  # seconds a user sleeps on the signal before looking again


@dataclass(frozen=True)
class Assignment:
    stage: Stage
    phase: str
    arrival: Arrival | None = None


@dataclass
class UserSession:
    context: RunContext
    ordinal: int  # this user's number in its process
    endpoint: Endpoint
    node_id: str  # "local" or the worker's client id (who may claim a warm-up)
    worker_label: str  # "local" or the worker index (in each record)
    prompt_order: PromptOrder
    shipper: RecordShipper
    next_request_id: Callable[[], str]
    connection: Connection = field(init=False)
    state: UserState = field(init=False)  # this user's place in the workload
    sent_in_level: dict[int, int] = field(default_factory=dict)

    def __post_init__(self) -> None:
        opts = self.context.options
        self.connection = Connection(
            self.endpoint.base, opts.request_timeout, verify_tls=not opts.insecure
        )
        self.state = self.context.workload.new_user(self.ordinal, self.prompt_order.next)

    def open(self) -> None:
        self.connection.warm(self.endpoint.models_path, self.context.headers)

    def close(self) -> None:
        self.connection.close()

    def next_assignment(self, signal: LevelSignal) -> Assignment | None:
        """What the current stage asks of this user; None after waiting for a change."""
        stage = signal.current
        if stage.kind == WARMUP and signal.claim_warmup(self.node_id):
            return Assignment(stage, PHASE_WARMUP)
        if stage.kind == MEASURE:
            sent = self.sent_in_level.get(stage.index, 0)
            if sent < self.context.options.requests_per_user:
                self.sent_in_level[stage.index] = sent + 1
                return Assignment(stage, PHASE_MEASURE)
        elif stage.kind == RUN:
            return Assignment(stage, PHASE_MEASURE)
        elif stage.kind == ARRIVAL:
            arrival = signal.next_arrival(IDLE_WAIT)  # the level may change while waiting
            return Assignment(arrival.stage or stage, PHASE_MEASURE, arrival) if arrival else None
        signal.wait_change(IDLE_WAIT)
        return None

    def send(self, assignment: Assignment) -> RequestRecord:
        """Plan, send and measure one request; its record is shipped to the master."""
        ctx = self.context
        opts = ctx.options
        planned = ctx.workload.next_request(
            self.state, Slot(assignment.stage.index, assignment.arrival)
        )
        self.state.planned += 1
        record = RequestRecord(
            request_id=self.next_request_id(),
            level=assignment.stage.concurrency,
            level_index=assignment.stage.index,
            phase=assignment.phase,
            worker=self.worker_label,
            user=self.ordinal,
            endpoint=self.endpoint.url,
            model=ctx.model,
            prompt_index=planned.prompt_index,
            max_tokens=planned.max_tokens,
            start_time=0.0,
            extra=planned.extra,
        )
        if assignment.arrival is None:
            self.shipper.issue()
        else:
            record.scheduled_time = assignment.arrival.due_wall
            record.queue_wait = time.perf_counter() - assignment.arrival.due
        request = StreamRequest(
            self.endpoint.path_for(opts.api),
            ctx.body.encode(planned),
            ctx.headers,
            opts.request_timeout,
            opts.keep_chunk_gaps,
            opts.api,
        )
        reply: list[str] | None = [] if planned.wants_reply else None
        measure(self.connection, request, record, reply)
        self.shipper.note_identity(self.endpoint.url, self.connection.identity())
        ctx.workload.after(self.state, planned, record, None if reply is None else "".join(reply))
        self.shipper.ship(record.to_dict())
        return record
