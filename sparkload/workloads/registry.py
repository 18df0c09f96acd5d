"""The run's workload, by name: its rules on the options (``settle``) and building it (``load``).

A new workload is a module with one ``Workload`` class (``contract.py``), its name in
``records.WORKLOAD_NAMES`` and its class in ``WORKLOADS``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from sparkload.config import changed
from sparkload.errors import ConfigError
from sparkload.inputs.tenants import FLAG as TENANTS_FLAG
from sparkload.inputs.tenants import load_tenants
from sparkload.records import CHECK_TENANTS, WORKLOAD_TENANTS
from sparkload.workloads.agent import AgentWorkload
from sparkload.workloads.agent_options import choose_agent, refuse_agent_options
from sparkload.workloads.chat import ChatWorkload, refuse_batch
from sparkload.workloads.contract import Synthetic, Workload
from sparkload.workloads.conversation import ConversationWorkload, refuse_conversation_options
from sparkload.workloads.edit import EditWorkload
from sparkload.workloads.fresh import FreshWorkload
from sparkload.workloads.images import refuse_images
from sparkload.workloads.prefill import PrefillWorkload
from sparkload.workloads.tenants import TenantsWorkload, baseline_levels, class_options
from sparkload.workloads.trace import TraceWorkload

if TYPE_CHECKING:
    from sparkload.config import RunOptions

WORKLOADS: dict[str, type[Workload[Any]]] = {
    workload.name: workload
    for workload in (
        ChatWorkload,
        FreshWorkload,
        EditWorkload,
        PrefillWorkload,
        ConversationWorkload,
        AgentWorkload,
        TraceWorkload,
    )
}


def settle(opts: RunOptions) -> RunOptions:
    """The options to run with, by the chosen workload's rules (a ConfigError of one line on a
    conflict, e.g. ``--workload prefill`` with ``--step-duration``, or a conversation option
    with another workload). ``--trace`` chooses the trace workload, ``--agent-trace`` the agent
    workload (replaying the trace's sessions), ``--tenants`` the tenants workload (each class
    settled by its own workload's rules when it is built: ``load``)."""
    if opts.workload.tenants is not None:
        return settle_tenants(opts)
    return _settle_one(opts)


def _settle_one(opts: RunOptions) -> RunOptions:
    if opts.workload.agent_trace is not None:
        opts = choose_agent(opts)
    refuse_images(opts)
    if opts.workload.name not in (ConversationWorkload.name, AgentWorkload.name):
        refuse_conversation_options(opts)
    if opts.workload.name != AgentWorkload.name:
        refuse_agent_options(opts)
    if opts.workload.name != ChatWorkload.name or opts.plan.trace is not None:
        refuse_batch(opts)
    if opts.plan.trace is not None:
        return TraceWorkload.settle(opts)
    return WORKLOADS[opts.workload.name].settle(opts)


def settle_tenants(opts: RunOptions) -> RunOptions:
    """``--tenants``: what a mix cannot be, refused in one line; with ``--tenant-baselines``
    the plan's first levels are each class alone (``tenants.baseline_levels``). The classes'
    own rules are checked as the workload is built (``load``, before the load as every
    workload is)."""
    if opts.workload.name == WORKLOAD_TENANTS:
        return opts  # settled already
    clash = {
        "--trace": opts.plan.trace is not None,
        "--agent-trace": opts.workload.agent_trace is not None,
        "--quality-probe": bool(opts.workload.quality_probe),
    }
    given = [flag for flag, present in clash.items() if present]
    if given:
        raise ConfigError(f"{TENANTS_FLAG} sends each class's own workload: drop {given[0]}")
    if opts.plan.find_capacity not in ("", CHECK_TENANTS):
        raise ConfigError(
            f"{TENANTS_FLAG}: --find-capacity {opts.plan.find_capacity!r}: a mix's capacity holds "
            "each class to its own slo: give --find-capacity tenants"
        )
    if not opts.workload.tenant_baselines:
        return changed(opts, workload=WORKLOAD_TENANTS)
    if opts.plan.repeat > 1 or opts.plan.step_duration or opts.plan.arrival_rate:
        raise ConfigError(
            "--tenant-baselines runs each class alone once, before a ladder of counted levels: "
            "drop --repeat, --step-duration and --arrival-rate"
        )
    if opts.plan.find_capacity:
        raise ConfigError(
            "--tenant-baselines runs each class alone before a ladder: drop --find-capacity"
        )
    assert opts.workload.tenants is not None
    shares = load_tenants(opts.workload.tenants).shares
    alone = tuple(users for _, users in baseline_levels(shares, opts.plan.ladder[0]))
    return changed(opts, workload=WORKLOAD_TENANTS, ladder=alone + opts.plan.ladder)


def load(opts: RunOptions, synthetic: Synthetic | None = None) -> Workload[Any]:
    """The run's workload from its settled options (``synthetic``: the prompts the master
    fitted for ``--input-tokens``, once it has)."""
    if opts.workload.name == WORKLOAD_TENANTS:
        return load_tenant_classes(opts)
    return WORKLOADS[opts.workload.name].from_options(opts, synthetic)


def load_tenant_classes(opts: RunOptions) -> TenantsWorkload:
    """Every class's workload, from the run's options changed by the class's and settled by its
    workload's rules; what a class cannot be is one line naming it. The run's plan stays the
    run's (a prefill class's own ladder is not taken: it sends its sizes level by level)."""
    tenants = load_tenants(opts.workload.tenants) if opts.workload.tenants else None
    assert tenants is not None, "settle_tenants chose this workload"
    settled, workloads = [], []
    for tenant in tenants.classes:
        try:
            own = _settle_one(class_options(opts, tenant))
            workloads.append(WORKLOADS[own.workload.name].from_options(own))
        except ConfigError as exc:
            said = str(exc)
            if not said.startswith(TENANTS_FLAG):
                said = f"{TENANTS_FLAG}: class {tenant.name!r}: {said}"
            raise ConfigError(said) from None
        settled.append(own)
    alone: tuple[int, ...] = ()
    if opts.workload.tenant_baselines:
        first = opts.plan.ladder[len(tenants.classes)]  # the mix's first level
        alone = tuple(k for k, _ in baseline_levels(tenants.shares, first))
    return TenantsWorkload(tenants, tuple(workloads), tuple(settled), alone)
