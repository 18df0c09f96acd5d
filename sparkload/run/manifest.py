"""A run's manifest: one pure function of the run's context and what the master found out.

``manifest`` composes what the run is (the plan, the workload, the request, the simulator) from
the context, and what the master measured or looked up (``RunFacts``: the servers, the nodes
scraped, the client, versions, the workers) from the facts it is handed, so that a manifest is
the same for the same inputs, whoever builds it. The run controller writes it through
``ResultsWriter`` and keeps it current (levels, workers, capacity) as the run goes.
"""

from __future__ import annotations

import os
import platform
import socket
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from importlib.metadata import version
from typing import Any

import sparkload
from sparkload.config import (
    ARRIVAL,
    LADDER,
    SIMULATOR_OPTIONS,
    STEPS,
    RunOptions,
    SimulatorOptions,
)
from sparkload.records import (
    SCHEMA_VERSION,
    TARGET_TIME,
    ArrivalEntry,
    ClientEntry,
    HostInfo,
    Manifest,
    PromptsEntry,
    RefusedWorker,
    RepeatEntry,
    RequestEntry,
    ScenarioEntry,
    ServerEntry,
    SimulatorEntry,
    TraceEntry,
    Versions,
    WorkerEntry,
    WorkloadEntry,
)
from sparkload.run.context import RunContext
from sparkload.sim.options import effective_setup, quantization
from sparkload.sim.speculation import parse_category_acceptance
from sparkload.transport.target import ServerInfo
from sparkload.workloads.trace import TraceWorkload


@dataclass(frozen=True)
class RunFacts:
    """What a manifest says beyond the options: what the master looked up and measured."""

    servers: Mapping[str, ServerInfo]  # endpoint URL -> what it said about itself
    scrape: Mapping[str, str]  # node -> the Prometheus URL read at every level
    on_simulator: bool  # the target is the built-in simulator this process started
    client: ClientEntry  # runner, workers, processes, how this process timed receives
    command: list[str]  # argv, secrets hidden
    started_at: str
    versions: Versions | None = None
    host_info: HostInfo | None = None
    workers: list[WorkerEntry] = field(default_factory=list)
    refused_workers: list[RefusedWorker] = field(default_factory=list)
    # endpoint URL -> its GET /server_info, redacted (``run.servercontrol``; where served)
    server_info: Mapping[str, dict[str, Any]] = field(default_factory=dict)


def manifest(context: RunContext, run: int, facts: RunFacts) -> Manifest:
    """The manifest of run ``run`` (0-based) of the plan (``--repeat`` runs it back to back)."""
    opts = context.options
    plan = opts.plan
    label, variant = label_and_variant(opts, facts.on_simulator, "run")
    ladder_mode = opts.mode == LADDER
    phases = opts.scenario.phases
    return Manifest(
        schema=SCHEMA_VERSION,
        label=label,
        variant=variant,
        tp=opts.target.tp,
        nodes=opts.target.nodes,
        endpoints=[e.url for e in context.endpoints],
        model=context.model,
        mode=opts.mode,
        # a search's: its probes; a scenario's: its phases' concurrencies
        ladder=[] if plan.searches else [p.concurrency for p in phases] or list(plan.ladder),
        **_asked(scenario=ScenarioEntry(opts.scenario.scenario, list(phases)) if phases else None),
        requests_per_user=plan.requests_per_user if ladder_mode else None,
        warmup_requests_per_level=1 if ladder_mode else 0,
        step_duration=plan.step_duration if plan.mode == STEPS else None,
        slice_duration=opts.results.slice_duration or None,
        arrival=arrival_entry(context) if plan.mode == ARRIVAL else None,
        workload=WorkloadEntry.from_dict(context.workload.manifest()),
        prompts=PromptsEntry.from_dict(context.workload.describe()),
        sampling=context.body.sampling_entry(),
        request=RequestEntry(
            api=opts.request.api,
            extra_body=opts.request.extra_body,
            headers=sorted(opts.request.header),  # names only: values may be secrets
            accept_encoding=opts.request.accept_encoding,
            cache_bust=context.workload.cache_bust,
            **_asked(response_format=context.body.response_format),
        ),
        servers=server_entries(facts),
        scrape=dict(facts.scrape),
        metadata=opts.results.metadata,
        repeat=RepeatEntry(run + 1, plan.repeat) if plan.repeat > 1 else None,
        seed=plan.seed,
        **_asked(outputs_kept=opts.results.keep_outputs or None),
        request_timeout=opts.request.request_timeout,
        simulator=simulator_entry(opts.simulator, opts.target.tp) if facts.on_simulator else None,
        time_scale=context.time_scale,
        versions=facts.versions,
        host_info=facts.host_info,
        client=facts.client,
        command=facts.command,
        started_at=facts.started_at,
        workers=list(facts.workers),
        refused_workers=list(facts.refused_workers),
    )


def server_entries(facts: RunFacts) -> dict[str, ServerEntry]:
    """What each endpoint said about itself: its look-up and, where served, its /server_info."""
    entries = {url: info.manifest_entry() for url, info in facts.servers.items()}
    for url, said in facts.server_info.items():
        entries.setdefault(url, ServerEntry()).info = said
    return entries


def label_and_variant(
    opts: RunOptions, on_simulator: bool, fallback: str
) -> tuple[str, str | None]:
    """The run's label and variant: as given, else the simulator's deployment as the variant
    and ``variant-tpN`` as the label, else ``fallback`` (the command's name) and no variant."""
    variant = opts.target.variant or (simulated_variant(opts.simulator) if on_simulator else "")
    label = opts.target.label or (f"{variant}-tp{opts.target.tp}" if variant else fallback)
    return label, variant or None


def _asked(**values: Any) -> dict[str, Any]:
    """The optional entry fields that were set: an unset one is left out, not written null."""
    return {name: value for name, value in values.items() if value is not None}


def arrival_entry(context: RunContext) -> ArrivalEntry:
    """The manifest's ``arrival``: the open-loop plan, rates and durations in the target's time
    (``time: target``; manifests before it held real-time rates)."""
    plan = context.options.plan
    workload = context.workload
    if isinstance(workload, TraceWorkload):
        return ArrivalEntry(
            rates=[workload.trace.offered_rate * workload.speedup],
            users=plan.arrival_users,
            duration=workload.trace.span_s / workload.speedup,
            trace=TraceEntry.from_dict(workload.trace.describe()),
            speedup=workload.speedup,
            time=TARGET_TIME,
        )
    return ArrivalEntry(
        rates=[] if plan.searches else list(plan.arrival_rate),  # a search's: probes
        users=plan.arrival_users,
        duration=plan.arrival_duration,
        process=plan.arrival_process,
        burstiness=plan.burstiness,
        time=TARGET_TIME,
    )


def simulator_entry(sim: SimulatorOptions, tp: int) -> SimulatorEntry:
    """The manifest's ``simulator``: the built-in simulator's deployment as it ran, with the
    speculation and batch budget in effect (the profile's own where the run set none)."""
    try:
        setup = effective_setup(sim.profile, sim.spec, sim.max_num_batched_tokens)
    except ValueError:  # options the simulator itself refuses: say what was asked
        setup = None
    entry = SimulatorEntry(
        profile=sim.profile,
        tp=tp,
        time_scale=sim.time_scale,
        spec=setup.spec if setup else sim.spec,
        max_num_batched_tokens=setup.max_num_batched_tokens
        if setup
        else sim.max_num_batched_tokens,
        prefix_caching=not sim.no_prefix_caching,
        block_size=sim.block_size,
    )
    if weights := quantization(sim.profile):
        entry.quantization = weights
    for name, value in _agent_answers(sim).items():
        setattr(entry, name, value)
    if sim.output_drift:  # the simulator changes a share of greedy replies (sim/drift.py)
        entry.output_drift = sim.output_drift
    if sim.category_acceptance:  # its categories draft at their own rates (sim/speculation.py)
        entry.category_acceptance = parse_category_acceptance(sim.category_acceptance)
    if sim.lora:  # adapters served beside the model, in slots (sim/lora.py)
        entry.lora, entry.max_loras = sim.lora.split(","), sim.max_loras or 1
        entry.lora_switch_ms = sim.lora_switch_ms
    return entry


def _agent_answers(sim: SimulatorOptions) -> dict[str, object]:
    """How the simulator answers a thinking, tool-calling client, where the run changed it from
    the defaults (so a plain run's manifest is as before)."""
    defaults = {row.field_name: row.value(None) for row in SIMULATOR_OPTIONS}
    names = (
        "reasoning_tokens",
        "reasoning_field",
        "tool_call_rate",
        "tool_call_error_rate",
        "tool_parser_holdback",
    )
    changed: dict[str, object] = {
        name: getattr(sim, name) for name in names if getattr(sim, name) != defaults[name]
    }
    if sim.no_reasoning_usage:
        changed["reasoning_usage"] = False
    return changed


def simulated_variant(sim: SimulatorOptions) -> str:
    """The simulator's deployment as a variant name: the profile, plus what the run changed
    (``qwen3.8-nvfp4-dspark14-b16384``), so differently configured runs do not share a label."""
    parts = [sim.profile]
    if sim.spec:
        parts.append(sim.spec.replace(":", ""))
    if sim.max_num_batched_tokens:
        parts.append(f"b{sim.max_num_batched_tokens}")
    if sim.block_size:
        parts.append(f"bs{sim.block_size}")
    if sim.no_prefix_caching:
        parts.append("nocache")
    if sim.reasoning_tokens:
        parts.append(f"think{sim.reasoning_tokens}")
    return "-".join(parts)


def worker_entries(
    nodes: Iterable[str],
    index_of: Callable[[str], int],
    about: Mapping[str, dict[str, Any]],
    clock_entry: Callable[[str], dict[str, Any]],
) -> list[WorkerEntry]:
    """Every worker of a distributed run so far (the lost ones too), in index order: what its
    hello said (``about``) and its clock readings."""
    entries = [
        WorkerEntry.from_dict(
            {"node": node, "index": index_of(node), **about.get(node, {}), **clock_entry(node)}
        )
        for node in nodes
    ]
    return sorted(entries, key=lambda entry: entry.index)


def versions_now() -> Versions:
    """The versions that shape a measurement: sparkload's, Locust's, Python's, the HTTP client's."""
    return Versions(
        sparkload=sparkload.__version__,
        locust=version("locust"),
        python=platform.python_version(),
        geventhttpclient=version("geventhttpclient"),
    )


def host_now() -> HostInfo:
    return HostInfo(
        hostname=socket.gethostname(), platform=platform.platform(), cpus=os.cpu_count()
    )
