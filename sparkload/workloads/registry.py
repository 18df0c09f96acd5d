"""The run's workload, by name: its rules on the options (``settle``) and building it (``load``).

A new workload is a module with one ``Workload`` class (``contract.py``), its name in
``records.WORKLOAD_NAMES`` and its class in ``WORKLOADS``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from sparkload.workloads.agent import AgentWorkload
from sparkload.workloads.agent_options import choose_agent, refuse_agent_options
from sparkload.workloads.chat import ChatWorkload, refuse_batch
from sparkload.workloads.contract import Synthetic, Workload
from sparkload.workloads.conversation import ConversationWorkload, refuse_conversation_options
from sparkload.workloads.edit import EditWorkload
from sparkload.workloads.fresh import FreshWorkload
from sparkload.workloads.images import refuse_images
from sparkload.workloads.prefill import PrefillWorkload
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
    workload (replaying the trace's sessions)."""
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


def load(opts: RunOptions, synthetic: Synthetic | None = None) -> Workload[Any]:
    """The run's workload from its settled options (``synthetic``: the prompts the master
    fitted for ``--input-tokens``, once it has)."""
    return WORKLOADS[opts.workload.name].from_options(opts, synthetic)
