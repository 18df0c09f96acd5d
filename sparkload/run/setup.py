"""A run's set-up on the master (or local process), before any load: options, target, prompts.

Every process builds its ``RunContext`` from the same options; what only the master can know it
settles here, and Locust hands it on in the options of the test's start (``Resolved.handed_on``):

1. ``settle``: the options validated and settled by the workload's rules. A workload that needs
   nothing of the target is built here, so a bad prompt file fails before anything is
   contacted or started.
2. ``check``: what a run needs beside valid options: a writable results directory, bounds the
   analysis can read (``--check``, ``--find-capacity``) and a search the plan allows.
3. ``resolve``: every endpoint must answer and say what it is (and serve every ``--model`` it
   lists: one model, or each of a mix's, adapters among them, and each --tenants class's; its
   ``/server_info`` kept where served); the model (a mix: as its spec, which every process
   deals from) and the time scale; with ``--input-tokens`` / ``--seq-dist`` the synthetic
   prompts fitted (``workloads.fitting``: the target's ``/tokenize``, a ``--tokenizer`` file or
   the flagged 4-characters estimate), or a trace's block counted; then the workload built,
   once, after fitting; every ``--scrape`` node must answer.
"""

from __future__ import annotations

import argparse
import logging
from dataclasses import dataclass, field
from typing import Any

from sparkload.apis import wire_api
from sparkload.config import RunOptions, default
from sparkload.errors import ConfigError
from sparkload.hostsecrets import HostSecrets
from sparkload.inputs.agent_traces import is_tracelab
from sparkload.inputs.tenants import FLAG as TENANTS_FLAG
from sparkload.inputs.tenants import load_tenants
from sparkload.model_mix import ModelMix
from sparkload.quality.items import KIND_RETRIEVAL
from sparkload.records import CHECK_TENANTS, REQUEST_METRICS, WORKLOAD_PREFILL
from sparkload.records.vocabulary import WORKLOAD_AGENT
from sparkload.run import quality_probe
from sparkload.run.context import RunContext, endpoints_of, request_headers, settled_options
from sparkload.run.report_process import check_options
from sparkload.run.results import check_writable
from sparkload.run.scrape import Source, check_nodes, simulator_nodes, sources
from sparkload.run.servercontrol import server_info
from sparkload.transport.target import ServerInfo, describe_server
from sparkload.workloads import chat, fitting, registry
from sparkload.workloads.contract import Synthetic, Workload

logger = logging.getLogger("sparkload")


@dataclass(frozen=True)
class Settled:
    """The options, checked, before anything is asked of the target."""

    options: RunOptions
    workload: Workload[Any] | None  # None: built once the target is known (fitting, a trace)


@dataclass(frozen=True)
class Resolved:
    """The run as the master settled it: the context, and what each endpoint said."""

    context: RunContext
    servers: dict[str, ServerInfo]  # endpoint URL -> what it said about itself
    synthetic: Synthetic | None  # the fitted prompts or a trace's counts, for the workers
    # endpoint URL -> its GET /server_info, redacted (only those that serve it)
    server_info: dict[str, dict[str, Any]] = field(default_factory=dict)

    def handed_on(self) -> dict[str, Any]:
        """What the workers get with the options of the test's start (``RunContext.from_options``
        reads it back): the model, the time scale and the fitted prompts."""
        return {
            "model": self.context.model,
            "sparkload_time_scale": self.context.time_scale,
            "sparkload_synthetic": self.synthetic.to_message() if self.synthetic else None,
        }


def settle(parsed: argparse.Namespace, secrets: HostSecrets) -> Settled:
    """The options validated and settled (a ConfigError with one line if bad)."""
    options = settled_options(parsed, secrets)
    workload = None if needs_target(options) else registry.load(options)
    processes = getattr(parsed, "processes", None) or 1
    distributed = bool(getattr(parsed, "master", False)) or processes not in (1, 0)
    per_session = (workload or registry.WORKLOADS[options.workload.name]).requests_per_session
    quality_probe.check(options, per_session, 2 if distributed else 1)
    return Settled(options, workload)


def needs_target(options: RunOptions) -> bool:
    """The workload is built from what the target says: fitted prompts, a trace's counts."""
    return options.workload.synthetic or options.plan.trace is not None or _lab(options)


def _lab(options: RunOptions) -> bool:
    """``--agent-trace`` names TraceLab's rounds (synthesized as a trace's blocks are)."""
    trace = options.workload.agent_trace
    return trace is not None and is_tracelab(trace)


def check(options: RunOptions) -> None:
    """A ConfigError of one line unless the run can be recorded and judged as asked."""
    check_writable(options.results.results_dir)
    refuse_streamed_bounds(options)
    check_tenant_slos(options)
    if options.results.check and options.results.check != CHECK_TENANTS:
        problem = check_options(["--slo", options.results.check])
        if problem is not None:
            raise ConfigError(f"--check: {problem}")
    profile, levels = options.target.server_profile, options.level_count * options.plan.repeat
    if profile is not None and not options.plan.searches and profile > levels:
        raise ConfigError(f"--server-profile {profile}: the plan has {levels} level(s)")
    if options.plan.searches:
        check_search(options)
    for search in options.plan.searches:
        if search.bounds == CHECK_TENANTS:
            continue  # each class's slo, read above
        problem = check_options(["--slo", search.bounds])
        if problem is not None:
            flag = f"--tier {search.name}" if search.name else "--find-capacity"
            raise ConfigError(f"{flag}: {problem.removeprefix('--slo: ')}")


def check_tenant_slos(opts: RunOptions) -> None:
    """Every ``--tenants`` class's slo read by the analysis, as ``--check``'s bounds are;
    ``--check tenants`` and ``--find-capacity tenants`` need classes with an slo to hold."""
    path = opts.workload.tenants
    held = [
        f"{flag} tenants"
        for flag, spec in (
            ("--check", opts.results.check),
            ("--find-capacity", opts.plan.find_capacity),
        )
        if spec == CHECK_TENANTS
    ]
    if path is None:
        if held:
            raise ConfigError(f"{held[0]} holds each --tenants class to its slo: give --tenants")
        return
    classes = load_tenants(path).classes
    for tenant in classes:
        if tenant.slo:
            problem = check_options(["--check", tenant.slo])
            if problem is not None:
                said = problem.removeprefix("--check: ")
                raise ConfigError(f"{TENANTS_FLAG}: class {tenant.name!r}: slo: {said}")
    if held and not any(tenant.slo for tenant in classes):
        raise ConfigError(f"{held[0]}: no class of {path} names an slo")


def refuse_streamed_bounds(opts: RunOptions) -> None:
    """A bound on a stream's figure (TTFT, ITL, TPS) where the API answers with one body
    (``WireApi.streams`` False: embeddings) could never hold: one line before the load."""
    if wire_api(opts.request.api).streams:
        return
    streamed = {m.field for m in REQUEST_METRICS if m.bound and m.streamed}
    for flag, spec in (
        ("--check", opts.results.check),
        ("--find-capacity", opts.plan.find_capacity),
        *((f"--tier {tier.name}", tier.bounds) for tier in opts.plan.tiers),
    ):
        for bound in filter(None, (part.strip() for part in spec.split(","))):
            if bound.split("_", 1)[0] in streamed:
                raise ConfigError(
                    f"{flag} {bound}: --api {opts.request.api} answers with one body, not a "
                    "stream: there is no TTFT, ITL or TPS to bound; bound the latency (e.g. "
                    "latency_p90_s<=2)"
                )


def check_search(opts: RunOptions) -> None:
    """--find-capacity's and --tier's rules across options: one ConfigError line naming the
    conflict. A tier counts concurrent agent sessions: the agent workload's closed loop."""
    plan = opts.plan
    flag = "--tier" if plan.tiers else "--find-capacity"
    if plan.tiers and opts.workload.name != WORKLOAD_AGENT:
        raise ConfigError(
            f"--tier counts concurrent agent sessions: give --workload agent or --agent-trace "
            f"(not --workload {opts.workload.name})"
        )
    if plan.tiers and plan.arrival_rate:
        raise ConfigError(
            "--tier searches over concurrent agent sessions, a closed loop: drop --arrival-rate"
        )
    prefill = opts.workload.name == WORKLOAD_PREFILL  # its own C=1 ladder, a level per size
    clash = {
        "--trace": opts.plan.trace is not None,
        "--step-duration": opts.plan.step_duration > 0,
        "--repeat": opts.plan.repeat > 1,
        "--check": bool(opts.results.check),
        "--workload prefill": prefill,
        "--ladder": not prefill and opts.plan.ladder != default("ladder"),
    }
    given = [option for option, present in clash.items() if present]
    if given:
        raise ConfigError(
            f"{flag} chooses its own levels and judges each one: drop {', '.join(given)}"
        )
    if plan.arrival_rate:
        if len(plan.arrival_rate) > 1:
            raise ConfigError(
                "--find-capacity with --arrival-rate: give one rate, the first probe (the search "
                "chooses the rest)"
            )
        if plan.arrival_rate[0] > plan.capacity_max:
            raise ConfigError(
                f"--arrival-rate {plan.arrival_rate[0]:g} is above "
                f"--capacity-max {plan.capacity_max:g}"
            )
    elif plan.capacity_max != int(plan.capacity_max):
        raise ConfigError(f"--capacity-max: {plan.capacity_max:g} users is not a whole number")
    elif plan.capacity_start > plan.capacity_max:
        raise ConfigError(
            f"--capacity-start {plan.capacity_start} is above --capacity-max {plan.capacity_max:g}"
        )


def class_models(options: RunOptions) -> dict[str, tuple[str, ...]]:
    """``--tenants``: each class that names its model(s), as the server check names it -> the
    models (a mix's every one)."""
    if options.workload.tenants is None:
        return {}
    return {
        f"{TENANTS_FLAG}: class {tenant.name!r}: model": ModelMix.parse(tenant.model).names
        for tenant in load_tenants(options.workload.tenants).classes
        if tenant.model is not None
    }


def resolve(settled: Settled, host: str | None, simulator_url: str | None) -> Resolved:
    """The run's context, once every endpoint answered. ``host``: Locust's (the built-in
    simulator's URL when none was given); ``simulator_url``: the simulator this process started
    when it is the target (its time scale and nodes apply), else None."""
    options = settled.options
    endpoints = endpoints_of(options, host)
    if not endpoints:
        raise ConfigError("no target: give a Host (the server's base URL) or --endpoints")
    headers = request_headers(options)
    lookup = lookup_headers(headers)
    verify = not options.target.insecure
    mix = ModelMix.parse(options.target.model)
    classes = class_models(options)
    servers = {e.url: describe_server(e.url, lookup, mix.names, verify, classes) for e in endpoints}
    model = servers[endpoints[0].url].model  # what counts tokens: a mix's first model
    synthetic = None
    if options.workload.synthetic:
        synthetic = _synthesize(options, _counter(options, endpoints[0].url, model, lookup))
    elif options.plan.trace is not None:
        synthetic = _trace_source(_counter(options, endpoints[0].url, model, lookup, "--trace"))
    elif _lab(options):
        flag = "--agent-trace"
        synthetic = _trace_source(_counter(options, endpoints[0].url, model, lookup, flag), flag)
    elif options.workload.name == WORKLOAD_AGENT and options.workload.agent_trace is None:
        flag = "--tool-result-tokens"
        synthetic = _tool_results(options, _counter(options, endpoints[0].url, model, lookup, flag))
    if synthetic is None and settled.workload is not None:
        workload = settled.workload
    else:
        workload = registry.load(options, synthetic)
    probe = quality_probe.items_for(
        options,
        _counter(options, endpoints[0].url, model, lookup, quality_probe.FLAG)
        if quality_probe.probe_of(options) == KIND_RETRIEVAL
        else None,
    )
    context = RunContext(
        options=options,
        workload=workload,
        endpoints=endpoints,
        headers=headers,
        model=mix.spec if mix.mixed else model,
        time_scale=options.simulator.time_scale if simulator_url else 1.0,
        probe=probe,
    )
    nodes = [
        source for source in metrics_sources(context, simulator_url) if source.endpoint is None
    ]
    check_nodes(nodes, verify_tls=verify)
    secrets = (options.target.api_key, *options.request.header.values())
    said = {e.url: server_info(e.base, lookup, secrets, verify) for e in endpoints}
    return Resolved(context, servers, synthetic, {url: info for url, info in said.items() if info})


def metrics_sources(context: RunContext, simulator_url: str | None) -> list[Source]:
    """The Prometheus endpoints of the run: the target's /metrics and, for a simulated TP
    cluster started here, each node's (unless --no-server-metrics), then --scrape's."""
    opts = context.options
    if not opts.server_metrics.enabled:
        return sources([], opts.server_metrics.scrape)
    simulated = simulator_nodes(simulator_url, opts.target.tp) if simulator_url else {}
    return sources([e.url for e in context.endpoints], {**simulated, **opts.server_metrics.scrape})


def lookup_headers(headers: dict[str, str]) -> dict[str, str]:
    """The run's headers (API key, a gateway's tenant header) for the GETs that look the
    target up, without what only a streaming POST needs."""
    drop = {"content-type", "accept", "accept-encoding"}
    return {k: v for k, v in headers.items() if k.lower() not in drop}


def _counter(
    options: RunOptions, host: str, model: str, headers: dict[str, str], what: str = ""
) -> fitting.Counter:
    """How the target's tokens are counted (a warning when only the estimate is left)."""
    what = what or ("--input-tokens" if options.workload.input_tokens is not None else "--seq-dist")
    counter = fitting.counter_for(options, host, model, headers)
    if isinstance(counter, fitting.Estimate):
        logger.warning(
            "sparkload: %s: %s: its texts are sized at 4 characters a token, an estimate (the "
            "manifest says so)",
            what,
            counter.why,
        )
    return counter


def _synthesize(options: RunOptions, counter: fitting.Counter) -> Synthetic:
    """--input-tokens, --seq-dist, --prefix-tokens: fit the prompt pool once, here, where the
    target and model are known (the workers get the texts with the options, so nobody counts
    twice)."""
    workload = options.workload
    synthetic = fitting.synthesize(
        counter,
        chat.run_lengths(options),
        options.plan.seed,
        workload.prefix_tokens,
        workload.prefix_count,
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


def _tool_results(options: RunOptions, counter: fitting.Counter) -> Synthetic:
    """A synthetic agent's tool results: fitted once, here, by the target's count (the workers
    get the texts with the options, as fitted prompts)."""
    workload = options.workload
    results = fitting.synthesize_results(
        counter, workload.tool_result_tokens, workload.tool_result_tokens_stddev, options.plan.seed
    )
    counted = results.source["token_count"]
    logger.info(
        "%d tool results fitted (%s-%s tokens), counted by %s (%d counts)",
        len(results.texts),
        counted["min"],
        counted["max"],
        counter.method,
        counted["counts_made"],
    )
    return results


def _trace_source(counter: fitting.Counter, flag: str = "--trace") -> Synthetic:
    """--trace (and a TraceLab --agent-trace): the run's salt (its blocks are cold in this run)
    and how the target counts a block of the trace's text (512 tokens when exact)."""
    source = fitting.count_blocks(counter)
    if not source["token_count"]["exact"]:
        logger.warning(
            "sparkload: %s: a 512-token block of the trace's text counts %s tokens by %s: "
            "prompt lengths and block boundaries are off by that much",
            flag,
            source["token_count"]["block_tokens"],
            counter.method,
        )
    return Synthetic((), source)
