"""The Locust user: closed-loop streaming chat requests, as the level signal directs."""

from __future__ import annotations

import time

from locust import User, constant, task

from sparkload.client import ChatRequest, Connection, build_body, measure
from sparkload.plugin import core
from sparkload.plugin.stages import ARRIVAL, MEASURE, RUN, WARMUP
from sparkload.records import PHASE_MEASURE, PHASE_WARMUP, STATUS_OK, RequestRecord

IDLE_WAIT = 1.0  # seconds a user sleeps on the signal before looking again


class ChatUser(User):
    """Streams ``POST /v1/chat/completions`` and fires three Locust events per request."""

    wait_time = constant(0)  # closed loop: the next request goes as soon as the last one ends

    def on_start(self) -> None:
        self.sparkload = core.get(self.environment)
        self.ordinal = self.sparkload.next_user_ordinal()
        self.endpoint = self.sparkload.endpoint_for(self.ordinal)
        opts = self.sparkload.options
        self.connection = Connection(
            self.endpoint.base, opts.request_timeout, verify_tls=not opts.insecure
        )
        self.connection.warm(self.endpoint.models_path, self.sparkload.headers)
        self.sent_in_level: dict[int, int] = {}

    def on_stop(self) -> None:
        self.connection.close()

    @task
    def next_request(self) -> None:
        assignment = self._next_assignment()
        if assignment is not None:
            self._send(assignment)

    def _next_assignment(self) -> core.Assignment | None:
        plugin = self.sparkload
        signal = plugin.signal
        stage = signal.current
        if stage.kind == WARMUP and signal.claim_warmup(plugin.node_id):
            return core.Assignment(stage, PHASE_WARMUP)
        if stage.kind == MEASURE:
            sent = self.sent_in_level.get(stage.index, 0)
            if sent < plugin.options.requests_per_user:
                self.sent_in_level[stage.index] = sent + 1
                return core.Assignment(stage, PHASE_MEASURE)
        elif stage.kind == RUN:
            return core.Assignment(stage, PHASE_MEASURE)
        elif stage.kind == ARRIVAL:
            arrival = signal.next_arrival(IDLE_WAIT)
            return core.Assignment(stage, PHASE_MEASURE, arrival) if arrival else None
        signal.wait_change(IDLE_WAIT)
        return None

    def _send(self, assignment: core.Assignment) -> None:
        plugin = self.sparkload
        opts = plugin.options
        prompt_index = plugin.prompt_order.next()
        prompt = plugin.workload.request(prompt_index, self.ordinal, assignment.stage.index)
        record = RequestRecord(
            request_id=plugin.next_request_id(),
            level=assignment.stage.concurrency,
            level_index=assignment.stage.index,
            phase=assignment.phase,
            worker=plugin.worker_label,
            user=self.ordinal,
            endpoint=self.endpoint.url,
            model=plugin.model,
            prompt_index=prompt.index,
            max_tokens=opts.max_tokens,
            start_time=0.0,
            extra=prompt.extra,
        )
        if assignment.arrival is None:
            plugin.shipper.issue()
        else:
            record.scheduled_time = assignment.arrival.due_wall
            record.queue_wait = time.perf_counter() - assignment.arrival.due
        body = build_body(plugin.model, prompt.text, opts.max_tokens, plugin.workload.sampling)
        request = ChatRequest(
            self.endpoint.chat_path,
            body,
            plugin.headers,
            opts.request_timeout,
            opts.keep_chunk_gaps,
        )
        measure(self.connection, request, record)
        plugin.workload.after(record)
        fire_events(self.environment, record, plugin.time_scale)
        plugin.shipper.ship(record.to_dict())


def fire_events(environment, record: RequestRecord, time_scale: float) -> None:
    """Exactly three Locust events per request: E2E, TTFT and ITL (in simulated time if scaled).

    Names carry the level (``c=4``) so the live table has one row per level and metric; a failed
    request is a failure in all three, its class first in the message.
    """
    name = f"c={record.level}" + (" warmup" if record.phase == PHASE_WARMUP else "")
    error = None if record.status == STATUS_OK else f"{record.error_kind}: {record.error}"
    ms = 1000.0 * time_scale
    fire = environment.events.request.fire
    tokens = record.output_tokens or 0
    fire(
        request_type="E2E",
        name=name,
        response_time=_ms(record.latency, ms),
        response_length=tokens,
        exception=error,
        context={},
    )
    fire(
        request_type="TTFT",
        name=name,
        response_time=_ms(record.ttft, ms),
        response_length=0,
        exception=error,
        context={},
    )
    fire(
        request_type="ITL",
        name=name,
        response_time=_ms(record.itl, ms),
        response_length=0,
        exception=error,
        context={},
    )


def _ms(seconds: float | None, factor: float) -> float | None:
    return None if seconds is None else seconds * factor
