"""The master's (or local process's) run on Locust's events: set up, tick, take records, close.

Built once per Environment on the master or local process. It only orchestrates: the set-up
before the load is ``run/setup.py``'s, the manifest ``run/manifest.py``'s, the records and the
run directory the ``RunCollector``'s, the load shape the one ``shapes.registry`` picks for the
plan. Per test it settles the target (``resolve_target``), opens the run directory, ticks the
shape and closes the run with its status; shapes act on the world only through the
``Conductor`` methods at the bottom. A master also admits workers (``admission``, with
--worker-token) and reads their clocks at the run's start and every level's (``worker_clocks``),
putting their records on its own clock.
"""

from __future__ import annotations

import logging
import sys
import time
from typing import Any, cast

import gevent
from locust.env import Environment
from locust.runners import STATE_MISSING, STATE_RUNNING, MasterRunner

from sparkload.capacity import CapacityResult
from sparkload.clock_offsets import START
from sparkload.errors import ConfigError
from sparkload.hostsecrets import HostSecrets
from sparkload.plugin.admission import MasterGate
from sparkload.plugin.dispatch import WORKER_ORDER, dispatch_order
from sparkload.plugin.prometheus import PrometheusPlugin
from sparkload.plugin.worker_clocks import WorkerClocks
from sparkload.records import (
    EXIT_ABORTED,
    EXIT_BAD_INPUT,
    EXIT_CHECK_FAILED,
    EXIT_INTERRUPTED,
    NO_MARKS,
    STATUS_ABORTED,
    STATUS_COMPLETE,
    STATUS_STOPPED,
    CapacityProbe,
    ClientEntry,
    LevelMarks,
    ProbeVerdict,
    ReceiveStamps,
    sustain_line,
)
from sparkload.redact import redacted_command
from sparkload.run import manifest, setup
from sparkload.run.collector import RunCollector
from sparkload.run.context import RunContext
from sparkload.run.livetable import LevelTally
from sparkload.run.quality_probe import ProbeTally
from sparkload.run.report_process import check_levels, judge_level
from sparkload.run.results import ResultsWriter, utc_now
from sparkload.run.scrape import MetricsScraper
from sparkload.run.servercontrol import ServerControl
from sparkload.run.simulator_process import SimulatorProcess
from sparkload.shapes import SerialTicks, Shape, Tick
from sparkload.shapes.arrival import level_schedule, schedule_summary
from sparkload.shapes.progress import progress_line
from sparkload.shapes.registry import shape_for
from sparkload.stages import ARRIVAL, MEASURE, MSG_RECORDS, MSG_STAGE, RUN, Stage
from sparkload.transport import stamps
from sparkload.transport.target import ServerInfo

logger = logging.getLogger("sparkload")
PROGRESS_INTERVAL = 5.0  # seconds between progress lines


class RunClosed(Exception):
    """The run a shape's tick was conducting is closed (``RunController._open_run``)."""


class RunController:
    def __init__(self, environment: Environment, secrets: HostSecrets) -> None:
        self.environment = environment
        self.secrets = secrets  # this host's own: the options Locust sends hold none
        self.runner: Any = cast(Any, environment.runner)  # local or master: attributes differ
        self.distributed = isinstance(self.runner, MasterRunner)
        self.gate = MasterGate(self.runner, secrets) if self.distributed else None
        self.clocks = WorkerClocks(self.runner) if self.distributed else None
        self.prometheus = PrometheusPlugin()  # --prometheus-port: the records, live
        self.settled: setup.Settled | None = None  # the command line's options, checked
        self.context: RunContext | None = None  # the run's, once the target is settled
        self.servers: dict[str, ServerInfo] = {}  # endpoint URL -> what it said about itself
        self.server_info: dict[str, dict[str, Any]] = {}  # endpoint URL -> its /server_info
        self.control: ServerControl | None = None  # --reset-prefix-cache, --server-profile
        self.simulator: SimulatorProcess | None = None
        self.collector: RunCollector | None = None
        self.shape: Shape | None = None
        self._finishing = False  # finish_run under way (closing the run may yield)
        self.ticks: SerialTicks | None = None  # the shape, ticked one at a time
        self.last_rows: list[dict] = []  # the table of the last finished run (web UI)
        self.final_summary = ""  # printed after Locust's own summary in headless runs
        self.capacity_lines: dict[str, str] = {}  # each finished search's answer, by tier
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
        self.settled = setup.settle(self.parsed, self.secrets)
        opts = self.settled.options
        setup.check(opts)
        self.prometheus.serve(opts.results)
        if opts.target.endpoints and not self.environment.host:
            self.environment.host = opts.target.endpoints[0]
        if not self.environment.host:
            args = [*opts.simulator.args(), "--tp", str(opts.target.tp)]
            self.simulator = SimulatorProcess(args)
            self.environment.host = self.simulator.start()
            logger.info(
                "No --host given: started the built-in DGX Spark simulator (%s, TP%d) at %s",
                " ".join(opts.simulator.args()),
                opts.target.tp,
                self.environment.host,
            )

    def resolve_target(self) -> RunContext:
        """Every endpoint must answer (one clear line if not); settle the model, the time scale
        and the prompts, which reach the workers with the options of the test's start."""
        settled = self.settled
        if settled is None or not self.parsed.headless:  # the web form may have changed them
            settled = setup.settle(self.parsed, self.secrets)
        if not self.environment.host and self.simulator is not None and self.simulator.url:
            self.environment.host = self.simulator.url  # no host means the built-in simulator
        resolved = setup.resolve(settled, self.environment.host, self._simulator_url())
        self.servers = resolved.servers
        self.server_info = resolved.server_info
        for name, value in resolved.handed_on().items():
            setattr(self.parsed, name, value)
        self.context = resolved.context
        return self.context

    def _simulator_url(self) -> str | None:
        """The built-in simulator's URL when it is the target, else None."""
        sim = self.simulator
        on_simulator = sim is not None and sim.url and sim.url == self.environment.host
        return sim.url if sim is not None and on_simulator else None

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
        try:
            return self.ticks.tick(self, time.monotonic())
        except RunClosed:
            return None

    def _start_run(self) -> None:
        settled = self.parsed.headless and self.context is not None
        context = self.context if settled else self.resolve_target()
        assert context is not None
        opts = context.options
        if not settled:  # the web form's options, unchecked until now
            setup.check(opts)
        watcher = self.prometheus.serve(opts.results)  # the web form may have moved it
        sources = setup.metrics_sources(context, self._simulator_url())
        verify = not opts.target.insecure
        scraper = (
            MetricsScraper(sources, opts.target.api_key, verify_tls=verify) if sources else None
        )
        if self.clocks is not None:  # before any record: every one is put on this clock
            self.clocks.reset()
            self.clocks.measure(list(self.runner.clients), START, wait=True)
        if self.distributed:  # every worker numbers its users in the run by it
            clients = self.runner.clients
            active = clients.ready + clients.running + clients.spawning
            setattr(self.parsed, WORKER_ORDER, dispatch_order(worker.id for worker in active))
        self.shape = shape_for(context)
        self.ticks = SerialTicks(self.shape)
        self.control = ServerControl(
            context.endpoints,
            setup.lookup_headers(context.headers),
            opts.target.reset_prefix_cache,
            opts.target.server_profile or 0,
            verify,
        )
        scrape = {source.node: source.url for source in sources}

        def open_run(run: int) -> ResultsWriter:  # each of --repeat's runs when it starts
            facts = self._facts(scrape)
            return ResultsWriter(opts.results.results_dir, manifest.manifest(context, run, facts))

        self.collector = RunCollector(
            open_run,
            context.time_scale,
            scraper,
            opts.server_metrics.metrics_interval,
            opts.level_count if opts.plan.repeat > 1 else 0,
            watchers=[watcher] if watcher is not None else [],
            probes=ProbeTally(context.probe) if context.probe is not None else None,
        )
        # Only now that the run can be closed (a stop at any later moment finds it) is it
        # announced: the matrix runner and users take this line for "under load".
        logger.info(
            "sparkload run %s: %s, results in %s",
            self.collector.writer.path.name,
            "capacity search" if opts.plan.searches else f"{opts.mode} mode",
            self.collector.writer.path,
        )
        self._progress = gevent.spawn(self._report_progress)

    def _facts(self, scrape: dict[str, str]) -> manifest.RunFacts:
        """What the manifest says beyond the options, as this process knows it now."""
        client = ClientEntry(
            runner="master" if self.distributed else "local",
            workers=len(self.runner.clients) if self.distributed else 1,
            processes=getattr(self.parsed, "processes", None),
        )
        if not self.distributed:  # how this process timed receives (a master's workers: theirs)
            client.receive_stamps = ReceiveStamps.from_dict(stamps.active.describe())
        return manifest.RunFacts(
            servers=self.servers,
            scrape=scrape,
            on_simulator=self._simulator_url() is not None,
            client=client,
            command=redacted_command(sys.argv),
            started_at=utc_now(),
            versions=manifest.versions_now(),
            host_info=manifest.host_now(),
            workers=self._worker_entries(),
            refused_workers=list(self.gate.refused) if self.gate else [],
            server_info=self.server_info,
        )

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
        """Close the run directory with its status; keep the table for the UI and the summary.

        Closing may yield (the records' last Parquet part is built in a thread), and Locust may
        stop the test again meanwhile (a SIGTERM's quit after its stop) and reset the run: a
        second call while one is under way returns, and this one works on what it began with."""
        collector, shape, control = self.collector, self.shape, self.control
        if collector is None or shape is None or self._finishing:
            return
        self._finishing = True
        try:
            self._finish(collector, shape, control, self.abort_reason, self.capacity_lines)
        finally:
            self._finishing = False

    def _finish(
        self,
        collector: RunCollector,
        shape: Shape,
        control: ServerControl | None,
        abort_reason: str,
        capacity_lines: dict[str, str],
    ) -> None:
        if self._progress is not None:
            self._progress.kill(block=False)
        if control is not None:  # a run stopped inside the profiled level
            collector.note_refusals(control.level_over())
        if abort_reason:  # a shape may finish its plan early when the run aborts
            status = STATUS_ABORTED
        else:
            status = STATUS_COMPLETE if shape.finished else STATUS_STOPPED
        collector.manifest.abort_reason = abort_reason or None
        self._note_workers()
        collector.close(status)
        self.last_rows = collector.rows()
        if status != STATUS_COMPLETE:
            logger.warning(
                "sparkload: run stopped before its plan finished; manifest marked '%s'", status
            )
        summary = collector.summary()
        for line in capacity_lines.values():
            summary += "\n" + line
        self.final_summary = summary
        check = self.context.options.results.check if self.context is not None else ""
        if check and status != STATUS_ABORTED:
            self._check_levels(check, str(collector.writer.path))
        if status == STATUS_STOPPED:  # after --check: part of a plan is no pass, whatever it says
            self.environment.process_exit_code = EXIT_INTERRUPTED
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
        self.control = None
        self.abort_reason = ""
        self.capacity_lines = {}
        self._workers_with_users.clear()

    def shut_down(self) -> None:
        """At the process's end (or a failed start): close a run still under way, then stop the
        simulator and free the metrics' port. Locust stops the users only after this (and after
        choosing the exit code), so a web UI's run cut by Ctrl-C or SIGTERM is closed here, while
        its target still answers and before the code is chosen."""
        if self.collector is not None:
            self.runner.stop()  # test_stop closes the run "stopped"
        self.prometheus.stop()
        if self.simulator is not None:
            self.simulator.stop()

    def _worker_entries(self) -> list:
        """Every worker of the run so far (the lost ones too), with its clock readings."""
        if self.gate is None or self.clocks is None:
            return []
        clocks = self.clocks
        nodes = set(self.runner.clients) | set(clocks.readings) | set(clocks.flags)
        return manifest.worker_entries(
            nodes, self.runner.get_worker_index, self.gate.about, clocks.entry
        )

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
        # taking them may yield (the results file), and the run may have stopped and closed its
        # collector meanwhile (a worker's last batch on the test's stop): nothing to tick then
        if self.collector is None:
            return
        if self.ticks is not None and not self.ticks.shape.finished:
            try:
                self.ticks.tick(self, time.monotonic(), wait=False)  # at once, unless under way
            except RunClosed:
                return

    # ----- Conductor (what shapes may do; ``shapes.Conductor`` says what each must do) -----
    def broadcast(self, stage: Stage) -> None:
        if stage.kind == ARRIVAL and self.collector is not None and self.context is not None:
            summary = schedule_summary(level_schedule(self.context, stage))
            self.collector.note_schedule(stage.index, summary)
        if stage.kind in (MEASURE, RUN, ARRIVAL) and self.control is not None:
            assert self.collector is not None
            self.collector.note_refusals(self.control.measuring(stage.index))
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
        marks: LevelMarks = NO_MARKS,
    ) -> LevelTally:
        collector, control = self._open_run()
        if self.clocks is not None:
            self.clocks.measure(list(self.runner.clients), index, wait=False)
        self._note_workers()
        tally = collector.begin_level(index, concurrency, expected, arrival_rate, sessions, marks)
        # before the shape tells the level's users anything (they wait until it does)
        collector.note_refusals(control.before_level(index))
        return tally

    def end_level(
        self, index: int, saturation: str | None = None, stops_sweep: bool = False
    ) -> None:
        collector, _ = self._open_run()
        self._note_workers()
        collector.end_level(index, saturation, stops_sweep)
        # after the level's end is dated and scraped (which may yield: the run may be closed
        # by then) a profile's stop waits for its traces
        collector, control = self._open_run()
        collector.note_refusals(control.level_over(index))

    def in_flight(self) -> int:
        collector, _ = self._open_run()
        return collector.in_flight()

    def _open_run(self) -> tuple[RunCollector, ServerControl]:
        """The run's collector and server control; RunClosed when the run was stopped and
        closed meanwhile (a conductor call yielded inside a shape's tick, e.g. scraping a
        level's end, while the test stopped): the tick ends there."""
        if self.collector is None or self.control is None:
            raise RunClosed
        return self.collector, self.control

    def user_shares(self) -> dict[str, int]:
        if not self.distributed:
            return {"local": self.runner.user_count}
        return {client.id: client.user_count for client in self.runner.clients.values()}

    def judge_level(self, index: int, bounds: list[str]) -> list[ProbeVerdict] | None:
        assert self.collector is not None and self.context is not None
        run_dir = str(self.collector.writer.path)
        try:
            return judge_level(bounds, run_dir, index)
        except ValueError as exc:
            flag = "--tier" if self.context.options.plan.tiers else "--find-capacity"
            self._abort(f"{flag}: level {index + 1} could not be judged: {exc}")
            return None

    def record_capacity(self, results: list[CapacityResult]) -> None:
        """--find-capacity's one search into ``Manifest.capacity``, --tier's into ``tiers``;
        each search's line said once, when it is settled (a tier may settle before others)."""
        assert self.collector is not None
        entries = [result.manifest_entry() for result in results]
        if any(result.tier for result in results):
            self.collector.manifest.tiers = entries
        else:
            (self.collector.manifest.capacity,) = entries
        self.collector.writer.write_manifest()
        for result in results:
            if result.complete and result.tier not in self.capacity_lines:
                self.capacity_lines[result.tier] = result.line()
                logger.info("sparkload %s", result.line())
                if result.capacity is None:  # not even the lowest probe met (a tier: its 0)
                    self.environment.process_exit_code = EXIT_CHECK_FAILED

    def record_sustain(self, value: float | None, verdict: ProbeVerdict | None) -> None:
        assert self.collector is not None and self.context is not None
        entry = self.collector.manifest.capacity
        if entry is None:
            return
        if value is not None and verdict is not None:
            entry.sustained = CapacityProbe(value, verdict)
            self.collector.writer.write_manifest()
        line = sustain_line(entry, value, self.context.options.plan.sustain, verdict)
        self.capacity_lines["sustain"] = line
        logger.info("sparkload %s", line)
        if verdict is None or not verdict.holds_within_sample:
            self.environment.process_exit_code = EXIT_CHECK_FAILED


def controller_of(environment: Environment) -> RunController:
    return environment.sparkload_controller  # type: ignore[attr-defined]
