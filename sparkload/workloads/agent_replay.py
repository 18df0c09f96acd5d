"""A recorded agent session's turns as an agent session's requests (``--agent-trace``): the
context each turn sends, and the recorded gap before it (the agent workload's "Replay")."""

from __future__ import annotations

from typing import Any

from sparkload.config import HISTORY_DATASET
from sparkload.inputs.agent_traces import AgentTrace, RecordedTurn
from sparkload.inputs.tools import Tools
from sparkload.workloads.agent_sessions import AgentSession, assistant_message
from sparkload.workloads.conversation import ID_LINE

# extra.history (a replay): what stood for the reply to the turn before
HISTORY_FROM_MODEL, HISTORY_MODEL_TEXT, HISTORY_RECORDED, HISTORY_NONE = (
    "model",
    "model_text",
    "recorded",
    "none",
)
HISTORY_RESTART = "restart"  # the trace's turn rewrote the whole context


def replayed_step(
    trace: AgentTrace, history: str, session: AgentSession, extra: dict[str, Any]
) -> tuple[Tools | None, str | None]:
    """Recorded turn ``session.turn``: the reply to the turn before and the turn's own messages
    join the context; its recorded tools (None: none) and step."""
    recorded = trace.sessions[session.source]
    turn = recorded.turns[session.turn - 1]
    if session.turn == 1 or turn.restart:
        session.context = with_id_line(turn.messages, session.session_id)
        if turn.restart:
            extra["history"] = HISTORY_RESTART
    else:
        before, messages, how = _before(history, session, turn)
        session.context += [*before, *messages]
        extra["history"] = how
    extra.update(trace_session=recorded.number, recorded_prompt_tokens=turn.prompt_tokens)
    return turn.tools, turn.step


def _before(
    history: str, session: AgentSession, turn: RecordedTurn
) -> tuple[list[dict[str, Any]], list[dict[str, Any]], str]:
    """What stands for the reply to the turn before ``turn``, ``turn``'s messages (its tool
    results re-addressed to the model's calls), and which reply it is (``extra.history``)."""
    messages = list(turn.messages)
    recorded = HISTORY_RECORDED if turn.reply else HISTORY_NONE
    reply = session.reply
    if history == HISTORY_DATASET or reply is None:
        return list(turn.reply), messages, recorded
    results = next((i for i, m in enumerate(messages) if m["role"] != "tool"), len(messages))
    if len(reply.tool_calls) == results:
        message, _ = assistant_message(session, reply)
        for i, call in enumerate(message.get("tool_calls", ())):
            messages[i] = {**messages[i], "tool_call_id": call["id"]}
        return [message], messages, HISTORY_FROM_MODEL
    if turn.reply:
        return list(turn.reply), messages, recorded
    return [{"role": "assistant", "content": reply.content}], messages, HISTORY_MODEL_TEXT


def recorded_gap(trace: AgentTrace, session: AgentSession) -> float | None:
    """The recorded gap between the sends of turn ``session.turn`` and the turn before (None:
    the session is not timed throughout)."""
    recorded = trace.sessions[session.source]
    if not recorded.timed:
        return None
    now, before = recorded.turns[session.turn - 1], recorded.turns[session.turn - 2]
    assert now.time is not None and before.time is not None
    return max(0.0, now.time - before.time)


def with_id_line(messages: tuple[dict[str, Any], ...], session_id: str) -> list[dict[str, Any]]:
    """A replayed session's opening with the id line before its first user message's text."""
    out = list(messages)
    line = ID_LINE.format(session_id)
    for i, message in enumerate(out):
        if message["role"] != "user":
            continue
        content = message["content"]
        if isinstance(content, str):
            out[i] = {**message, "content": line + content}
        else:
            out[i] = {**message, "content": [{"type": "text", "text": line}, *content]}
        break
    return out
