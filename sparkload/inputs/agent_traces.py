"""Recorded agent sessions to replay (``--agent-trace FILE``): sglang's agentic-trace JSON, a
JSONL of OpenAI message lists, and TraceLab's round traces.

The file (plain or gzip, known by its bytes) is told by its content:
a first line that is a JSON object with ``session_id`` and ``input_tokens_total`` is TraceLab's
(token counts, no text: ``inputs.tracelab``, read as a ``LabCorpus``); otherwise:

- **sglang's agentic trace** (``sglang.bench_serving --dataset-name agentic``, from OpenHands or
  SWE-smith runs): one JSON object, ``{"conversations": [[{"messages": [...], "prompt_tokens":
  N}, ...], ...]}``: each conversation a list of turns, one request each. A turn's ``messages``
  are either the turn's new messages (sglang's own traces: a task, then the observations of the
  tool runs, turn by turn, no assistant message) or the whole list sent at that point (each turn
  repeating the one before it, its reply included): a conversation most of whose turns start
  with the whole list of the turn before is read the second way, and there a turn that does not
  is a restart (the agent rewrote or condensed its history: the turn's list is the whole
  context). A turn may carry ``timestamp`` and
  ``tools``; the object may carry ``tools`` for every conversation. Turns without messages are
  skipped, as sglang skips them.
- **JSONL** (any other file, and every ``.jsonl``): one session a line, a JSON list of OpenAI
  messages or ``{"messages": [...], "tools": [...]}``, with the assistant's ``tool_calls`` and
  the ``tool`` messages that answer them. A request is sent wherever the list has an assistant
  reply (a run of assistant messages), with everything before it, and once more at the end
  when the list does not end with one.

Either way a session is read as its turns in order, each turn being the recorded assistant reply
to the turn before it (none for the first, or when the trace records none) and the messages the
turn adds after it, so a replay can put the model's own reply in that place (``--history
model``). A turn's ``step`` is what the trace's reply to it was (``tool_call`` when it called a
tool, ``answer`` when it did not, None when the trace does not say). A turn's time is its own
``timestamp``, else the latest ``timestamp`` of its messages (seconds, or ISO 8601 text; a
number above 1e11 is read as epoch milliseconds); a session is timed by its recorded gaps only
when every turn has one.

Messages keep ``role``, ``content``, ``name``, ``tool_calls`` and ``tool_call_id`` (a timestamp or
a client's own key is not sent); a tool call's dict ``arguments`` become their JSON text, and a
call without an id gets one. Any problem is a ``ConfigError`` of one line naming the file and the
line (JSONL, a JSON syntax error) or the conversation and turn, before anything is sent.
"""

from __future__ import annotations

import dataclasses
import json
import math
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from sparkload.errors import ConfigError
from sparkload.inputs import files, tracelab
from sparkload.inputs.datasets import Messages
from sparkload.inputs.files import UserFile
from sparkload.inputs.tools import Tools, check_tools
from sparkload.records import STEP_ANSWER, STEP_TOOL_CALL

SGLANG, JSONL = "sglang", "jsonl"
ROLES = ("system", "developer", "user", "assistant", "tool")
MILLISECONDS_ABOVE = 1e11  # a timestamp this large is epoch milliseconds, not seconds
FLAG = "--agent-trace"


@dataclass(frozen=True)
class RecordedTurn:
    """One request of a recorded session, as what it adds to the context of the turn before."""

    reply: Messages  # the recorded assistant message(s) answering the turn before (may be none)
    messages: Messages  # what the turn adds after that reply (the first turn: its whole opening)
    step: str | None = None  # the recorded reply to this turn: STEP_TOOL_CALL | STEP_ANSWER
    time: float | None = None  # when its request went, in seconds (None: not recorded)
    prompt_tokens: int | None = None  # the trace's own count of the turn's prompt
    tools: Tools | None = None  # the tools it was sent with (None: none recorded)
    restart: bool = False  # its messages are the whole context (the agent rewrote its history)


@dataclass(frozen=True)
class RecordedSession:
    turns: tuple[RecordedTurn, ...]  # at least one
    number: int  # its conversation's place in the file (1-based), or its line

    @property
    def timed(self) -> bool:
        """Every turn has a recorded time, so the session can be replayed by its gaps."""
        return all(turn.time is not None for turn in self.turns)


@dataclass(frozen=True)
class AgentTrace:
    path: Path
    format: str  # SGLANG | JSONL
    sessions: tuple[RecordedSession, ...]
    sha256: str
    skipped: int = 0  # sessions with no turn to send

    @property
    def has_replies(self) -> bool:
        """Some turn has a recorded reply before it (``--history dataset`` has one to send)."""
        return any(turn.reply for session in self.sessions for turn in session.turns)

    def describe(self) -> dict[str, Any]:
        return {
            "path": str(self.path),
            "format": self.format,
            "sha256": self.sha256,
            "sessions": len(self.sessions),
            "turns": sum(len(session.turns) for session in self.sessions),
            "timed_sessions": sum(session.timed for session in self.sessions),
            "skipped": self.skipped,
        }


def load_recorded(path: Path) -> AgentTrace | tracelab.LabCorpus:
    """The sessions recorded in ``path``, in its format; a ConfigError of one line if they
    cannot be replayed."""
    if is_tracelab(path):
        return tracelab.read_corpus(files.lines(FLAG, path))  # line by line: it runs to GBs
    file = files.read(FLAG, path)
    fmt, found = _parse(file)
    sessions = tuple(session for session in found if session is not None)
    if not sessions:
        raise ConfigError(f"{FLAG}: {path} holds no session with a message to send")
    return AgentTrace(path, fmt, sessions, file.sha256, skipped=len(found) - len(sessions))


def is_tracelab(path: Path) -> bool:
    """Whether ``path`` holds TraceLab's rounds (its first line tells)."""
    return tracelab.is_round(_value(files.lines(FLAG, path).head()))


def _parse(file: UserFile) -> tuple[str, list[RecordedSession | None]]:
    """The file's format and its sessions (None: one with nothing to send)."""
    path = file.path
    if file.suffix == ".jsonl":
        return JSONL, _jsonl(file)
    try:
        whole = file.json()
    except ConfigError:
        if not _looks_like_jsonl(file.text):  # one JSON document, broken
            raise
        return JSONL, _jsonl(file)
    if isinstance(whole, dict) and "conversations" in whole:
        return SGLANG, _sglang(whole, str(path))
    if isinstance(whole, dict) and "messages" not in whole:
        raise ConfigError(
            f"{FLAG}: {path}: a JSON object with neither 'conversations' (sglang's agentic "
            "trace) nor 'messages' (one session)"
        )
    return JSONL, [_jsonl_session(whole, f"{path} line 1", 1)]  # one session, one document


def _looks_like_jsonl(text: str) -> bool:
    """Whether the first non-blank line is a JSON value of its own (so the file is JSONL)."""
    first = next((line for line in text.splitlines() if line.strip()), "")
    try:
        json.loads(first)
    except json.JSONDecodeError:
        return False
    return True


def _value(line: str) -> Any:
    """The line's JSON value (None: it is not one of its own)."""
    try:
        return json.loads(line)
    except json.JSONDecodeError:
        return None


# ----- sglang's agentic trace ---------------------------------------------------------------
def _sglang(data: dict[str, Any], name: str) -> list[RecordedSession | None]:
    conversations = data["conversations"]
    if not isinstance(conversations, list):
        raise ConfigError(f"{FLAG}: {name}: 'conversations' must be a list of conversations")
    shared = _tools(data["tools"], f"{name}: tools") if data.get("tools") is not None else None
    return [
        _sglang_session(conversation, f"{name} conversation {number}", number, shared)
        for number, conversation in enumerate(conversations, 1)
    ]


def _sglang_session(
    conversation: Any, where: str, number: int, shared: Tools | None
) -> RecordedSession | None:
    if not isinstance(conversation, list):
        raise ConfigError(f"{FLAG}: {where}: a conversation must be a list of turns")
    lists: list[tuple[Timed, dict[str, Any], str]] = []
    for index, turn in enumerate(conversation, 1):
        at = f"{where} turn {index}"
        if not isinstance(turn, dict):
            raise ConfigError(f"{FLAG}: {at}: a turn must be a JSON object with 'messages'")
        if turn.get("messages") in (None, []):
            continue  # nothing to send: skipped, as sglang skips it
        lists.append((_messages(turn["messages"], at), turn, at))
    if not lists:
        return None
    extends = [
        len(later.messages) > len(earlier.messages)
        and later.messages[: len(earlier.messages)] == earlier.messages
        for (earlier, _, _), (later, _, _) in zip(lists, lists[1:], strict=False)
    ]
    cumulative = 2 * sum(extends) > len(extends)  # most turns repeat the one before
    turns: list[RecordedTurn] = []
    tools = shared
    for index, (timed, turn, at) in enumerate(lists):
        restart = cumulative and index > 0 and not extends[index - 1]
        if not cumulative or index == 0 or restart:
            reply, new = Timed((), ()), timed
        else:
            reply, new = timed.since(len(lists[index - 1][0].messages)).split_reply()
        if turn.get("tools") is not None:
            tools = _tools(turn["tools"], f"{at}: tools")
        own = _time(turn["timestamp"], at) if turn.get("timestamp") is not None else None
        turns.append(
            RecordedTurn(
                reply.messages,
                new.messages,
                time=own if own is not None else new.latest(),
                prompt_tokens=_count(turn.get("prompt_tokens"), "prompt_tokens", at),
                tools=tools,
                restart=restart,
            )
        )
    return RecordedSession(_with_steps(turns, ()), number)


# ----- JSONL: one message list a line ------------------------------------------------------
def _jsonl(file: UserFile) -> list[RecordedSession | None]:
    return [
        _jsonl_session(data, f"{file.path} line {number}", number)
        for number, data in file.json_lines()
    ]


def _jsonl_session(data: Any, where: str, number: int) -> RecordedSession | None:
    """One line's session: a request wherever the list has an assistant reply, and one more
    when it ends with messages the trace has no reply to."""
    tools = None
    if isinstance(data, dict):
        if "messages" not in data:
            raise ConfigError(f"{FLAG}: {where}: no 'messages' (a list of OpenAI messages)")
        if data.get("tools") is not None:
            tools = _tools(data["tools"], f"{where}: tools")
        data = data["messages"]
    timed = _messages(data, where)
    runs: list[tuple[bool, list[int]]] = []  # (assistant?, message indices), in order
    for index, message in enumerate(timed.messages):
        assistant = message["role"] == "assistant"
        if runs and runs[-1][0] == assistant:
            runs[-1][1].append(index)
        else:
            runs.append((assistant, [index]))
    if runs[0][0]:  # an opening assistant message answers nothing: it is context
        opening = runs.pop(0)[1]
        if not runs:
            return None
        runs[0] = (False, opening + runs[0][1])
    turns: list[RecordedTurn] = []
    reply: Messages = ()
    for assistant, indices in runs:
        part = timed.pick(indices)
        if assistant:
            reply = part.messages
            continue
        turns.append(RecordedTurn(reply, part.messages, time=part.latest(), tools=tools))
        reply = ()
    return RecordedSession(_with_steps(turns, reply), number)


# ----- parts ---------------------------------------------------------------------------------
@dataclass(frozen=True)
class Timed:
    """Messages as sent, each with its recorded time (None: not recorded)."""

    messages: Messages
    times: tuple[float | None, ...]

    def since(self, start: int) -> Timed:
        return Timed(self.messages[start:], self.times[start:])

    def pick(self, indices: list[int]) -> Timed:
        return Timed(
            tuple(self.messages[i] for i in indices), tuple(self.times[i] for i in indices)
        )

    def split_reply(self) -> tuple[Timed, Timed]:
        """The leading assistant messages (the reply to the turn before) and the rest."""
        roles = [m["role"] for m in self.messages]
        cut = next((i for i, role in enumerate(roles) if role != "assistant"), len(roles))
        return Timed(self.messages[:cut], self.times[:cut]), self.since(cut)

    def latest(self) -> float | None:
        """The latest time of the messages that are not the assistant's (when the request could
        go), None when none has one."""
        given = [
            t
            for m, t in zip(self.messages, self.times, strict=True)
            if t is not None and m["role"] != "assistant"
        ]
        return max(given) if given else None


def _with_steps(turns: list[RecordedTurn], last_reply: Messages) -> tuple[RecordedTurn, ...]:
    """Each turn with its step: what the trace's reply to it (the next turn's) was."""
    replies = [turn.reply for turn in turns[1:]] + [last_reply]
    out = []
    for turn, reply in zip(turns, replies, strict=True):
        step = None
        if reply:
            step = STEP_TOOL_CALL if any(m.get("tool_calls") for m in reply) else STEP_ANSWER
        out.append(dataclasses.replace(turn, step=step))
    return tuple(out)


def _messages(value: Any, where: str) -> Timed:
    if not isinstance(value, list) or not value:
        raise ConfigError(f"{FLAG}: {where}: 'messages' must be a non-empty list of messages")
    calls = 0
    out, times = [], []
    for number, message in enumerate(value, 1):
        at = f"{where}: message {number}"
        normal, made = _message(message, at, calls)
        calls += made
        out.append(normal)
        stamp = message.get("timestamp")
        times.append(None if stamp is None else _time(stamp, at))
    return Timed(tuple(out), tuple(times))


def _message(message: Any, where: str, calls_before: int) -> tuple[dict[str, Any], int]:
    """One message as it is sent, and how many tool-call ids it had to be given."""
    if not isinstance(message, dict) or message.get("role") not in ROLES:
        raise ConfigError(f"{FLAG}: {where}: needs a role ({', '.join(ROLES)})")
    role = message["role"]
    out: dict[str, Any] = {"role": role, "content": _content(message, where)}
    if isinstance(message.get("name"), str):
        out["name"] = message["name"]
    made = 0
    if role == "assistant" and message.get("tool_calls"):
        calls = message["tool_calls"]
        if not isinstance(calls, list):
            raise ConfigError(f"{FLAG}: {where}: 'tool_calls' must be a list")
        out["tool_calls"] = []
        for number, call in enumerate(calls, 1):
            normal, given_id = _tool_call(call, f"{where} tool call {number}", calls_before + made)
            made += not given_id
            out["tool_calls"].append(normal)
    elif out["content"] is None and role == "assistant":
        out["content"] = ""  # a reply that said nothing (its reasoning not recorded)
    elif out["content"] is None:
        raise ConfigError(f"{FLAG}: {where}: a {role} message needs 'content'")
    if role == "tool" and message.get("tool_call_id") is not None:
        if not isinstance(message["tool_call_id"], str):
            raise ConfigError(f"{FLAG}: {where}: 'tool_call_id' must be text")
        out["tool_call_id"] = message["tool_call_id"]
    return out, made


def _content(message: dict[str, Any], where: str) -> Any:
    """Text, a list of content parts (sent as they are), or None (an assistant's tool call)."""
    content = message.get("content")
    if content is None or isinstance(content, str):
        return content
    if isinstance(content, list) and all(isinstance(part, dict) for part in content):
        return content
    raise ConfigError(f"{FLAG}: {where}: 'content' must be text or a list of content parts")


def _tool_call(call: Any, where: str, ordinal: int) -> tuple[dict[str, Any], bool]:
    """A recorded tool call in OpenAI's form, and whether the trace gave it an id."""
    function = call.get("function") if isinstance(call, dict) else None
    if not isinstance(function, dict) or not isinstance(function.get("name"), str):
        raise ConfigError(f"{FLAG}: {where}: needs 'function' with a 'name'")
    arguments = function.get("arguments")
    if isinstance(arguments, dict):
        arguments = json.dumps(arguments)
    elif arguments is None:
        arguments = ""
    elif not isinstance(arguments, str):
        raise ConfigError(f"{FLAG}: {where}: 'arguments' must be JSON text or an object")
    given = call.get("id")
    if given is not None and not isinstance(given, str):
        raise ConfigError(f"{FLAG}: {where}: 'id' must be text")
    normal = {
        "id": given or f"call_recorded_{ordinal}",
        "type": "function",
        "function": {"name": function["name"], "arguments": arguments},
    }
    return normal, bool(given)


def _tools(value: Any, where: str) -> Tools:
    return check_tools(value, f"{FLAG}: {where}")


def _time(value: Any, where: str) -> float:
    """A timestamp in seconds: a number (epoch milliseconds above 1e11) or ISO 8601 text."""
    if isinstance(value, str):
        try:
            return datetime.fromisoformat(value.replace("Z", "+00:00")).timestamp()
        except ValueError:
            raise ConfigError(
                f"{FLAG}: {where}: timestamp {value!r} is not a date and time"
            ) from None
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise ConfigError(f"{FLAG}: {where}: timestamp {value!r} is not a number or a date")
    return value / 1000.0 if value > MILLISECONDS_ABOVE else float(value)


def _count(value: Any, name: str, where: str) -> int | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float) or value < 0:
        raise ConfigError(f"{FLAG}: {where}: {name} {value!r} is not a token count")
    return int(value)
