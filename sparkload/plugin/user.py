"""The Locust user: closed-loop streaming chat requests, as the level signal directs."""

from __future__ import annotations

from locust import User, constant, task
from locust.env import Environment

from sparkload.plugin.node import node_of
from sparkload.records import PHASE_WARMUP, STATUS_OK, RequestRecord
from sparkload.run.session import UserSession


class ChatUser(User):
    """Streams ``POST /v1/chat/completions`` and fires three Locust events per request."""

    wait_time = constant(0)  # closed loop: the next request goes as soon as the last one ends
    session: UserSession

    def on_start(self) -> None:
        self.node = node_of(self.environment)
        self.session = self.node.new_session()
        self.session.open()

    def on_stop(self) -> None:
        self.session.close()

    @task
    def next_request(self) -> None:
        assignment = self.session.next_assignment(self.node.signal)
        if assignment is None:
            return
        record = self.session.send(assignment, self.node.signal)
        if record is not None:
            fire_events(self.environment, record, self.session.context.time_scale)


def fire_events(environment: Environment, record: RequestRecord, time_scale: float) -> None:
    """Exactly three Locust events per request: E2E, TTFT and ITL (in simulated time if scaled).

    Names carry the level (``c=4``) so the live table has one row per level and metric; a failed
    request is a failure in all three, its class first in the message.
    """
    name = f"c={record.level}" + (" warmup" if record.phase == PHASE_WARMUP else "")
    error = None if record.status == STATUS_OK else f"{record.error_kind}: {record.error}"
    ms = 1000.0 * time_scale
    fire = environment.events.request.fire
    tokens = record.output_tokens or 0
    for request_type, seconds, length in (
        ("E2E", record.latency, tokens),
        ("TTFT", record.ttft, 0),
        ("ITL", record.itl, 0),
    ):
        fire(
            request_type=request_type,
            name=name,
            response_time=None if seconds is None else seconds * ms,
            response_length=length,
            exception=error,
            context={},
        )
