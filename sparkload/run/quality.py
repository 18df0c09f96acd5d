"""``sparkload quality``: an accuracy probe run alone, each item sent once, graded, and kept.

The steps, in order, each failing with one line and exit code 2 before anything is sent:
the options; every ``--dataset`` read and checked line by line (``quality.datasets``) and the
arithmetic probe generated; the results directory; the built-in simulator started when no
``--host`` is given (as ``run`` starts it, ``simulator_process``); the target looked up
(``transport.target``: reachable, its model); the retrieval probe fitted to the target's token
count (``workloads.fitting``: ``--tokenizer``, the target's ``/tokenize``, else the estimate).

Then a run directory like ``run``'s (``ResultsWriter``): ``manifest.json`` (mode and workload
``quality``, one level at ``--concurrency``), ``requests.jsonl`` (one record per item sent, so
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

import argparse
import json
import os
import signal
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import gevent

from sparkload import config
from sparkload.body import BodyTemplate
from sparkload.errors import ConfigError
from sparkload.hostsecrets import HostSecrets
from sparkload.quality import datasets, probes
from sparkload.quality.items import (
    DATASET_KINDS,
    GENERIC_MATCHES,
    KIND_ARITHMETIC,
    KIND_RETRIEVAL,
    PROBES,
    ItemSet,
)
from sparkload.quality.tally import Outcome, result
from sparkload.records import (
    EXIT_BAD_INPUT,
    EXIT_INTERRUPTED,
    EXIT_OK,
    EXIT_REQUESTS_FAILED,
    MODE_QUALITY,
    PHASE_MEASURE,
    QUALITY_FILE,
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
from sparkload.run.manifest import host_now, simulated_variant, simulator_entry, versions_now
from sparkload.run.results import ResultsWriter, check_writable, utc_now
from sparkload.run.setup import lookup_headers
from sparkload.run.simulator_process import SimulatorProcess
from sparkload.transport.client import Connection, StreamRequest, build_headers, measure
from sparkload.transport.stream import API_CHAT, Reply
from sparkload.transport.target import Endpoint, ServerInfo, describe_server
from sparkload.workloads import fitting
from sparkload.workloads.contract import PlannedRequest

PROG = "sparkload quality"
PROGRESS_EVERY = 5.0  # seconds between progress lines (and quality.json's rewrites)
DEFAULT_MAX_TOKENS = 512
DEFAULT_CONCURRENCY = 4
MAX_CONCURRENCY = 64
DEFAULT_PROBE_ITEMS = 100
STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM)  # each ends the run as Ctrl-C does
WRONG_IDS_SHOWN = 20  # the most wrong ids a summary line lists (quality.json has them all)

# Rows of the option table this command shares with ``run``: the same flag, help and parser.
SHARED = (
    "model",
    "label",
    "variant",
    "tp",
    "api_key",
    "secrets_file",
    "header",
    "insecure",
    "request_timeout",
    "temperature",
    "top_p",
    "no_thinking",
    "extra_body",
    "tokenizer",
    "results_dir",
    "metadata",
)
DEFAULTS = {"temperature": 0.0}  # greedy by default: an accuracy figure should not be sampled
HELP = {
    "temperature": "Sampling temperature of every request (default 0: greedy)",
    "tokenizer": "A Hugging Face tokenizer.json that counts the retrieval probe's context "
    "(default: the target's /tokenize, else 4 characters a token)",
}


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog=PROG,
        description="Send every item of a dataset or a built-in probe once, grade each reply by "
        "a well-known rule, and write a run directory with quality.json: per dataset or probe, "
        "items graded, correct, accuracy with its 95 % Wilson interval, and the wrong items' "
        "ids. No --host: the built-in simulator (whose replies are filler text: accuracy 0). "
        "sparkload report RUN_DIR adds the accuracy section.",
        epilog="Grading: GSM8K and the arithmetic probe by the reply's final number (#### N, "
        "else the last number), as lighteval and aiperf; multiple choice by the letter given "
        "('Answer: X', else a first line '(B)', 'B)', 'B.'); generic files exact, numeric or "
        "regex; retrieval by the planted key appearing in the reply. Exit 0, 1 when a request "
        "failed, 2 on bad input (nothing sent), 130 when stopped (what was graded is kept).",
        allow_abbrev=False,
    )
    what = parser.add_argument_group("what to ask (one or more)")
    what.add_argument(
        "--dataset",
        action="append",
        default=[],
        metavar="FILE",
        type=Path,
        help="a dataset file (repeatable): GSM8K JSONL (question, answer ending '#### N'), "
        "multiple choice in MMLU's layout (question, choices or A/B/C/D, answer as a letter or "
        "an index; JSON, JSONL or CSV), or a generic JSONL of prompt and expected",
    )
    what.add_argument(
        "--format",
        choices=DATASET_KINDS,
        help="the datasets' form (default: told by each file's first item)",
    )
    what.add_argument(
        "--match",
        choices=GENERIC_MATCHES,
        help="a generic file's match where a line names none (default exact)",
    )
    what.add_argument(
        "--tolerance",
        type=float,
        metavar="X",
        help="a generic numeric match's absolute tolerance where a line gives none (default 1e-6)",
    )
    what.add_argument(
        "--probe",
        action="append",
        default=[],
        metavar="NAME",
        help=f"a built-in probe (repeatable, or comma-separated): {', '.join(PROBES)}",
    )
    what.add_argument(
        "--limit",
        type=int,
        metavar="N",
        help="the first N items of each dataset; the items of each probe "
        f"(default: a dataset's all, a probe's {DEFAULT_PROBE_ITEMS})",
    )
    what.add_argument(
        "--steps",
        type=int,
        default=probes.DEFAULT_STEPS,
        metavar="N",
        help="arithmetic: operations per problem, its difficulty (default %(default)s)",
    )
    what.add_argument(
        "--context-tokens",
        type=int,
        default=probes.DEFAULT_CONTEXT_TOKENS,
        metavar="N",
        help="retrieval: the context's length in tokens (default %(default)s)",
    )
    what.add_argument(
        "--depth",
        type=float,
        default=probes.DEFAULT_DEPTH,
        metavar="D",
        help="retrieval: where the key is planted, 0 (start) to 1 (end) (default %(default)s)",
    )
    how = parser.add_argument_group("how to send it")
    how.add_argument(
        "-H",
        "--host",
        default="",
        metavar="URL",
        help="the server's base URL (default: start the built-in simulator)",
    )
    how.add_argument(
        "--concurrency",
        type=int,
        default=DEFAULT_CONCURRENCY,
        metavar="N",
        help=f"requests in flight at once, 1-{MAX_CONCURRENCY} (default %(default)s)",
    )
    how.add_argument(
        "--max-tokens",
        type=int,
        default=DEFAULT_MAX_TOKENS,
        metavar="N",
        help="output tokens each reply may take (default %(default)s; a reply cut off there is "
        "graded as it is and counted as truncated)",
    )
    how.add_argument(
        "--seed",
        type=int,
        default=0,
        help="the requests' sampling seed and the built-in probes' generator (default 0)",
    )
    how.add_argument(
        "--keep-outputs",
        action="store_true",
        help="also keep every item's expected and extracted answer and its reply in "
        "quality.json (off by default: outputs may be private)",
    )
    shared = parser.add_argument_group("shared with sparkload run")
    for dest in SHARED:
        _add_row(shared, config.BY_DEST[dest])
    simulated = parser.add_argument_group("built-in simulator (no --host)")
    for row in config.SIMULATOR_OPTIONS:
        _add_row(simulated, row)
    return parser


def _add_row(group: argparse._ArgumentGroup, option: config.Option) -> None:
    """One row of the option table as an option of this command, parsed by its own parser
    later (``_row_values``); a secret's default is its environment variable's, as ``run``'s."""
    kwargs: dict[str, Any] = {"default": None, "help": HELP.get(option.dest, option.help)}
    default = DEFAULTS.get(option.dest, option.default)
    if option.secret:
        kwargs["default"] = os.environ.get(option.env_var)
    elif option.dest not in HELP and default not in (None, "", [], False):
        kwargs["help"] += f" (default: {default})"
    if option.is_flag:
        kwargs["action"] = "store_true"
        kwargs["default"] = False
    if option.choices:
        kwargs["choices"] = option.choices
    kwargs.update(option.argparse_extra)
    if kwargs.get("action") == "append" and isinstance(kwargs["default"], str):
        kwargs["default"] = [kwargs["default"]]  # an environment's one header
    kwargs["help"] = kwargs["help"].replace("%", "%%")
    group.add_argument(option.flag, dest=option.dest, **kwargs)


def _row_values(args: argparse.Namespace) -> dict[str, Any]:
    """The shared and simulator rows' values, each by its own parser (a ConfigError names it)."""
    rows = [config.BY_DEST[dest] for dest in SHARED] + list(config.SIMULATOR_OPTIONS)
    values = {}
    for row in rows:
        raw = getattr(args, row.dest)
        if raw is None and row.dest in DEFAULTS:
            raw = DEFAULTS[row.dest]
        values[row.dest] = row.value(raw)
    return values


@dataclass
class Plan:
    """The settled options: what to ask, how, and of whom."""

    args: argparse.Namespace
    values: dict[str, Any]
    secrets: HostSecrets
    sets: list[ItemSet]  # what can be made before the target is known (datasets, arithmetic)
    retrieval: bool  # the retrieval probe, made once the target can count tokens
    simulator: config.SimulatorOptions

    @property
    def probe_items(self) -> int:
        return self.args.limit or DEFAULT_PROBE_ITEMS


def settle(argv: list[str]) -> Plan:
    """Parse and check the options and read every dataset: a ConfigError before anything is
    contacted."""
    args = build_parser().parse_args(argv)
    values = _row_values(args)
    names = [name.strip() for text in args.probe for name in text.split(",") if name.strip()]
    unknown = [name for name in names if name not in PROBES]
    if unknown:
        raise ConfigError(f"--probe: {', '.join(unknown)}: choose from {', '.join(PROBES)}")
    if not args.dataset and not names:
        raise ConfigError("give --dataset FILE or --probe NAME (see --help)")
    if args.limit is not None and args.limit < 1:
        raise ConfigError(f"--limit: give 1 or more items, not {args.limit}")
    if not 1 <= args.concurrency <= MAX_CONCURRENCY:
        raise ConfigError(f"--concurrency: give 1 to {MAX_CONCURRENCY}, not {args.concurrency}")
    if args.max_tokens < 1:
        raise ConfigError(f"--max-tokens: give 1 or more, not {args.max_tokens}")
    if args.tolerance is not None and not args.tolerance >= 0:
        raise ConfigError(f"--tolerance: give a number >= 0, not {args.tolerance:g}")
    secrets = HostSecrets.capture(args)
    sets = [
        datasets.read_dataset(path, args.format, args.match, args.tolerance).limited(args.limit)
        for path in args.dataset
    ]
    count = args.limit or DEFAULT_PROBE_ITEMS
    if KIND_ARITHMETIC in names:
        sets.append(probes.arithmetic(count, args.seed, args.steps))
    if KIND_RETRIEVAL in names:  # its parameters checked now, its items made later
        probes.check_retrieval(args.context_tokens, args.depth)
    names_seen = [s.name for s in sets]
    twice = sorted({name for name in names_seen if names_seen.count(name) > 1})
    if twice:
        raise ConfigError(
            f"--dataset: two datasets named {', '.join(twice)}: results go by file name, rename one"
        )
    simulator = config.SimulatorOptions(
        **{row.field_name: values[row.dest] for row in config.SIMULATOR_OPTIONS}
    )
    check_writable(values["results_dir"])
    return Plan(args, values, secrets, sets, KIND_RETRIEVAL in names, simulator)


@dataclass
class Target:
    url: str
    endpoint: Endpoint
    server: ServerInfo
    headers: dict[str, str]  # every request's (the key among them: never written)
    on_simulator: bool


def look_up(plan: Plan, url: str, on_simulator: bool) -> Target:
    """The target answers and says its model (one clear line if not)."""
    try:
        headers = build_headers(plan.secrets.api_key, "identity", plan.secrets.header)
    except ValueError as exc:
        raise ConfigError(f"--header: {exc}") from None
    endpoint = Endpoint.parse(url)
    verify = not plan.values["insecure"]
    server = describe_server(url, lookup_headers(headers), plan.values["model"], verify)
    return Target(url, endpoint, server, headers, on_simulator)


def counter_for(plan: Plan, target: Target) -> fitting.Counter:
    """How the retrieval probe counts tokens: --tokenizer, the target's route, the estimate."""
    if plan.values["tokenizer"] is not None:
        return fitting.FileTokenizer(plan.values["tokenizer"])
    found = fitting.ServerTokenizer.probe(
        target.url,
        target.server.model,
        API_CHAT,
        lookup_headers(target.headers),
        not plan.values["insecure"],
    )
    if isinstance(found, fitting.ServerTokenizer):
        return found
    _say(
        "retrieval: the target has no tokenizer route ("
        + "; ".join(found)
        + "): its context is sized at 4 characters a token, an estimate (quality.json says so)"
    )
    return fitting.Estimate(why="; ".join(found))


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
        url = plan.args.host.strip()
        if not url:
            sim_args = [*plan.simulator.args(), "--tp", str(plan.values["tp"])]
            simulator = SimulatorProcess(sim_args)
            url = simulator.start()
            _say(f"no --host: started the built-in simulator ({' '.join(sim_args)}) at {url}")
        target = look_up(plan, url, simulator is not None)
        if plan.retrieval:
            plan.sets.append(
                probes.retrieval(
                    plan.probe_items,
                    counter_for(plan, target),
                    plan.args.seed,
                    plan.args.context_tokens,
                    plan.args.depth,
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
    writer = ResultsWriter(plan.values["results_dir"], manifest(plan, target, template, argv))
    level = writer.manifest.levels[0]
    progress = Progress(len(work))
    _say(
        f"run {writer.path.name}: {len(work)} items of {', '.join(s.name for s in plan.sets)} "
        f"against {target.url} ({target.server.model}), {plan.args.concurrency} at a time"
    )

    def keep(status: str | None = None) -> None:
        level.received = len(progress.outcomes)
        complete = status == STATUS_COMPLETE
        write_quality(writer.path, quality(plan.sets, progress.outcomes, plan, complete))
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
    for line in summary_lines(summary):
        print(line)
    print(f"results in {writer.path}")
    if status == STATUS_STOPPED:
        return EXIT_INTERRUPTED
    return EXIT_REQUESTS_FAILED if any(r.failed for r in summary.results) else EXIT_OK


def body_template(plan: Plan, model: str) -> BodyTemplate:
    """Every request's body beside its prompt: temperature (0), the seed, the run's extras."""
    values = plan.values
    extras: dict[str, Any] = {"temperature": values["temperature"], "seed": plan.args.seed}
    if values["top_p"] is not None:
        extras["top_p"] = values["top_p"]
    if values["no_thinking"]:
        extras["chat_template_kwargs"] = {"enable_thinking": False}
    extras.update(values["extra_body"])
    return BodyTemplate(
        model,
        plan.args.max_tokens,
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
    return StreamRequest(path, template.encode(planned), headers, timeout)


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
    timeout = plan.values["request_timeout"]
    concurrency = plan.args.concurrency
    path = target.endpoint.path_for(API_CHAT)

    def user(index: int) -> None:
        connection = Connection(target.endpoint.base, timeout, not plan.values["insecure"])
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
                request = request_for(planned, template, path, target.headers, timeout)
                measure(connection, request, record, reply)
                item = items.items[index_in_set]
                on_outcome(Outcome.of(item, record, reply.content), record)
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
        results=[result(s, by_set[s.name], plan.args.keep_outputs) for s in sets],
    )


def write_quality(run_dir: Path, entry: QualityEntry) -> None:
    """quality.json, replaced atomically (a reader never sees half of it)."""
    tmp = run_dir / (QUALITY_FILE + ".tmp")
    tmp.write_text(json.dumps(entry.to_dict(), indent=1) + "\n", encoding="utf-8")
    os.replace(tmp, run_dir / QUALITY_FILE)


def manifest(plan: Plan, target: Target, template: BodyTemplate, argv: list[str]) -> Manifest:
    """The run's manifest: a quality run of one level (every item at --concurrency)."""
    values = plan.values
    variant = values["variant"] or (
        simulated_variant(plan.simulator) if target.on_simulator else ""
    )
    tp = values["tp"]
    total = sum(len(s.items) for s in plan.sets)
    started = utc_now()
    return Manifest(
        label=values["label"] or (f"{variant}-tp{tp}" if variant else MODE_QUALITY),
        variant=variant or None,
        tp=tp,
        nodes=1,
        endpoints=[target.url],
        model=target.server.model,
        mode=MODE_QUALITY,
        ladder=[plan.args.concurrency],
        requests_per_user=None,
        warmup_requests_per_level=0,
        workload=WorkloadEntry(name=MODE_QUALITY, max_tokens=template.max_tokens),
        prompts=PromptsEntry.from_dict(
            {"count": total, "sets": [s.name for s in plan.sets], "seed": plan.args.seed}
        ),
        sampling=template.sampling_entry(),
        seed=plan.args.seed,
        request_timeout=values["request_timeout"],
        simulator=simulator_entry(plan.simulator, tp) if target.on_simulator else None,
        time_scale=plan.simulator.time_scale if target.on_simulator else 1.0,
        versions=versions_now(),
        host_info=host_now(),
        client=ClientEntry(runner="local", workers=1, processes=None),
        request=RequestEntry(
            api=API_CHAT,
            extra_body=values["extra_body"],
            headers=sorted(plan.secrets.header),  # names only
            accept_encoding="identity",
        ),
        servers={target.url: target.server.manifest_entry()},
        metadata=values["metadata"],
        command=redacted_command(["sparkload", "quality", *argv]),
        started_at=started,
        levels=[LevelEntry(0, plan.args.concurrency, total, started)],
    )


def summary_lines(entry: QualityEntry) -> list[str]:
    """One line per dataset or probe: its tally, its interval, the wrong items' ids."""
    lines = []
    for r in entry.results:
        if r.n == 0 or r.accuracy is None or r.low is None or r.high is None:
            lines.append(f"{r.name}: no item graded ({r.failed} failed of {r.planned})")
            continue
        shown = ", ".join(r.wrong_ids[:WRONG_IDS_SHOWN])
        more = len(r.wrong_ids) - WRONG_IDS_SHOWN
        more_ids = f" and {more} more" if more > 0 else ""
        extra = [f"{r.failed} failed"] if r.failed else []
        extra += [f"{r.truncated} cut off at --max-tokens"] if r.truncated else []
        if r.n < r.planned - r.failed:
            extra.append(f"{r.planned - r.failed - r.n} not sent")
        lines.append(
            f"{r.name}: {r.correct}/{r.n} correct, {100 * r.accuracy:.1f} % "
            f"(95 % Wilson interval {100 * r.low:.1f}-{100 * r.high:.1f} %)"
            + (f"; {', '.join(extra)}" if extra else "")
            + (f"; wrong: {shown}{more_ids}" if r.wrong_ids else "")
        )
    return lines


def _say(message: str) -> None:
    print(f"{PROG}: {message}", file=sys.stderr, flush=True)
