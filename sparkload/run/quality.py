"""``sparkload quality``: an accuracy probe run alone, each item sent once, graded, and kept.

The steps, in order, each failing with one line and exit code 2 before anything is sent:
the options; every ``--dataset`` read and checked line by line (``quality.datasets``) and the
arithmetic probe generated; the results directory; the built-in simulator started when no
``--host`` is given (as ``run`` starts it, ``simulator_process``); the target looked up
(``transport.target``: reachable, its model); the retrieval probe fitted to the target's token
count (``workloads.fitting``: ``--tokenizer``, the target's ``/tokenize``, else the estimate).

Then a run directory like ``run``'s (``ResultsWriter``): ``manifest.json`` (mode and workload
``quality``, one level at ``--concurrency``), its records (one per item sent, so
the report states what the probe cost), and ``quality.json`` (``records.quality``), rewritten
every few seconds and at the end: a stopped run keeps what was graded. Each item is sent once on
the project's own wire (``transport.client.measure``, its reply's text kept with a ``Reply``),
at temperature 0 with a fixed seed unless told otherwise, ``--concurrency`` at a time, each
bounded by ``--request-timeout``. No retries: a failed request is reported, not graded.

The API key and header values are this host's (``hostsecrets``: the command line, the
environment's ``OPENAI_API_KEY``, ``--secrets-file``); they go into request headers only, never
into a file or a printed line.
"""

from __future__ import annotations

import signal
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import gevent

from sparkload.body import BodyTemplate
from sparkload.errors import ConfigError
from sparkload.model_mix import ModelMix
from sparkload.quality import probes
from sparkload.quality.items import ITEM_HEADER, ItemSet
from sparkload.quality.tally import Outcome, result, summary_line
from sparkload.records import (
    API_CHAT,
    EXIT_BAD_INPUT,
    EXIT_INTERRUPTED,
    EXIT_OK,
    EXIT_REQUESTS_FAILED,
    MODE_QUALITY,
    PHASE_MEASURE,
    STATUS_COMPLETE,
    STATUS_STOPPED,
    ClientEntry,
    LevelEntry,
    Manifest,
    PromptsEntry,
    QualityEntry,
    RequestEntry,
    RequestRecord,
    WorkloadEntry,
)
from sparkload.redact import redacted_command
from sparkload.run.context import request_headers
from sparkload.run.manifest import host_now, label_and_variant, simulator_entry, versions_now
from sparkload.run.quality_options import PROG, Plan, settle
from sparkload.run.results import ResultsWriter, utc_now
from sparkload.run.setup import lookup_headers
from sparkload.run.simulator_process import SimulatorProcess
from sparkload.transport.client import Connection, StreamRequest, measure
from sparkload.transport.tally import Reply
from sparkload.transport.target import Endpoint, ServerInfo, describe_server
from sparkload.workloads import fitting
from sparkload.workloads.contract import PlannedRequest

PROGRESS_EVERY = 5.0  # seconds between progress lines (and quality.json's rewrites)
STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM)  # each ends the run as Ctrl-C does


@dataclass
class Target:
    url: str
    endpoint: Endpoint
    server: ServerInfo
    headers: dict[str, str]  # every request's (the key among them: never written)
    on_simulator: bool


def look_up(plan: Plan, url: str, on_simulator: bool) -> Target:
    """The target answers and says its model (one clear line if not), as ``run`` looks up its
    own (``run.setup``): the same headers, the same look-up."""
    options = plan.options
    headers = request_headers(options)
    models = ModelMix.parse(options.target.model)
    if models.mixed:
        raise ConfigError("--model: sparkload quality probes one model, not a mix")
    server = describe_server(
        url, lookup_headers(headers), models.names, not options.target.insecure
    )
    return Target(url, Endpoint.parse(url), server, headers, on_simulator)


def counter_for(plan: Plan, target: Target) -> fitting.Counter:
    """How the retrieval probe counts tokens, as ``run`` counts its prompts': --tokenizer, the
    target's route, else the estimate (said here; quality.json says so too)."""
    counter = fitting.counter_for(
        plan.options, target.url, target.server.model, lookup_headers(target.headers)
    )
    if isinstance(counter, fitting.Estimate):
        _say(
            f"retrieval: {counter.why}: its context is sized at 4 characters a token, an "
            "estimate (quality.json says so)"
        )
    return counter


@dataclass
class Progress:
    """What has been sent and graded so far (one process, greenlets only: no locks)."""

    total: int
    started: float = field(default_factory=time.monotonic)
    outcomes: list[Outcome] = field(default_factory=list)

    def line(self) -> str:
        graded = [o for o in self.outcomes if o.grade is not None]
        right = sum(1 for o in graded if o.grade is not None and o.grade.correct)
        failed = len(self.outcomes) - len(graded)
        return (
            f"{len(self.outcomes)}/{self.total} items sent: {len(graded)} graded, {right} right, "
            f"{failed} failed ({time.monotonic() - self.started:.0f} s)"
        )


def main(argv: list[str] | None = None) -> int:
    """``sparkload quality [options]``: exit 0, 1 (a request failed), 2 (bad input), 130."""
    args = sys.argv[1:] if argv is None else argv
    simulator: SimulatorProcess | None = None
    try:
        plan = settle(args)
        url = plan.quality.host
        if not url:
            sim_args = [*plan.options.simulator.args(), "--tp", str(plan.options.target.tp)]
            simulator = SimulatorProcess(sim_args)
            url = simulator.start()
            _say(f"no --host: started the built-in simulator ({' '.join(sim_args)}) at {url}")
        target = look_up(plan, url, simulator is not None)
        if plan.retrieval:
            plan.sets.append(
                probes.retrieval(
                    plan.quality.probe_items,
                    counter_for(plan, target),
                    plan.quality.seed,
                    plan.quality.context_tokens,
                    plan.quality.depth,
                )
            )
        return run(plan, target, args)
    except ConfigError as exc:
        sys.stderr.write(f"{PROG}: error: {exc}\n")
        return EXIT_BAD_INPUT
    except KeyboardInterrupt:  # before the run began: nothing was sent
        sys.stderr.write(f"{PROG}: stopped before any request\n")
        return EXIT_INTERRUPTED
    except SystemExit as exc:  # argparse: --help, or a usage error (its own line, exit 2)
        return exc.code if isinstance(exc.code, int) else EXIT_BAD_INPUT
    finally:
        if simulator is not None:
            simulator.stop()


def run(plan: Plan, target: Target, argv: list[str]) -> int:
    """Send every item once, grade it, and keep the run directory current; the exit code."""
    template = body_template(plan, target.server.model)
    work = [(items, index) for items in plan.sets for index in range(len(items.items))]
    writer = ResultsWriter(plan.options.results.results_dir, manifest(plan, target, template, argv))
    level = writer.manifest.levels[0]
    progress = Progress(len(work))
    _say(
        f"run {writer.path.name}: {len(work)} items of {', '.join(s.name for s in plan.sets)} "
        f"against {target.url} ({target.server.model}), {plan.quality.concurrency} at a time"
    )

    def keep(status: str | None = None) -> None:
        level.received = len(progress.outcomes)
        complete = status == STATUS_COMPLETE
        writer.write_quality(quality(plan.sets, progress.outcomes, plan, complete))
        if status is None:
            writer.write_manifest()

    def on_outcome(outcome: Outcome, record: RequestRecord) -> None:
        progress.outcomes.append(outcome)
        writer.append_records([record.to_dict()])

    def report_progress() -> None:
        while True:
            gevent.sleep(PROGRESS_EVERY)
            keep()
            _say(progress.line())

    users = send_all(work, target, template, plan, on_outcome)
    ticker = gevent.spawn(report_progress)
    stopped: list[int] = []

    def stop() -> None:  # Ctrl-C or SIGTERM, in the hub: the users end, the run is kept
        if not stopped:
            stopped.append(1)
            _say("stopped: keeping what was graded (items in flight are not)")
            gevent.killall(users, block=False)

    handlers = [gevent.signal_handler(number, stop) for number in STOP_SIGNALS]
    try:
        gevent.joinall(users, raise_error=True)
    finally:
        for handler in handlers:
            handler.cancel()
        ticker.kill()
    status = STATUS_STOPPED if stopped else STATUS_COMPLETE
    level.ended_at = utc_now()
    keep(status)
    writer.close(status)
    summary = quality(plan.sets, progress.outcomes, plan, status == STATUS_COMPLETE)
    for r in summary.results:
        print(summary_line(r))
    print(f"results in {writer.path}")
    if status == STATUS_STOPPED:
        return EXIT_INTERRUPTED
    return EXIT_REQUESTS_FAILED if any(r.failed for r in summary.results) else EXIT_OK


def body_template(plan: Plan, model: str) -> BodyTemplate:
    """Every request's body beside its prompt: temperature (0), the seed, the run's extras."""
    request = plan.options.request
    extras: dict[str, Any] = {"temperature": request.temperature, "seed": plan.quality.seed}
    if request.top_p is not None:
        extras["top_p"] = request.top_p
    if request.no_thinking:
        extras["chat_template_kwargs"] = {"enable_thinking": False}
    extras.update(request.extra_body)
    return BodyTemplate(
        model,
        plan.quality.max_tokens,
        API_CHAT,
        {key: value for key, value in extras.items() if value is not None},
    )


def request_for(
    planned: PlannedRequest,
    template: BodyTemplate,
    path: str,
    headers: dict[str, str],
    timeout: float,
) -> StreamRequest:
    """One item's request (``ItemSet.planned``) in the run's body, ready to send."""
    return StreamRequest(path, template.encode(planned), headers, timeout, template.wire.reader)


def send_all(
    work: list[tuple[ItemSet, int]],
    target: Target,
    template: BodyTemplate,
    plan: Plan,
    on_outcome: Callable[[Outcome, RequestRecord], None],
) -> list[gevent.Greenlet]:
    """``--concurrency`` greenlets, each on its own connection, taking the next item until none
    is left; every item once."""
    pending: Iterator[tuple[int, tuple[ItemSet, int]]] = iter(enumerate(work))
    timeout = plan.options.request.request_timeout
    verify = not plan.options.target.insecure
    concurrency = plan.quality.concurrency
    path = target.endpoint.path_for(template.wire.route)

    def user(index: int) -> None:
        connection = Connection(target.endpoint.base, timeout, verify)
        try:
            for number, (items, index_in_set) in pending:
                planned = items.planned(index_in_set, template.max_tokens)
                record = RequestRecord(
                    request_id=f"q{number + 1}",
                    level=concurrency,
                    level_index=0,
                    phase=PHASE_MEASURE,
                    worker="local",
                    user=index,
                    endpoint=target.url,
                    model=target.server.model,
                    prompt_index=planned.prompt_index,
                    max_tokens=template.max_tokens,
                    start_time=0.0,
                    extra=dict(planned.extra),
                )
                reply = Reply()
                item = items.items[index_in_set]
                headers = {**target.headers, ITEM_HEADER: item.id}  # a server ignores it
                request = request_for(planned, template, path, headers, timeout)
                measure(connection, request, record, reply)
                on_outcome(Outcome.of(item, record, reply.content, reply.tool_calls), record)
        finally:
            connection.close()

    return [gevent.spawn(user, index) for index in range(min(concurrency, len(work)))]


def quality(
    sets: list[ItemSet], outcomes: list[Outcome], plan: Plan, complete: bool
) -> QualityEntry:
    """quality.json as the outcomes so far make it."""
    by_set: dict[str, list[Outcome]] = {s.name: [] for s in sets}
    owner = {id(item): s.name for s in sets for item in s.items}
    for outcome in outcomes:
        by_set[owner[id(outcome.item)]].append(outcome)
    return QualityEntry(
        complete=complete and len(outcomes) == sum(len(s.items) for s in sets),
        results=[result(s, by_set[s.name], plan.quality.keep_outputs) for s in sets],
    )


def manifest(plan: Plan, target: Target, template: BodyTemplate, argv: list[str]) -> Manifest:
    """The run's manifest: a quality run of one level (every item at --concurrency)."""
    options, own = plan.options, plan.quality
    simulator = options.simulator if target.on_simulator else None
    label, variant = label_and_variant(options, target.on_simulator, MODE_QUALITY)
    tp = options.target.tp
    total = sum(len(s.items) for s in plan.sets)
    started = utc_now()
    return Manifest(
        label=label,
        variant=variant,
        tp=tp,
        nodes=1,
        endpoints=[target.url],
        model=target.server.model,
        mode=MODE_QUALITY,
        ladder=[own.concurrency],
        requests_per_user=None,
        warmup_requests_per_level=0,
        workload=WorkloadEntry(name=MODE_QUALITY, max_tokens=template.max_tokens),
        prompts=PromptsEntry.from_dict(
            {"count": total, "sets": [s.name for s in plan.sets], "seed": own.seed}
        ),
        sampling=template.sampling_entry(),
        seed=own.seed,
        request_timeout=options.request.request_timeout,
        simulator=simulator_entry(simulator, tp) if simulator else None,
        time_scale=simulator.time_scale if simulator else 1.0,
        versions=versions_now(),
        host_info=host_now(),
        client=ClientEntry(runner="local", workers=1, processes=None),
        request=RequestEntry(
            api=API_CHAT,
            extra_body=options.request.extra_body,
            headers=sorted(options.request.header),  # names only
            accept_encoding="identity",
        ),
        servers={target.url: target.server.manifest_entry()},
        metadata=options.results.metadata,
        command=redacted_command(["sparkload", "quality", *argv]),
        started_at=started,
        levels=[LevelEntry(0, own.concurrency, total, started)],
    )


def _say(message: str) -> None:
    print(f"{PROG}: {message}", file=sys.stderr, flush=True)
