"""An agent session under way, and a user's stack of them: the top-level session first, the
sub-agent running last (``workloads.subagents``); and a reply as the context's assistant
message."""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Any

from sparkload.transport.tally import Reply
from sparkload.workloads.coding_tools import parse_arguments
from sparkload.workloads.contract import UserState
from sparkload.workloads.subagents import SubagentPlan
from sparkload.workloads.tracelab_replay import LabPlace


@dataclass
class AgentSession:
    """One agent session under way (a top-level one or a sub-agent): its context as sent, and
    where it is."""

    session_id: str  # its own id (the records' ``agent_session``)
    level_index: int  # the level it runs in: a new level starts a new session
    turns: int  # its own requests planned
    source: int  # its first prompt (synthetic) or its trace session
    prompt: int = 0  # the prompt of the user turn under way (the records' prompt_index)
    context: list[dict[str, Any]] = field(default_factory=list)  # messages as sent, replies in
    turn: int = 0  # its own requests planned so far
    reply: Reply | None = None  # a replay: the model's reply to the turn before (None: failed)
    calls_made: int = 0  # tool-call ids this session had to make
    depth: int = 0  # 0: the top-level agent; n: a sub-agent n deep
    parent: AgentSession | None = None
    spawns: dict[int, SubagentPlan] = field(default_factory=dict)  # after its own request n
    forked: bool = False
    handoff: int | None = None  # the parent's tool message its answer becomes (None: none)
    frame: int | None = None  # its frame's tokens (compaction.frame_tokens), once measured
    compactions: int = 0
    compacted_from: int | None = None  # the prompt tokens that compacted it, until next sent
    lab: LabPlace | None = None  # a TraceLab replay's: the recorded session and where it is


@dataclass
class AgentUser(UserState):
    rng: random.Random | None = None  # think times, result lengths and texts, drawn turns
    # the agent sessions under way: the top-level one first, the sub-agent running last
    stack: list[AgentSession] = field(default_factory=list)
    planned_in_session: int = 0  # requests planned of the top-level session, sub-agents included
    session_requests: int = 0  # its requests, sub-agents included (the records' ``turns``)


def assistant_message(session: AgentSession, reply: Reply) -> tuple[dict[str, Any], list[bool]]:
    """The model's reply as the context's assistant message (its text and tool calls), and
    whether each call's arguments were a JSON object (those that were not are sent as ``{}``: a
    server that parses the history's arguments would refuse them)."""
    if not reply.tool_calls:
        return {"role": "assistant", "content": reply.content}, []
    calls, valid = [], []
    for call in sorted(reply.tool_calls, key=lambda c: c.index):
        if call.id is None:
            session.calls_made += 1
        ok = parse_arguments(call.arguments) is not None
        valid.append(ok)
        function = {"name": call.name, "arguments": call.arguments if ok else "{}"}
        calls.append(
            {
                "id": call.id or f"call_{session.session_id[:12]}_{session.calls_made}",
                "type": "function",
                "function": function,
            }
        )
    return {"role": "assistant", "content": reply.content or None, "tool_calls": calls}, valid
