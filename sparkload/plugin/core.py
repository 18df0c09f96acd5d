"""sparkload inside Locust: one ``Sparkload`` object per Environment (per process).

Every process (local, master, worker) holds the level signal, the prompt order and a record
shipper; the master (or local process) also holds the run: options checked, target prepared,
the run directory written and the load profile driven. Register with ``setup(environment)``
(per Environment, so several runners can live in one test process).
"""

from __future__ import annotations

import logging
import os
import platform
import socket
import sys
import time
from dataclasses import dataclass
from importlib.metadata import version

import gevent
import locust
from locust.env import Environment
from locust.runners import STATE_MISSING, STATE_RUNNING, MasterRunner, WorkerRunner

import sparkload
from sparkload import options as options_module
from sparkload import workloads
from sparkload.client import build_headers
from sparkload.options import ConfigError, RunOptions
from sparkload.plugin.collector import RunCollector
from sparkload.plugin.progress import progress_line
from sparkload.plugin.selfmon import ClientMonitor
from sparkload.plugin.shipper import RecordShipper
from sparkload.plugin.stages import (
    ARRIVAL,
    MEASURE,
    MSG_RECORDS,
    MSG_STAGE,
    RUN,
    WARMUP,
    Arrival,
    LevelSignal,
    Stage,
)
from sparkload.profiles import Profile, Tick
from sparkload.profiles.arrival import ArrivalProfile, start_schedule
from sparkload.profiles.ladder import LadderProfile
from sparkload.profiles.steps import StepsProfile
from sparkload.prompts import PromptOrder
from sparkload.records import SCHEMA_VERSION
from sparkload.redact import redacted_command
from sparkload.results import ResultsWriter, check_writable, utc_now
from sparkload.scrape import MetricsScraper
from sparkload.simproc import SimulatorProcess
from sparkload.target import Endpoint, resolve_model

logger = logging.getLogger("sparkload")
PROGRESS_INTERVAL = 5.0  # seconds between progress lines
EXIT_ABORTED = 3  # process exit code of a run that had to stop early (e.g. a worker was lost)


@dataclass(frozen=True)
class Assignment:
    stage: Stage
    phase: str
    arrival: Arrival | None = None


class Sparkload:
    def __init__(self, environment: Environment) -> None:
        self.environment = environment
        self.runner = environment.runner
        self.signal = LevelSignal()
        self.is_worker = isinstance(self.runner, WorkerRunner)
        self.options: RunOptions | None = None
        self.workload: workloads.Workload | None = (
            None  # what each request asks (prompts, sampling)
        )
        self.prompt_order: PromptOrder | None = None
        self.shipper: RecordShipper | None = None
        self.endpoints: list[Endpoint] = []
        self.headers: dict[str, str] = {}
        self.model = ""
        self.time_scale = 1.0
        self.simulator: SimulatorProcess | None = None
        self.collector: RunCollector | None = None
        self.last_rows: list[dict] = []  # the table of the last finished run (web UI)
        self.final_summary = ""  # printed after Locust's own summary in headless runs
        self.profile: Profile | None = None
        self._progress: gevent.Greenlet | None = None
        self.abort_reason = ""
        self._workers_with_users: set[str] = set()
        self._user_count = 0
        self._request_count = 0
        self.runner.register_message(MSG_STAGE, self._on_stage)
        if not self.is_worker:
            self.runner.register_message(MSG_RECORDS, self._on_records)

    # ----- identity -------------------------------------------------------------------------
    @property
    def node_id(self) -> str:
        return self.runner.client_id if self.is_worker else "local"

    @property
    def worker_label(self) -> str:
        return str(self.runner.worker_index) if self.is_worker else "local"

    @property
    def distributed(self) -> bool:
        return isinstance(self.runner, MasterRunner)

    # ----- preparation (master/local, before any load) ------------------------------------
    def prepare(self) -> None:
        """Check options, prompts and results dir; start the simulator when no host is given."""
        opts = options_module.from_namespace(self.environment.parsed_options)
        self.workload = workloads.load(opts)
        check_writable(opts.results_dir)
        self.options = opts
        if opts.endpoints and not self.environment.host:
            self.environment.host = opts.endpoints[0]
        if not self.environment.host:
            self.simulator = SimulatorProcess(opts.sim_profile, opts.tp, opts.sim_time_scale)
            self.environment.host = self.simulator.start()
            logger.info(
                "No --host given: started the built-in DGX Spark simulator (profile %s, TP%d, %gx "
                "real time) at %s",
                opts.sim_profile,
                opts.tp,
                opts.sim_time_scale,
                self.environment.host,
            )

    def resolve_target(self) -> None:
        """Check every endpoint answers (one clear line if not) and settle the model name."""
        opts = self.options
        self.endpoints = self._parse_endpoints()
        models = [
            resolve_model(e.url, opts.api_key, opts.model, not opts.insecure)
            for e in self.endpoints
        ]
        self.model = models[0]
        self.environment.parsed_options.model = self.model  # reaches workers with the spawn message
        self.time_scale = self._simulator_time_scale()
        self.environment.parsed_options.sparkload_time_scale = self.time_scale

    def _parse_endpoints(self) -> list[Endpoint]:
        urls = self.options.endpoints or (self.environment.host,)
        return [Endpoint.parse(url) for url in urls]

    def endpoint_for(self, user_ordinal: int) -> Endpoint:
        """Users are dealt to endpoints in turn (offset per worker, so workers share them)."""
        offset = self.runner.worker_index if self.is_worker else 0
        return self.endpoints[(user_ordinal + offset) % len(self.endpoints)]

    def _simulator_time_scale(self) -> float:
        if self.simulator is not None and self.simulator.url == self.environment.host:
            return self.options.sim_time_scale
        return 1.0

    # ----- the run (master/local) -------------------------------------------------------
    def tick(self) -> Tick:
        if self.profile is None:
            try:
                self._start_run()
            except ConfigError as exc:
                logger.error("sparkload: %s", exc)
                self.environment.process_exit_code = 2
                return None
        lost = self._lost_workers()
        if lost:
            return self._abort(
                f"worker {', '.join(lost)} stopped responding; the level cannot reach its exact count, "
                f"so the run stops here. The {self.collector.received} records received are kept in "
                f"{self.collector.writer.path}"
            )
        return self.profile.tick(self, time.monotonic())

    def _lost_workers(self) -> list[str]:
        """Workers that ran users in this run and are now missing or gone (heartbeats stopped)."""
        if not self.distributed:
            return []
        clients = self.runner.clients
        for client in clients.values():
            if client.user_count > 0 and client.state != STATE_MISSING:
                self._workers_with_users.add(client.id)
        return [
            f"{self.runner.get_worker_index(node)} ({node})"
            for node in sorted(self._workers_with_users)
            if node not in clients or clients[node].state == STATE_MISSING
        ]

    def _abort(self, reason: str) -> None:
        logger.error("sparkload: %s", reason)
        self.abort_reason = reason
        self.environment.process_exit_code = EXIT_ABORTED

    def _start_run(self) -> None:
        self.options = options_module.from_namespace(self.environment.parsed_options)
        self.workload = workloads.load(self.options)
        self.resolve_target()
        opts = self.options
        writer = ResultsWriter(opts.results_dir, self._label(), self._manifest())
        scraper = (
            MetricsScraper(
                [e.url for e in self.endpoints], opts.api_key, verify_tls=not opts.insecure
            )
            if opts.server_metrics
            else None
        )
        self.collector = RunCollector(writer, self.time_scale, scraper, opts.metrics_interval)
        self.profile = self._make_profile()
        logger.info(
            "sparkload run %s: %s mode, results in %s", writer.path.name, opts.mode, writer.path
        )
        self._progress = gevent.spawn(self._report_progress)

    def _make_profile(self) -> Profile:
        opts = self.options
        if opts.mode == "arrival":
            return ArrivalProfile(
                opts.arrival_rate, opts.arrival_users, opts.arrival_duration, opts.request_timeout
            )
        if opts.mode == "steps":
            return StepsProfile(opts.ladder, opts.step_duration, opts.request_timeout)
        return LadderProfile(opts.ladder, opts.requests_per_user)

    def finish_run(self) -> None:
        if self.collector is None:
            return
        if self._progress is not None:
            self._progress.kill(block=False)
        status = (
            "complete" if self.profile.finished else "aborted" if self.abort_reason else "stopped"
        )
        if self.abort_reason:
            self.collector.manifest["abort_reason"] = self.abort_reason
        self.collector.close(status)
        self.last_rows = self.collector.rows()
        if status != "complete":
            logger.warning(
                "sparkload: run stopped before its plan finished; manifest marked '%s'", status
            )
        self.final_summary = self.collector.summary()
        if not self.environment.parsed_options.headless:
            print(self.final_summary, flush=True)

    def reset_run(self) -> None:
        self.collector = None
        self.profile = None
        self.abort_reason = ""
        self._workers_with_users.clear()

    def _label(self) -> str:
        opts = self.options
        if opts.label:
            return opts.label
        variant = self._variant()
        return f"{variant}-tp{opts.tp}" if variant else "run"

    def _variant(self) -> str:
        if self.options.variant:
            return self.options.variant
        return self.options.sim_profile if self.time_scale != 1 or self.simulator else ""

    def _manifest(self) -> dict:
        opts = self.options
        simulator = None
        if self.simulator is not None and self.simulator.url == self.environment.host:
            simulator = {
                "profile": opts.sim_profile,
                "tp": opts.tp,
                "time_scale": opts.sim_time_scale,
            }
        return {
            "schema": SCHEMA_VERSION,
            "label": self._label(),
            "variant": self._variant() or None,
            "tp": opts.tp,
            "nodes": opts.nodes,
            "endpoints": [e.url for e in self.endpoints],
            "model": self.model,
            "mode": opts.mode,
            "ladder": list(opts.ladder),
            "requests_per_user": opts.requests_per_user if opts.mode == "ladder" else None,
            "warmup_requests_per_level": 1 if opts.mode == "ladder" else 0,
            "step_duration": opts.step_duration if opts.mode == "steps" else None,
            "arrival": {
                "rate": opts.arrival_rate,
                "users": opts.arrival_users,
                "duration": opts.arrival_duration,
            }
            if opts.mode == "arrival"
            else None,
            "workload": self.workload.manifest(),
            "prompts": self.workload.describe(),
            "sampling": {"max_tokens": opts.max_tokens, **self.workload.sampling},
            "seed": opts.seed,
            "request_timeout": opts.request_timeout,
            "simulator": simulator,
            "time_scale": self.time_scale,
            "versions": {
                "sparkload": sparkload.__version__,
                "locust": locust.__version__,
                "python": platform.python_version(),
                "geventhttpclient": version("geventhttpclient"),
            },
            "host_info": {
                "hostname": socket.gethostname(),
                "platform": platform.platform(),
                "cpus": os.cpu_count(),
            },
            "client": {
                "runner": "master" if self.distributed else "local",
                "workers": len(self.runner.clients) if self.distributed else 1,
                "processes": getattr(self.environment.parsed_options, "processes", None),
            },
            "command": redacted_command(sys.argv),
            "started_at": utc_now(),
            "ended_at": None,
            "status": "running",
            "levels": [],
        }

    def _report_progress(self) -> None:
        while True:
            gevent.sleep(PROGRESS_INTERVAL)
            line = progress_line(self.profile, self.collector, self.options)
            if line:
                logger.info(line)

    # ----- Conductor (what profiles may do) --------------------------------------------
    def broadcast(self, stage: Stage) -> None:
        self.runner.send_message(MSG_STAGE, stage.to_message())

    def users_ready(self, count: int) -> bool:
        return self.runner.state == STATE_RUNNING and self.runner.user_count == count

    def busy_node(self) -> str:
        if not self.distributed:
            return "local"
        for client in self.runner.clients.values():
            if client.user_count > 0:
                return client.id
        return next(iter(self.runner.clients.values())).id

    def begin_level(self, index: int, concurrency: int, expected: int | None):
        return self.collector.begin_level(index, concurrency, expected)

    def end_level(self, index: int) -> None:
        self.collector.end_level(index)

    def in_flight(self) -> int:
        return self.collector.in_flight()

    # ----- every process ---------------------------------------------------------------
    def start_test(self) -> None:
        """At test start on every process (workers see the master's options only now)."""
        parsed = self.environment.parsed_options
        if self.options is None or self.is_worker:
            self.options = options_module.from_namespace(parsed)
            self.workload = workloads.load(self.options)
        self.model = parsed.model
        self.time_scale = float(getattr(parsed, "sparkload_time_scale", 1.0))
        self.endpoints = self._parse_endpoints()
        self.headers = build_headers(self.options.api_key)
        stream = self.runner.worker_index if self.is_worker else 0
        self.prompt_order = PromptOrder(len(self.workload.prompts), self.options.seed, stream)
        if self.shipper is None:
            monitor = None if self.distributed else ClientMonitor(self._active_level)
            self.shipper = RecordShipper(self.runner, self.node_id, monitor)
        else:
            self.shipper.reset()

    def stop_test(self) -> None:
        """Back to idle (the master's first stage message of the next test may precede its
        test_start here, so the signal is reset at the end of a test, not at the start)."""
        if self.shipper is not None:
            self.shipper.flush()
        self.signal.reset()

    def _active_level(self) -> int:
        """The level this process is sending for, or -1 while it idles (not measured then)."""
        stage = self.signal.current
        return stage.index if stage.kind in (WARMUP, MEASURE, RUN, ARRIVAL) else -1

    def next_user_ordinal(self) -> int:
        self._user_count += 1
        return self._user_count - 1

    def next_request_id(self) -> str:
        self._request_count += 1
        return f"{self.worker_label}-{self._request_count}"

    def _on_stage(self, environment: Environment, msg, **_kwargs) -> None:
        stage = Stage(**msg.data)
        if stage.kind == ARRIVAL:
            share = self.runner.user_count / max(stage.concurrency, 1)
            seed = f"{self.options.seed}:{self.node_id}"
            self.signal.run_schedule(
                start_schedule(
                    self.signal,
                    stage.arrival_rate * share,
                    stage.arrival_duration,
                    seed,
                    self.shipper.issue,
                )
            )
        self.signal.update(stage)

    def _on_records(self, environment: Environment, msg, **_kwargs) -> None:
        if self.collector is None:
            return  # records of a run that was stopped and closed
        self.collector.take(msg.data)
        if self.profile is not None and not self.profile.finished:
            self.profile.tick(self, time.monotonic())  # react at once, not at the next tick


def get(environment: Environment) -> Sparkload:
    return environment.sparkload  # type: ignore[attr-defined]
