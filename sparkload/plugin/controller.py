"""The master's (or local process's) run: target, load shape, run directory, progress.

Built once per Environment on the master or local process. Per test it settles the target
(``resolve_target``), opens the run directory with its manifest, drives the load shape on
every shape tick, takes the records every process ships and closes the run with its status.
Load shapes act on the world only through the ``Conductor`` methods at the bottom. A master
also admits workers (``admission``, with --worker-token) and reads their clocks at the run's
start and every level's (``clockwatch``), putting their records on its own clock.
"""

from __future__ import annotations

import dataclasses
import logging
import os
import platform
import socket
import sys
import time
from importlib.metadata import version
from typing import Any, cast

import gevent
import locust
from locust.env import Environment
from locust.runners import STATE_MISSING, STATE_RUNNING, MasterRunner

import sparkload
from sparkload.capacity import CapacityResult
from sparkload.clock_offsets import START
from sparkload.config import RunOptions
from sparkload.errors import ConfigError
from sparkload.hostsecrets import HostSecrets
from sparkload.plugin.admission import MasterGate
from sparkload.plugin.progress import progress_line
from sparkload.plugin.worker_clocks import WorkerClocks
from sparkload.records import (
    EXIT_ABORTED,
    EXIT_BAD_INPUT,
    EXIT_CHECK_FAILED,
    SCHEMA_VERSION,
    STATUS_ABORTED,
    STATUS_COMPLETE,
    STATUS_STOPPED,
    Manifest,
    ProbeVerdict,
    WorkerEntry,
)
from sparkload.redact import redacted_command
from sparkload.run.collector import RunCollector
from sparkload.run.context import RunContext
from sparkload.run.livetable import LevelTally
from sparkload.run.report_process import check_levels, check_options, judge_level
from sparkload.run.results import ResultsWriter, check_writable, utc_now
from sparkload.run.scrape import MetricsScraper, Source, check_nodes, simulator_nodes, sources
from sparkload.run.simulator_process import SimulatorProcess
from sparkload.shapes import SerialTicks, Shape, Tick
from sparkload.shapes.arrival import ArrivalShape, level_schedule, schedule_summary
from sparkload.shapes.ladder import LadderShape
from sparkload.shapes.search import check_search_options, search_shape
from sparkload.shapes.steps import StepsShape
from sparkload.stages import ARRIVAL, MSG_RECORDS, MSG_STAGE, Stage
from sparkload.transport import stamps
from sparkload.transport.target import ServerInfo, describe_server
from sparkload.workloads import chat, fitting, registry
from sparkload.workloads.contract import Synthetic
from sparkload.workloads.trace import TraceWorkload

logger = logging.getLogger("sparkload")
PROGRESS_INTERVAL = 5.0  # seconds between progress lines


class RunController:
    def __init__(self, environment: Environment, secrets: HostSecrets) -> None:
        self.environment = environment
        self.secrets = secrets  # this host's own: the options Locust sends hold none
        self.runner: Any = cast(Any, environment.runner)  # local or master: attributes differ
        self.distributed = isinstance(self.runner, MasterRunner)
        self.gate = MasterGate(self.runner, secrets) if self.distributed else None
        self.clocks = WorkerClocks(self.runner) if self.distributed else None
        self.context: RunContext | None = None
        self.servers: dict[str, ServerInfo] = {}  # endpoint URL -> what it said about itself
        self.simulator: SimulatorProcess | None = None
        self.collector: RunCollector | None = None
        self.shape: Shape | None = None
        self.ticks: SerialTicks | None = None  # the shape, ticked one at a time
        self.last_rows: list[dict] = []  # the table of the last finished run (web UI)
        self.final_summary = ""  # printed after Locust's own summary in headless runs
        self.capacity_line = ""  # a finished capacity search's answer, one line
        self.abort_reason = ""
        self._progress: gevent.Greenlet | None = None
        self._workers_with_users: set[str] = set()
        self.runner.register_message(MSG_RECORDS, self._on_records)

    @property
    def parsed(self) -> Any:
        """Locust's parsed options (sparkload's among them; the master adds model and scale)."""
        return self.environment.parsed_options

    # ----- before any load ---------------------------------------------------------------
    def prepare(self) -> None:
        """Check options, prompts and results dir; start the simulator when no host is given."""
        context = RunContext.from_options(self.parsed, self.environment.host, self.secrets)
        check_writable(context.options.results_dir)
        opts = context.options
        if opts.check:
            problem = check_options(["--slo", opts.check])
            if problem is not None:
                raise ConfigError(f"--check: {problem}")
        self._check_search(opts)
        if opts.endpoints and not self.environment.host:
            self.environment.host = opts.endpoints[0]
        if not self.environment.host:
            self.simulator = SimulatorProcess([*opts.simulator_args(), "--tp", str(opts.tp)])
            self.environment.host = self.simulator.start()
            logger.info(
                "No --host given: started the built-in DGX Spark simulator (%s, TP%d) at %s",
                " ".join(opts.simulator_args()),
                opts.tp,
                self.environment.host,
            )
        self.context = context.targeting(self.environment.host)

    def _check_search(self, opts: RunOptions) -> None:
        """--find-capacity: its bounds readable by the analysis, its options compatible."""
        if not opts.find_capacity:
            return
        problem = check_options(["--slo", opts.find_capacity])
        if problem is not None:
            raise ConfigError(f"--find-capacity: {problem.removeprefix('--slo: ')}")
        check_search_options(opts)

    def resolve_target(self) -> RunContext:
        """Every endpoint must answer (one clear line if not); settle the model and time scale,
        which reach the workers with the options of the test's start."""
        context = self.context
        if context is None or not self.parsed.headless:  # the web form may have changed them
            context = RunContext.from_options(self.parsed, self.environment.host, self.secrets)
        if not context.endpoints:  # the web form's Host was emptied
            if self.simulator is None or not self.simulator.url:
                raise ConfigError("no target: give a Host (the server's base URL) or --endpoints")
            self.environment.host = self.simulator.url  # no host means the built-in simulator
            context = context.targeting(self.simulator.url)
        opts = context.options
        self.servers = {
            e.url: describe_server(e.url, _lookup_headers(context), opts.model, not opts.insecure)
            for e in context.endpoints
        }
        on_simulator = self._on_simulator()
        context = dataclasses.replace(
            context,
            model=self.servers[context.endpoints[0].url].model,
            time_scale=opts.sim_time_scale if on_simulator else 1.0,
        )
        synthetic = None
        if opts.synthetic:
            synthetic = self._synthesize(context)
        elif isinstance(context.workload, TraceWorkload):
            synthetic = self._trace_source(context)
        if synthetic is not None:
            context = dataclasses.replace(context, workload=registry.load(opts, synthetic))
        nodes = [source for source in self.metrics_sources(context) if source.endpoint is None]
        check_nodes(nodes, verify_tls=not opts.insecure)
        self.parsed.model = context.model
        self.parsed.sparkload_time_scale = context.time_scale
        self.parsed.sparkload_synthetic = synthetic.to_message() if synthetic else None
        self.context = context
        return context

    def metrics_sources(self, context: RunContext) -> list[Source]:
        """The Prometheus endpoints of the run: the target's /metrics and, for a simulated TP
        cluster started here, each node's (unless --no-server-metrics), then --scrape's."""
        opts = context.options
        if not opts.server_metrics:
            return sources([], opts.scrape)
        simulator = self.simulator if self._on_simulator() else None
        simulated = simulator_nodes(simulator.url, opts.tp) if simulator and simulator.url else {}
        return sources([e.url for e in context.endpoints], {**simulated, **opts.scrape})

    def _on_simulator(self) -> bool:
        return self.simulator is not None and self.simulator.url == self.environment.host

    def _counter(self, context: RunContext, what: str) -> fitting.Counter:
        """How the target's tokens are counted (a warning when only the estimate is left)."""
        counter = fitting.counter_for(
            context.options, context.endpoints[0].url, context.model, _lookup_headers(context)
        )
        if isinstance(counter, fitting.Estimate):
            logger.warning(
                "sparkload: %s: %s: prompts are sized at 4 characters a token, an estimate (the "
                "manifest says so)",
                what,
                counter.why,
            )
        return counter

    def _synthesize(self, context: RunContext) -> Synthetic:
        """--input-tokens, --seq-dist, --prefix-tokens: fit the prompt pool once, here, where the
        target and model are known (the workers get the texts with the options, so nobody
        counts twice)."""
        opts = context.options
        what = "--input-tokens" if opts.input_tokens is not None else "--seq-dist"
        counter = self._counter(context, what)
        synthetic = fitting.synthesize(
            counter,
            chat.run_lengths(opts),
            opts.seed,
            opts.prefix_tokens,
            opts.prefix_count,
        )
        counted = synthetic.source["token_count"]
        logger.info(
            "%d prompts fitted (%s tokens), counted by %s (%d counts)",
            len(synthetic.texts),
            f"{counted['min']}-{counted['max']}"
            if counted["min"] != counted["max"]
            else counted["min"],
            counter.method,
            counted["counts_made"],
        )
        return synthetic

    def _trace_source(self, context: RunContext) -> Synthetic:
        """--trace: the run's salt (its blocks are cold in this run) and how the target counts a
        block of the trace's text (512 tokens when exact)."""
        counter = self._counter(context, "--trace")
        source = fitting.count_blocks(counter)
        if not source["token_count"]["exact"]:
            logger.warning(
                "sparkload: --trace: a 512-token block of the trace's text counts %s tokens by %s: "
                "prompt lengths and block boundaries are off by that much",
                source["token_count"]["block_tokens"],
                counter.method,
            )
        return Synthetic((), source)

    # ----- the run -----------------------------------------------------------------------
    def tick(self) -> Tick:
        """One shape tick: start the run on the first, then follow the shape."""
        if self.shape is None:
            try:
                self._start_run()
            except ConfigError as exc:
                logger.error("sparkload: %s", exc)
                self.environment.process_exit_code = EXIT_BAD_INPUT
                return None
        assert self.shape is not None and self.collector is not None
        lost = self._lost_workers()
        if lost:
            self._abort(
                f"worker {', '.join(lost)} stopped responding; the level cannot reach its exact "
                f"count, so the run stops here. The {self.collector.received} records received "
                f"are kept in {self.collector.writer.path}"
            )
            return None
        assert self.ticks is not None
        return self.ticks.tick(self, time.monotonic())

    def _start_run(self) -> None:
        settled = self.parsed.headless and self.context is not None and self.context.model
        context = self.context if settled else self.resolve_target()
        assert context is not None
        opts = context.options
        if not settled:  # the web form's options, unchecked until now
            self._check_search(opts)
        metrics_sources = self.metrics_sources(context)
        scraper = (
            MetricsScraper(metrics_sources, opts.api_key, verify_tls=not opts.insecure)
            if metrics_sources
            else None
        )

        def open_run(run: int) -> ResultsWriter:
            return ResultsWriter(opts.results_dir, self._manifest(context, run))

        if self.clocks is not None:  # before any record: every one is put on this clock
            self.clocks.reset()
            self.clocks.measure(list(self.runner.clients), START, wait=True)
        self.shape = _make_shape(context)
        self.ticks = SerialTicks(self.shape)
        levels_per_run = opts.level_count
        self.collector = RunCollector(
            open_run,
            context.time_scale,
            scraper,
            opts.metrics_interval,
            levels_per_run if opts.repeat > 1 else 0,
        )
        # Only now that the run can be closed (a stop at any later moment finds it) is it
        # announced: the matrix runner and users take this line for "under load".
        logger.info(
            "sparkload run %s: %s, results in %s",
            self.collector.writer.path.name,
            "capacity search" if opts.find_capacity else f"{opts.mode} mode",
            self.collector.writer.path,
        )
        self._progress = gevent.spawn(self._report_progress)

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

    def finish_run(self) -> None:
        """Close the run directory with its status; keep the table for the UI and the summary."""
        if self.collector is None or self.shape is None:
            return
        if self._progress is not None:
            self._progress.kill(block=False)
        if self.abort_reason:  # a shape may finish its plan early when the run aborts
            status = STATUS_ABORTED
        else:
            status = STATUS_COMPLETE if self.shape.finished else STATUS_STOPPED
        self.collector.manifest.abort_reason = self.abort_reason or None
        self._note_workers()
        self.collector.close(status)
        self.last_rows = self.collector.rows()
        if status != STATUS_COMPLETE:
            logger.warning(
                "sparkload: run stopped before its plan finished; manifest marked '%s'", status
            )
        self.final_summary = self.collector.summary()
        if self.capacity_line:
            self.final_summary += "\n" + self.capacity_line
        if self.context is not None and self.context.options.check and status != STATUS_ABORTED:
            self._check_levels(self.context.options.check, str(self.collector.writer.path))
        if not self.parsed.headless:
            print(self.final_summary, flush=True)

    def _check_levels(self, spec: str, run_dir: str) -> None:
        """--check: the analysis judges the finished run; a breach sets the exit code."""
        code, said = check_levels(spec, run_dir)
        self.final_summary += "\n" + said
        if code == EXIT_CHECK_FAILED:
            self.environment.process_exit_code = EXIT_CHECK_FAILED
        elif code != 0:
            logger.error("sparkload: --check could not be evaluated: %s", said)

    def reset_run(self) -> None:
        self.collector = None
        self.shape = None
        self.ticks = None
        self.abort_reason = ""
        self.capacity_line = ""
        self._workers_with_users.clear()

    def stop_simulator(self) -> None:
        if self.simulator is not None:
            self.simulator.stop()

    def _manifest(self, context: RunContext, run: int = 0) -> Manifest:
        opts = context.options
        on_simulator = self._on_simulator()
        variant = opts.variant or (_simulated_variant(opts) if on_simulator else "")
        ladder_mode = opts.mode == "ladder"
        return Manifest(
            schema=SCHEMA_VERSION,
            label=opts.label or (f"{variant}-tp{opts.tp}" if variant else "run"),
            variant=variant or None,
            tp=opts.tp,
            nodes=opts.nodes,
            endpoints=[e.url for e in context.endpoints],
            model=context.model,
            mode=opts.mode,
            ladder=[] if opts.find_capacity else list(opts.ladder),  # a search's: its probes
            requests_per_user=opts.requests_per_user if ladder_mode else None,
            warmup_requests_per_level=1 if ladder_mode else 0,
            step_duration=opts.step_duration if opts.mode == "steps" else None,
            slice_duration=opts.slice_duration or None,
            arrival=_arrival_entry(context) if opts.mode == "arrival" else None,
            workload=context.workload.manifest(),
            prompts=context.workload.describe(),
            sampling=context.body.sampling_entry(),
            request={
                "api": opts.api,
                "extra_body": opts.extra_body,
                "headers": sorted(opts.header),  # names only: values may be secrets
                "accept_encoding": opts.accept_encoding,
                "cache_bust": context.workload.cache_bust,
            },
            servers={url: info.manifest_entry() for url, info in self.servers.items()},
            scrape={source.node: source.url for source in self.metrics_sources(context)},
            metadata=opts.metadata,
            repeat={"run": run + 1, "of": opts.repeat} if opts.repeat > 1 else None,
            seed=opts.seed,
            request_timeout=opts.request_timeout,
            simulator={
                "profile": opts.sim_profile,
                "tp": opts.tp,
                "time_scale": opts.sim_time_scale,
                "spec": opts.sim_spec,
                "max_num_batched_tokens": opts.sim_max_num_batched_tokens,
                "prefix_caching": not opts.sim_no_prefix_caching,
                "block_size": opts.sim_block_size,
            }
            if on_simulator
            else None,
            time_scale=context.time_scale,
            versions={
                "sparkload": sparkload.__version__,
                "locust": locust.__version__,
                "python": platform.python_version(),
                "geventhttpclient": version("geventhttpclient"),
            },
            host_info={
                "hostname": socket.gethostname(),
                "platform": platform.platform(),
                "cpus": os.cpu_count(),
            },
            client={
                "runner": "master" if self.distributed else "local",
                "workers": len(self.runner.clients) if self.distributed else 1,
                "processes": getattr(self.parsed, "processes", None),
                # how this process timed receives (a master's workers: in ``workers``)
                **({} if self.distributed else {"receive_stamps": stamps.active.describe()}),
            },
            command=redacted_command(sys.argv),
            started_at=utc_now(),
            workers=self._worker_entries(),
            refused_workers=list(self.gate.refused) if self.gate else [],
        )

    def _worker_entries(self) -> list[WorkerEntry]:
        """Every worker of the run so far (the lost ones too), with its clock readings."""
        if self.gate is None or self.clocks is None:
            return []
        nodes = set(self.runner.clients) | set(self.clocks.readings) | set(self.clocks.flags)
        entries = [
            WorkerEntry(
                node=node,
                index=self.runner.get_worker_index(node),
                **self.gate.about.get(node, {}),
                **self.clocks.entry(node),
            )
            for node in nodes
        ]
        return sorted(entries, key=lambda entry: entry.index)

    def _note_workers(self) -> None:
        """The manifest's workers as they stand (written with the manifest's next write)."""
        if self.collector is not None and self.gate is not None:
            self.collector.manifest.workers = self._worker_entries()
            self.collector.manifest.refused_workers = list(self.gate.refused)

    def _report_progress(self) -> None:
        while True:
            gevent.sleep(PROGRESS_INTERVAL)
            if self.context is not None:
                line = progress_line(self.shape, self.collector, self.context.options)
                if line:
                    logger.info(line)

    def _on_records(self, environment: Environment, msg, **_kwargs) -> None:
        if self.collector is None:
            return  # records of a run that was stopped and closed
        offset = None
        if self.clocks is not None:
            offset = self.clocks.offset(msg.node_id)
            if offset is None and msg.data.get("records"):
                self.clocks.note_unaligned(msg.node_id)
        self.collector.take(msg.data, offset)
        if self.ticks is not None and not self.ticks.shape.finished:
            self.ticks.tick(self, time.monotonic(), wait=False)  # at once, unless one is under way

    # ----- Conductor (what shapes may do) ------------------------------------------------
    def broadcast(self, stage: Stage) -> None:
        if stage.kind == ARRIVAL and self.collector is not None and self.context is not None:
            summary = schedule_summary(level_schedule(self.context, stage))
            self.collector.note_schedule(stage.index, summary)
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

    def begin_level(
        self,
        index: int,
        concurrency: int,
        expected: int | None,
        arrival_rate: float | None = None,
        sessions: int | None = None,
    ) -> LevelTally:
        assert self.collector is not None
        if self.clocks is not None:
            self.clocks.measure(list(self.runner.clients), index, wait=False)
        self._note_workers()
        return self.collector.begin_level(index, concurrency, expected, arrival_rate, sessions)

    def end_level(
        self, index: int, saturation: str | None = None, stops_sweep: bool = False
    ) -> None:
        assert self.collector is not None
        self._note_workers()
        self.collector.end_level(index, saturation, stops_sweep)

    def in_flight(self) -> int:
        assert self.collector is not None
        return self.collector.in_flight()

    def user_shares(self) -> dict[str, int]:
        if not self.distributed:
            return {"local": self.runner.user_count}
        return {client.id: client.user_count for client in self.runner.clients.values()}

    def judge_level(self, index: int) -> ProbeVerdict | None:
        assert self.collector is not None and self.context is not None
        run_dir = str(self.collector.writer.path)
        try:
            return judge_level(self.context.options.find_capacity, run_dir, index)
        except ValueError as exc:
            self._abort(f"--find-capacity: level {index + 1} could not be judged: {exc}")
            return None

    def record_capacity(self, result: CapacityResult) -> None:
        assert self.collector is not None
        self.collector.manifest.capacity = result.manifest_entry()
        self.collector.writer.write_manifest()
        if result.complete:
            self.capacity_line = result.line()
            logger.info("sparkload %s", self.capacity_line)
            if result.capacity is None:  # not even the lowest probe met the bounds
                self.environment.process_exit_code = EXIT_CHECK_FAILED


def _make_shape(context: RunContext) -> Shape:
    """The load shape of the options; --repeat N runs its whole plan N times back to back."""
    opts = context.options
    workload = context.workload
    if isinstance(workload, TraceWorkload):  # one level: the trace, as fast as asked
        return ArrivalShape(
            (workload.trace.offered_rate * workload.speedup,) * opts.repeat,
            opts.arrival_users,
            workload.trace.span_s / workload.speedup,
            opts.request_timeout,
            context.time_scale,
            # a trace is replayed whole (it is a recording, not a sweep): over-saturation is
            # flagged, the replay is never cut short
            saturation_stop=False,
        )
    if opts.find_capacity:
        return search_shape(opts, context.time_scale, workload.requests_per_session)
    if opts.mode == "arrival":
        return ArrivalShape(
            opts.arrival_rate * opts.repeat,
            opts.arrival_users,
            opts.arrival_duration,
            opts.request_timeout,
            context.time_scale,
            saturation_stop=not opts.no_saturation_stop,
        )
    if opts.mode == "steps":
        return StepsShape(opts.ladder * opts.repeat, opts.step_duration, opts.request_timeout)
    return LadderShape(
        opts.ladder * opts.repeat,
        opts.requests_per_user,
        context.workload.requests_per_session,
    )


def _arrival_entry(context: RunContext) -> dict[str, Any]:
    """The manifest's ``arrival``: the open-loop plan, rates and durations in the target's time
    (``time: target``; manifests before it held real-time rates)."""
    opts = context.options
    workload = context.workload
    if isinstance(workload, TraceWorkload):
        return {
            "rates": [workload.trace.offered_rate * workload.speedup],
            "users": opts.arrival_users,
            "duration": workload.trace.span_s / workload.speedup,
            "trace": workload.trace.describe(),
            "speedup": workload.speedup,
            "time": "target",
        }
    return {
        "rates": [] if opts.find_capacity else list(opts.arrival_rate),  # a search's: probes
        "users": opts.arrival_users,
        "duration": opts.arrival_duration,
        "process": opts.arrival_process,
        "burstiness": opts.burstiness,
        "time": "target",
    }


def _simulated_variant(opts: RunOptions) -> str:
    """The simulator's deployment as a variant name: the profile, plus what the run changed
    (``qwen3.8-nvfp4-dspark14-b16384``), so differently configured runs do not share a label."""
    parts = [opts.sim_profile]
    if opts.sim_spec:
        parts.append(opts.sim_spec.replace(":", ""))
    if opts.sim_max_num_batched_tokens:
        parts.append(f"b{opts.sim_max_num_batched_tokens}")
    if opts.sim_block_size:
        parts.append(f"bs{opts.sim_block_size}")
    if opts.sim_no_prefix_caching:
        parts.append("nocache")
    return "-".join(parts)


def _lookup_headers(context: RunContext) -> dict[str, str]:
    """The run's headers (API key, a gateway's tenant header) for the GETs that look the
    target up, without what only a streaming POST needs."""
    drop = {"content-type", "accept", "accept-encoding"}
    return {k: v for k, v in context.headers.items() if k.lower() not in drop}


def controller_of(environment: Environment) -> RunController:
    return environment.sparkload_controller  # type: ignore[attr-defined]
