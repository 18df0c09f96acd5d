"""One Locust user's side of the run: what to send next, and sending it into a record.

Plain Python (no Locust): the user class hands it the level signal each time and fires the
events; everything a request needs was given when the session was made.

A user's quota of a ladder level is ``--requests-per-user`` sessions, or the stage's ``quota``
(``--target-precision`` sets and raises it; ``workloads/contract.py``, "Sessions"): a request
of its own, or a whole conversation. A new session of the quota starts
only once the one under way has planned all its turns (or its workload ended it early, setting
``UserState.unsent``), so the quota always ends with a whole conversation and the level's count
is exact. A session that may end early (``Workload.sessions_may_end_early``) ships its records
of a counted level when it ends, each with the session's actual count in ``turns``: the master
learns a session's count from its first record, so that one must know it.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Protocol

from gevent import sleep

from sparkload.inputs.images import ImageStats, image_stats
from sparkload.inputs.prompts import PromptOrder
from sparkload.inputs.schemas import parse_error_kind
from sparkload.model_mix import ModelDeal
from sparkload.records import PHASE_MEASURE, PHASE_WARMUP, STRUCTURED_PARSE_ERROR, RequestRecord
from sparkload.run.context import RunContext
from sparkload.run.quality_probe import ProbeDealer, ProbeTurn
from sparkload.sim.speculation import CATEGORY_HEADER
from sparkload.stages import ARRIVAL, MEASURE, RUN, WARMUP, Arrival, LevelSignal, Stage
from sparkload.transport.client import Connection, StreamRequest, measure
from sparkload.transport.tally import Reply
from sparkload.transport.target import Endpoint
from sparkload.workloads.contract import PlannedRequest, Slot, UserState, prompt_key

IDLE_WAIT = 1.0  # seconds a user sleeps on the signal before looking again


class RecordSink(Protocol):
    """Where a session's records go (the process's ``plugin.shipper.RecordShipper``)."""

    def issue(self) -> None:
        """One more request this process committed to (before it is sent)."""
        ...

    def note_identity(self, endpoint: str, found: dict[str, str]) -> None:
        """The identifying headers a response of ``endpoint`` carried."""
        ...

    def ship(self, record: dict) -> None:
        """A finished record, on its way to the master."""
        ...


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
    shipper: RecordSink
    next_request_id: Callable[[], str]
    connection: Connection = field(init=False)
    state: UserState = field(init=False)  # this user's place in the workload
    sessions_in_level: dict[int, int] = field(default_factory=dict)  # quota sessions started
    # the level of the conversation under way while it has turns to plan (else None)
    open_level: int | None = None
    last_send: float | None = None  # perf_counter of this user's previous send
    # a session that may end early: its records so far, shipped when it ends (see the module's)
    held: list[RequestRecord] = field(default_factory=list)
    # --quality-probe: deals the probe's items among the process's sessions (run/quality_probe)
    probes: ProbeDealer | None = None
    # each mix of models this user asks for (--model A:0.7,B:0.3, a --tenants class's): its
    # own deal of it, by the mix's spec
    deals: dict[str, ModelDeal] = field(default_factory=dict)
    # this user's number in the run (Locust's dispatch order across processes; None: ordinal)
    index: int | None = None

    def __post_init__(self) -> None:
        opts = self.context.options
        self.connection = Connection(
            self.endpoint.base, opts.request.request_timeout, verify_tls=not opts.target.insecure
        )
        index = self.ordinal if self.index is None else self.index
        self.state = self.context.workload.user_at(index, self.ordinal, self.prompt_order.next)
        self.state.stream = self.worker_label

    def open(self) -> None:
        self.connection.warm(self.endpoint.models_path, self.context.headers)

    def close(self) -> None:
        self._ship_held()
        self.connection.close()

    def next_assignment(self, signal: LevelSignal) -> Assignment | None:
        """What the current stage asks of this user; None after waiting for a change."""
        stage = signal.current
        if stage.kind in (WARMUP, MEASURE, RUN) and self._above_level(stage):
            signal.wait_change(IDLE_WAIT)
            return None
        if stage.kind == WARMUP and signal.claim_warmup(self.node_id):
            return Assignment(stage, PHASE_WARMUP)
        if stage.kind == MEASURE:
            if self._quota_left(stage):
                return Assignment(stage, PHASE_MEASURE)
        elif stage.kind == RUN:
            return Assignment(stage, PHASE_MEASURE)
        elif stage.kind == ARRIVAL:
            arrival = signal.next_arrival(IDLE_WAIT)  # the level may change while waiting
            return Assignment(arrival.stage or stage, PHASE_MEASURE, arrival) if arrival else None
        signal.wait_change(IDLE_WAIT)
        return None

    def _above_level(self, stage: Stage) -> bool:
        """A user kept above a counted level's C (``Workload.users_by_index``) or a scenario's
        phase (``Stage.idle_above``): it idles, so the level's users are the run's first C."""
        index = self.ordinal if self.index is None else self.index
        kept = stage.idle_above if stage.kind == RUN else self.context.workload.users_by_index
        return kept and index >= stage.concurrency

    def _quota_left(self, stage: Stage) -> bool:
        """Whether this user's quota of the level has a request left: the next turn of the
        conversation under way, or else a new session while fewer than the quota began (the
        stage's, which --target-precision raises, else --requests-per-user)."""
        if self.open_level == stage.index:
            return True
        started = self.sessions_in_level.get(stage.index, 0)
        if started >= (stage.quota or self.context.options.plan.requests_per_user):
            return False
        self.sessions_in_level[stage.index] = started + 1
        return True

    def _probe_turn(self, assignment: Assignment) -> ProbeTurn | None:
        """The probe's item this session sends instead of the workload's request (None: the
        workload's), dealt when a session of a measured level begins."""
        if self.probes is None or assignment.phase != PHASE_MEASURE or self.open_level is not None:
            return None
        return self.probes.turn(assignment.stage)

    def _note_session(self, level_index: int, planned: PlannedRequest) -> None:
        turns_left = (planned.turns or 1) > (planned.turn or 1)
        self.open_level = level_index if turns_left else None

    def send(
        self, assignment: Assignment, signal: LevelSignal | None = None
    ) -> RequestRecord | None:
        """Plan, send and measure one request; its record is shipped to the master.

        A planned ``delay`` (a think time, in the target's time) is waited first, outside the
        measured span (with ``delay_from_send``, what is left of it since the previous send);
        when ``signal``'s stage moved on meanwhile (a time-based step ended), the request is not
        sent (None) and the conversation is left there.
        """
        ctx = self.context
        opts = ctx.options
        stage = assignment.stage
        probe = self._probe_turn(assignment)
        if probe is not None:  # a probe's item in the workload's place
            planned = probe.planned(ctx.body.max_tokens)
        else:
            planned = ctx.workload.next_request(
                self.state,
                Slot(stage.index, assignment.arrival, warmup=assignment.phase == PHASE_WARMUP),
            )
            self.state.planned += 1
        self._note_session(stage.index, planned)
        wait = planned.delay / ctx.time_scale
        if planned.delay_from_send and self.last_send is not None:
            wait -= time.perf_counter() - self.last_send
        if wait > 0:
            sleep(wait)
            if signal is not None and moved_on(signal.current, stage):
                self.open_level = None
                return None
        model = self._model_for(planned, assignment, probe)
        record = RequestRecord(
            request_id=self.next_request_id(),
            level=assignment.stage.concurrency,
            level_index=assignment.stage.index,
            phase=assignment.phase,
            worker=self.worker_label,
            user=self.ordinal,
            endpoint=self.endpoint.url,
            model=model,
            prompt_index=planned.prompt_index,
            max_tokens=planned.max_tokens,
            start_time=0.0,
            session_id=planned.session_id,
            turn=planned.turn,
            turns=planned.turns,
            agent_session=planned.agent_session,
            parent_session=planned.parent_session,
            depth=planned.depth,
            step=planned.step,
            category=planned.category,
            tenant=planned.tenant,
            extra=planned.extra,
        )
        if assignment.arrival is None:
            self.shipper.issue()
        else:
            record.scheduled_time = assignment.arrival.due_wall
            record.queue_wait = time.perf_counter() - assignment.arrival.due
        sent = ctx.images.attach(planned) if ctx.images is not None and probe is None else planned
        note_images(record, image_stats(sent.messages))
        body = ctx.body_for(planned)
        wire = body.wire
        request = StreamRequest(
            self.endpoint.path_for(wire.route),
            body.encode(sent, model),
            request_headers(ctx.headers, planned, probe),
            opts.request.request_timeout,
            wire.reader,
            opts.results.keep_chunk_gaps,
            wire.streams,
        )
        if wire.batches_inputs:
            record.inputs = len(planned.inputs) if planned.inputs is not None else 1
        checker = ctx.checker_for(planned)
        keep = opts.results.keep_outputs
        reply = Reply() if planned.wants_reply or checker or keep else None
        if stage.churn:  # a connection of its own: the request pays its connect (and TLS)
            self.connection.close()
        self.last_send = time.perf_counter()
        measure(self.connection, request, record, reply)
        if checker is not None and reply is not None and record.error_kind is None:
            record.structured = checker.verdict(reply.content, record.finish_reason)
            if record.structured == STRUCTURED_PARSE_ERROR:
                record.structured_error = parse_error_kind(reply.content)
        if keep and reply is not None:
            keep_output(record, planned, reply)
        self.shipper.note_identity(self.endpoint.url, self.connection.identity())
        if probe is not None:
            probe.grade(record, reply)
        else:
            ctx.workload.after(self.state, planned, record, reply)
        ended = (planned.turn or 1) >= (planned.turns or 1)
        if self.state.unsent:  # the workload ended the session early: the quota goes on
            self.open_level = None
            self.state.unsent = 0
            ended = True
        self._ship(record, held=ctx.workload.sessions_may_end_early and stage.kind == MEASURE)
        if ended:
            self._ship_held()
        return record

    def _model_for(
        self, planned: PlannedRequest, assignment: Assignment, probe: ProbeTurn | None
    ) -> str:
        """The model this request asks for, of its class's models or else the run's: the
        user's next of a mix for a measured request of the workload (one deal per mix, so a
        class's share of each model is as exact as the run's); a mix's first for a warm-up or
        a probe's item, which leave the shares alone."""
        mix = self.context.models_for(planned)
        if not mix.mixed:
            return planned.model or self.context.body.model
        if probe is not None or assignment.phase != PHASE_MEASURE:
            return mix.names[0]
        deal = self.deals.get(mix.spec)
        if deal is None:
            key = f"{self.context.options.plan.seed}:{self.worker_label}:{self.ordinal}"
            deal = self.deals[mix.spec] = mix.deal(key)
        return deal.next()

    def _ship(self, record: RequestRecord, held: bool) -> None:
        """Ship ``record`` now, or hold it until its session ends (``_ship_held``)."""
        if self.held and self.held[0].session_id != record.session_id:
            self._ship_held()  # a session left unfinished (the run stopping): as it is
        if held:
            self.held.append(record)
        else:
            self.shipper.ship(record.to_dict())

    def _ship_held(self) -> None:
        """The held records of the session that ended, each with its actual count of requests."""
        for record in self.held:
            record.turns = len(self.held)
            self.shipper.ship(record.to_dict())
        self.held = []


def moved_on(current: Stage, stage: Stage) -> bool:
    """Whether the plan left ``stage`` (another kind, or another level); the same level's
    stage broadcast again with a larger quota (``--target-precision``) is not leaving it."""
    return (current.kind, current.index) != (stage.kind, stage.index)


def note_images(record: RequestRecord, stats: ImageStats) -> None:
    """The request's images into its record (their fields stay None without any)."""
    if stats.count:
        record.images, record.image_bytes, record.image_size = stats.count, stats.bytes, stats.size


def keep_output(record: RequestRecord, planned: PlannedRequest, reply: Reply) -> None:
    """``--keep-outputs``: the reply's text, its text chunks' lengths (empty pieces are no
    chunk of the text) and the prompt's key, into the record."""
    pieces = [len(piece) for piece in reply.text if piece]
    record.prompt_key = prompt_key(planned)
    record.output_text = "".join(reply.text)
    record.output_chunks = pieces


def request_headers(
    base: dict[str, str], planned: PlannedRequest, probe: ProbeTurn | None
) -> dict[str, str]:
    """The run's headers, with a probe's item or the request's category where there is one:
    the built-in simulator reads them (``sim/accuracy.py``, ``sim/speculation.py``), a real
    server ignores a header it does not know."""
    if probe is not None:
        return probe.headers(base)
    if planned.category is not None:
        return {**base, CATEGORY_HEADER: planned.category}
    return base
