"""Sub-agents of a synthetic agent session (``--subagent-rate``): what spawns where, and how a
sub-agent starts and hands its answer back.

A coding agent delegates: one of its tool calls is a *task* tool that runs a sub-agent to the
end and returns its answer as the call's result, so the parent's next request waits for the
sub-agent's last reply (Claude Code's Task tool, aiperf's sub-agent graphs). Here a tool step
spawns one with the chance ``--subagent-rate``; a sub-agent is a session of its own
(``--subagent-turns`` user turns of the parent's ``--tool-turns`` tool steps and one answer step)
and may spawn its own, down to ``--subagent-depth``. It starts either

- **fresh**: its own system prompt and a task of its own (a prompt of the run's set), and the
  id line of its own session, so no cache serves it but the shared system prefix; or
- **forked** (``--subagent-fork``, the share of sub-agents): the parent's context as the
  spawning step sent it, then its task, so a prefix cache serves the parent's history.

Every spawn of a session and its sub-agents is drawn when the session begins (from the user's
seeded generator), so the session's count of requests, sub-agents included, is known with its
first request: the quota and the master count whole sessions as before (``contract.py``).
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Any

SUBAGENT_SYSTEM_PROMPT = (
    "You are a sub-agent of a coding agent. Do the one task you are given with the tools, "
    "then answer with what you found or changed, briefly: your answer is your parent's tool "
    "result."
)
TASK_PREFIX = "Sub-task: "  # before a sub-agent's task message
KIND_FRESH, KIND_FORK = "fresh", "fork"  # extra.subagent


@dataclass(frozen=True)
class SubagentOptions:
    """The sub-agent options of a synthetic agent session."""

    rate: float = 0.0  # a tool step's chance to spawn one
    depth: int = 1  # how deep they nest
    turns: int = 1  # a sub-agent's user turns
    fork: float = 0.0  # the share forked


@dataclass(frozen=True)
class SubagentPlan:
    """One sub-agent drawn in advance: its own requests, whether forked, and its own spawns."""

    requests: int
    forked: bool
    spawns: dict[int, SubagentPlan] = field(default_factory=dict)  # after its own request n

    @property
    def total(self) -> int:
        """Its requests and every nested sub-agent's."""
        return self.requests + sum(child.total for child in self.spawns.values())


def tool_steps(requests: int, tool_turns: int) -> list[int]:
    """The request numbers (1-based) of a session's tool steps: each user turn is
    ``tool_turns`` tool steps, then one answer step."""
    return [n for n in range(1, requests + 1) if (n - 1) % (tool_turns + 1) < tool_turns]


def draw_spawns(
    rng: random.Random, requests: int, tool_turns: int, depth: int, options: SubagentOptions
) -> dict[int, SubagentPlan]:
    """The sub-agents a session at ``depth`` spawns, keyed by the tool step they follow."""
    if not options.rate or depth >= options.depth:
        return {}
    own = options.turns * (tool_turns + 1)
    spawns = {}
    for step in tool_steps(requests, tool_turns):
        if rng.random() < options.rate:
            forked = rng.random() < options.fork
            nested = draw_spawns(rng, own, tool_turns, depth + 1, options)
            spawns[step] = SubagentPlan(own, forked, nested)
    return spawns


def fixed_total(requests: int, tool_turns: int, options: SubagentOptions, depth: int = 0) -> int:
    """A session's requests with every tool step spawning (``--subagent-rate`` 1)."""
    if not options.rate or depth >= options.depth:
        return requests
    own = options.turns * (tool_turns + 1)
    per_child = fixed_total(own, tool_turns, options, depth + 1)
    return requests + len(tool_steps(requests, tool_turns)) * per_child


def opening(
    plan: SubagentPlan, sent: tuple[dict[str, Any], ...], id_line: str, task: str
) -> list[dict[str, Any]]:
    """A sub-agent's first context: the parent's as the spawning step sent it (forked), or a
    system prompt of its own (fresh); then its task, after its id line when fresh."""
    if plan.forked:
        return [*sent, {"role": "user", "content": TASK_PREFIX + task}]
    return [
        {"role": "system", "content": SUBAGENT_SYSTEM_PROMPT},
        {"role": "user", "content": id_line + TASK_PREFIX + task},
    ]


def hand_back(context: list[dict[str, Any]], at: int | None, answer: str) -> None:
    """The sub-agent's answer as the result of the parent's call it ran for: the ``tool``
    message at ``at`` (None: the parent's step was answered without a call, so nothing waits
    for it; an empty answer leaves the drawn result)."""
    if at is not None and answer and at < len(context) and context[at]["role"] == "tool":
        context[at] = {**context[at], "content": answer}
