"""One process of a run (local, master or worker): its level signal, record shipper and users.

Lives as long as the Locust Environment; ``begin_test`` takes the run's context at every test
start, ``end_test`` returns to idle. The master's run itself is ``controller.RunController``.
A process that sends requests first measures how its clock relates to the kernel's receive
stamps (``sparkload.transport.stamps``); a worker then says hello to the master (``admission``) and
answers its clock checks (``clockwatch``).
"""

from __future__ import annotations

import argparse
import socket
from typing import Any, cast

from locust.env import Environment
from locust.runners import MasterRunner, WorkerRunner

from sparkload.clientcheck import ClientMonitor
from sparkload.hostsecrets import HostSecrets
from sparkload.inputs.prompts import PromptOrder
from sparkload.plugin import worker_clocks
from sparkload.plugin.admission import WorkerPass
from sparkload.plugin.dispatch import WORKER_ORDER, dispatch_place
from sparkload.plugin.shipper import RecordShipper
from sparkload.run.context import RunContext
from sparkload.run.quality_probe import ProbeDealer
from sparkload.run.session import UserSession
from sparkload.shapes.arrival import Feed, level_schedule, my_share
from sparkload.stages import (
    ARRIVAL,
    ARRIVALS_STOPPED,
    MEASURE,
    MSG_STAGE,
    RUN,
    WARMUP,
    LevelSignal,
    Stage,
)
from sparkload.transport import stamps


class Node:
    def __init__(self, environment: Environment, secrets: HostSecrets) -> None:
        self.environment = environment
        self.secrets = secrets
        # Local, master or worker runner: each has attributes of its own (client_id, ...)
        self.runner: Any = cast(Any, environment.runner)
        self.is_worker = isinstance(self.runner, WorkerRunner)
        self.distributed = isinstance(self.runner, MasterRunner)
        self.node_id = self.runner.client_id if self.is_worker else "local"
        self.signal = LevelSignal()
        self.context: RunContext | None = None
        self.shipper: RecordShipper | None = None
        self.prompt_order: PromptOrder | None = None
        self._users = 0
        self.probes: ProbeDealer | None = None  # --quality-probe: which sessions are its items
        self._requests = 0
        self.runner.register_message(MSG_STAGE, self._on_stage)
        if not self.distributed:
            stamps.use(stamps.calibrate())
        if self.is_worker:
            worker_clocks.answer_pings(self.runner)
            about = {
                "hostname": socket.gethostname(),
                "receive_stamps": stamps.active.describe(),
                "secrets": secrets.names(),
            }
            WorkerPass(self.runner, secrets, about)

    @property
    def worker_label(self) -> str:
        """The ``worker`` of this process's records: its index, which a worker learns when the
        master admits it (after the worker token, when one is set)."""
        return str(self.runner.worker_index) if self.is_worker else "local"

    def begin_test(self, context: RunContext | None = None) -> None:
        """At test start: the master's context (local), or one built from the sent options."""
        self.context = context or RunContext.from_options(
            _parsed_options(self.environment), self.environment.host, self.secrets
        )
        stream = self.runner.worker_index if self.is_worker else 0
        self.prompt_order = PromptOrder(
            self.context.workload.prompt_count, self.context.options.plan.seed, stream
        )
        context = self.context
        self.probes = (
            ProbeDealer(
                context.probe,
                context.options.workload.quality_items,
                context.options.plan.requests_per_user,
            )
            if context.probe is not None
            else None
        )
        if self.shipper is None:
            monitor = None if self.distributed else ClientMonitor(self._active_level)
            self.shipper = RecordShipper(self.runner, self.node_id, monitor)
        else:
            self.shipper.reset()

    def end_test(self) -> None:
        """Back to idle (the master's first stage message of the next test may precede its
        test_start here, so the signal is reset at the end of a test, not at the start)."""
        if self.shipper is not None:
            self.shipper.flush()
        self.signal.reset()

    def new_session(self) -> UserSession:
        """Everything one user needs, handed over once (users are dealt to endpoints in turn,
        offset per worker so that workers share them)."""
        assert self.context is not None and self.shipper is not None and self.prompt_order
        ordinal, self._users = self._users, self._users + 1
        offset = self.runner.worker_index if self.is_worker else 0
        place, workers = dispatch_place(self.node_id, self._worker_order())
        endpoints = self.context.endpoints
        return UserSession(
            context=self.context,
            ordinal=ordinal,
            index=ordinal * workers + place,
            endpoint=endpoints[(ordinal + offset) % len(endpoints)],
            node_id=self.node_id,
            worker_label=self.worker_label,
            prompt_order=self.prompt_order,
            shipper=self.shipper,
            next_request_id=self._next_request_id,
            probes=self.probes,
        )

    def _worker_order(self) -> list[str]:
        """The workers in Locust's dispatch order, as the master sent them (none locally)."""
        if not self.is_worker:
            return []
        return list(getattr(_parsed_options(self.environment), WORKER_ORDER, None) or [])

    def _next_request_id(self) -> str:
        self._requests += 1
        return f"{self.worker_label}-{self._requests}"

    def _active_level(self) -> int:
        """The level this process is sending for, or -1 while it idles (not measured then)."""
        stage = self.signal.current
        sending = (WARMUP, MEASURE, RUN, ARRIVAL, ARRIVALS_STOPPED)
        return stage.index if stage.kind in sending else -1

    def _on_stage(self, environment: Environment, msg, **_kwargs) -> None:
        stage = Stage(**msg.data)
        if stage.kind == ARRIVAL and self.context is not None and self.shipper is not None:
            mine = my_share(level_schedule(self.context, stage), stage.shares, self.node_id)
            self.signal.run_schedule(
                Feed(self.signal, mine, self.context.time_scale, self.shipper.issue, stage)
            )
        elif stage.kind == ARRIVALS_STOPPED and self.shipper is not None:
            never, dropped = self.signal.stop_arrivals()
            self.shipper.withdraw(stage.index, never, dropped)
        self.signal.update(stage)


def _parsed_options(environment: Environment) -> argparse.Namespace:
    assert environment.parsed_options is not None, "sparkload runs inside Locust's main"
    return environment.parsed_options


def node_of(environment: Environment) -> Node:
    return environment.sparkload_node  # type: ignore[attr-defined]
