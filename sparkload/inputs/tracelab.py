"""TraceLab's round traces (``--agent-trace FILE``): Claude Code and Codex sessions as token counts.

TraceLab (github.com/uw-syfi/TraceLab; its release ``syfi_coding_trace.jsonl.gz``) records one
LLM round a JSON line, without any text: ``session_id``, ``round_index`` (its place in the
session), ``input_tokens_total`` = ``prefix_tokens`` (what the provider's prompt cache served)
+ ``newly_append_tokens``, ``output_tokens`` (Codex: reasoning included; Claude: thinking
included, ``reasoning_output_tokens`` null), ``timing_events`` (``event_type``, ISO 8601
``timestamp``: ``user_message`` and ``tool_result`` are the round's input, ``reasoning``,
``text``, ``tool_call`` and ``usage_report`` its output) and ``tools`` (``emitted_at``,
``result_at``, ``tool_wall_latency_ms``, names), beside ``provider``, ``model``, the
pseudonymous ``user`` and ``project`` and other fields, which are not read.

- **A round** is due when its last input event before its first output event arrived (all the
  tool results it waits for are in; no input event: its first event) and ends at its last
  output event; a round without timing events is untimed. Its tool spans (``emitted_at`` to
  ``result_at``, both recorded) are the calls that blocked the next round.
- **A session** is its rounds in ``round_index`` order; its span runs from its first round's
  start to its last round's end (only a session whose every round is timed has one).
- **Sub-agents.** TraceLab writes a sub-agent (Claude Code's Task tool, Codex's spawned agents)
  as a session of its own under a fresh pseudonym, so it is joined back by time: a session
  whose span lies inside a tool span of another session of the same ``user`` and ``project``
  (emitted at or before its start, the result at or after its end) is that round's sub-agent:
  replayed after the round, before the next one, as a blocking tool runs. Of several such
  spans the innermost (the shortest; then the earliest emitted, the parent first in the file,
  its round and tool first) is its parent; a parent's span must be longer than the child's, so
  no two sessions can hold each other. Sub-agents of one round run in the order they started.
  ``LabCorpus.joined`` counts the sessions nested (the manifest says it).
- **Pauses.** Each round's ``pause`` is the recorded time between the latest end of what a
  replay runs before it on the user's stack (the session's round before, its sub-agents; for a
  sub-agent's first round its parent's round) and its own start: a tool's run and a human's
  reading in one, never negative; a session's first round, and any untimed round, has none.

Any problem is a ``ConfigError`` of one line naming the file and line: not JSON, not an object,
a count missing, not a whole number or negative, a prefix above the total, a timestamp that is
not a date. A session's round index may come twice (TraceLab's merged trace has a few hundred
such rounds, logged twice by its collectors): both are replayed, in the file's order, and the
manifest counts them (``repeated_rounds``).
"""

from __future__ import annotations

import dataclasses
import heapq
from collections import defaultdict
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from sparkload.errors import ConfigError
from sparkload.inputs.files import LineFile

FORMAT = "tracelab"
COUNTS = ("input_tokens_total", "prefix_tokens", "newly_append_tokens", "output_tokens")
INPUT_EVENTS = frozenset({"user_message", "tool_result"})
OUTPUT_EVENTS = frozenset({"reasoning", "text", "tool_call", "usage_report"})


@dataclass(frozen=True, slots=True)
class ToolSpan:
    emitted: float  # epoch seconds
    result: float


@dataclass(frozen=True, slots=True)
class LabRound:
    index: int  # round_index
    line: int  # its line in the file
    input_tokens: int  # input_tokens_total
    prefix_tokens: int  # served by the recorded prompt cache: the reuse a replay keeps
    new_tokens: int  # newly_append_tokens
    output_tokens: int  # reasoning included
    reasoning_tokens: int | None  # reasoning_output_tokens (Codex; None: Claude's, unsaid)
    start: float | None  # epoch seconds its request was due (None: untimed)
    end: float | None  # its last output
    tools: tuple[ToolSpan, ...]  # those with both times
    calls: int = 0  # the tool calls it made (its ``tools``, timed or not)
    pause: float = 0.0  # recorded seconds before it (module docstring, "Pauses")

    @property
    def tools_end(self) -> float | None:
        """When its last blocking tool call returned (None: it made none with times)."""
        return max((span.result for span in self.tools), default=None)


@dataclass(frozen=True, slots=True)
class LabChild:
    after: int  # the position (0-based) in its parent's rounds of the round it follows
    session: LabSession


@dataclass(frozen=True, slots=True)
class LabSession:
    session_id: str
    user: str  # "" when the line has none
    project: str
    rounds: tuple[LabRound, ...]  # round_index order, at least one
    children: tuple[LabChild, ...] = ()  # its sub-agents, in replay order

    @property
    def span(self) -> tuple[float, float] | None:
        """First start to last end, when every round is timed."""
        if any(r.start is None or r.end is None for r in self.rounds):
            return None
        start = self.rounds[0].start
        assert start is not None
        return start, max(r.end for r in self.rounds if r.end is not None)

    @property
    def requests(self) -> int:
        """Its rounds and every nested sub-agent's."""
        return len(self.rounds) + sum(child.session.requests for child in self.children)


@dataclass(frozen=True)
class LabCorpus:
    path: Path
    sha256: str
    sessions: tuple[LabSession, ...]  # top-level, in the file's order of first lines
    joined: int  # sessions nested as sub-agents
    repeated_rounds: int = 0  # rounds whose session had their round index already

    @property
    def format(self) -> str:
        return FORMAT

    @property
    def max_tokens(self) -> int:
        """The longest recorded output of any round (at least 1)."""
        return max(1, *(r.output_tokens for s in _all(self.sessions) for r in s.rounds))

    def describe(self) -> dict[str, Any]:
        return {
            "path": str(self.path),
            "format": FORMAT,
            "sha256": self.sha256,
            "sessions": len(self.sessions),
            "joined": self.joined,
            "repeated_rounds": self.repeated_rounds,
            "rounds": sum(session.requests for session in self.sessions),
            "timed_sessions": sum(session.span is not None for session in self.sessions),
        }


def _all(sessions: tuple[LabSession, ...]) -> list[LabSession]:
    """The sessions and every nested sub-agent."""
    return (
        [*sessions, *_all(tuple(c.session for s in sessions for c in s.children))]
        if sessions
        else []
    )


def is_round(value: Any) -> bool:
    """Whether a JSON value is a TraceLab round (as opposed to a list of messages)."""
    return (
        isinstance(value, dict)
        and "session_id" in value
        and any(key in value for key in ("round_index", *COUNTS))
    )


def read_corpus(file: LineFile) -> LabCorpus:
    """The file's sessions, sub-agents nested; a ConfigError of one line naming what is wrong."""
    by_id: dict[str, list[LabRound]] = {}
    keys: dict[str, tuple[str, str]] = {}
    seen: set[tuple[str, int]] = set()
    repeated = 0
    for number, value in file.json_lines():
        at = file.at(number)
        if not isinstance(value, dict):
            raise ConfigError(f"{at}: a TraceLab round must be a JSON object")
        session_id = value.get("session_id")
        if not isinstance(session_id, str) or not session_id:
            raise ConfigError(f"{at}: session_id must be non-empty text")
        found = _round(value, number, at)
        repeated += (session_id, found.index) in seen
        seen.add((session_id, found.index))
        by_id.setdefault(session_id, []).append(found)
        keys.setdefault(session_id, (_text(value, "user", at), _text(value, "project", at)))
    if not by_id:
        raise ConfigError(f"{file.flag}: {file.path} holds no TraceLab round")
    flat = [
        LabSession(sid, *keys[sid], tuple(sorted(rounds, key=lambda r: r.index)))
        for sid, rounds in by_id.items()
    ]
    parents = _parents(flat)
    tops = tuple(_nest(flat, parents))
    return LabCorpus(file.path, file.sha256, tops, joined=len(parents), repeated_rounds=repeated)


# ----- one line ----------------------------------------------------------------------------
def _round(value: dict[str, Any], number: int, at: str) -> LabRound:
    total, prefix, new, output = (_count(value, name, at) for name in COUNTS)
    if prefix > total:
        raise ConfigError(f"{at}: prefix_tokens {prefix} is more than input_tokens_total {total}")
    reasoning = value.get("reasoning_output_tokens")
    if reasoning is not None:
        reasoning = _count(value, "reasoning_output_tokens", at)
    start, end = _times(value.get("timing_events"), at)
    return LabRound(
        index=_count(value, "round_index", at),
        line=number,
        input_tokens=total,
        prefix_tokens=prefix,
        new_tokens=new,
        output_tokens=output,
        reasoning_tokens=reasoning,
        start=start,
        end=end,
        tools=_tools(value.get("tools"), at),
        calls=len(value.get("tools") or ()),
    )


def _count(value: dict[str, Any], name: str, at: str) -> int:
    if name not in value or value[name] is None:
        raise ConfigError(f"{at}: no {name} (TraceLab's round counts are required)")
    count = value[name]
    if isinstance(count, bool) or not isinstance(count, int) or count < 0:
        raise ConfigError(f"{at}: {name} {count!r} is not a whole number of 0 or more")
    return count


def _text(value: dict[str, Any], name: str, at: str) -> str:
    given = value.get(name)
    if given is None:
        return ""
    if not isinstance(given, str):
        raise ConfigError(f"{at}: {name} must be text")
    return given


def _times(events: Any, at: str) -> tuple[float | None, float | None]:
    """The round's start (its last input event before its first output) and end (its last
    output; none: its start)."""
    if events is None:
        return None, None
    if not isinstance(events, list):
        raise ConfigError(f"{at}: timing_events must be a list")
    stamped: list[tuple[str, float]] = []
    for number, event in enumerate(events, 1):
        where = f"{at}: timing_events[{number}]"
        if not isinstance(event, dict):
            raise ConfigError(f"{where} must be an object with event_type and timestamp")
        if event.get("timestamp") is not None:
            stamped.append((str(event.get("event_type")), _time(event["timestamp"], where)))
    if not stamped:
        return None, None
    first_out = next((i for i, (kind, _) in enumerate(stamped) if kind in OUTPUT_EVENTS), None)
    before = stamped[:first_out]
    inputs = [t for kind, t in before if kind in INPUT_EVENTS]
    start = max(inputs) if inputs else stamped[0][1]
    outputs = [t for kind, t in stamped if kind in OUTPUT_EVENTS]
    return start, max([start, *outputs])


def _tools(tools: Any, at: str) -> tuple[ToolSpan, ...]:
    if tools is None:
        return ()
    if not isinstance(tools, list):
        raise ConfigError(f"{at}: tools must be a list")
    spans = []
    for number, tool in enumerate(tools, 1):
        where = f"{at}: tools[{number}]"
        if not isinstance(tool, dict):
            raise ConfigError(f"{where} must be an object")
        emitted, result = tool.get("emitted_at"), tool.get("result_at")
        if emitted is None or result is None:
            continue  # not both recorded: it blocked for an unknown time
        span = ToolSpan(_time(emitted, f"{where}.emitted_at"), _time(result, f"{where}.result_at"))
        if span.result >= span.emitted:
            spans.append(span)
    return tuple(spans)


def _time(value: Any, where: str) -> float:
    """An ISO 8601 timestamp (``2026-06-01T05:40:20.151Z``) in epoch seconds."""
    if not isinstance(value, str):
        raise ConfigError(f"{where}: timestamp {value!r} is not ISO 8601 text")
    try:
        return datetime.fromisoformat(value.replace("Z", "+00:00")).timestamp()
    except ValueError:
        raise ConfigError(f"{where}: timestamp {value!r} is not a date and time") from None


# ----- sub-agents ---------------------------------------------------------------------------
Place = tuple[int, int]  # (parent's place in the file's sessions, round position)


def _parents(sessions: list[LabSession]) -> dict[int, Place]:
    """Each nested session's place in ``sessions`` -> its parent's place and round position.

    A sweep per user and project: sessions by start, tool spans entering as they are emitted
    and leaving once they returned before the session's start (no later session can lie in
    them), so only the calls in flight at a session's start are looked at."""
    groups: dict[tuple[str, str], list[int]] = defaultdict(list)
    for place, session in enumerate(sessions):
        if session.span is not None:
            groups[(session.user, session.project)].append(place)
    found: dict[int, Place] = {}
    for places in groups.values():
        spans = sorted(
            (tool.emitted, tool.result, owner, position, number)
            for owner in places
            for position, one in enumerate(sessions[owner].rounds)
            for number, tool in enumerate(one.tools)
        )
        children = sorted(places, key=lambda p: (_span(sessions[p])[0], p))
        flying: list[tuple[float, float, int, int, int]] = []  # heap by result
        entered = 0
        for child in children:
            start, end = _span(sessions[child])
            while entered < len(spans) and spans[entered][0] <= start:
                emitted, result, owner, position, number = spans[entered]
                heapq.heappush(flying, (result, emitted, owner, position, number))
                entered += 1
            while flying and flying[0][0] < start:
                heapq.heappop(flying)
            length = end - start
            holding = [
                (result - emitted, emitted, owner, position, number)
                for result, emitted, owner, position, number in flying
                if result >= end and owner != child and _length(sessions[owner]) > length
            ]
            if holding:
                _, _, owner, position, _ = min(holding)
                found[child] = (owner, position)
    return found


def _span(session: LabSession) -> tuple[float, float]:
    span = session.span
    assert span is not None
    return span


def _length(session: LabSession) -> float:
    start, end = _span(session)
    return end - start


def _nest(sessions: list[LabSession], parents: dict[int, Place]) -> list[LabSession]:
    """The top-level sessions, each with its sub-agents (and theirs) and every round's pause."""
    after: dict[Place, list[tuple[float, int]]] = defaultdict(list)  # (start, child) a round
    for child, place in parents.items():
        after[place].append((_span(sessions[child])[0], child))

    def build(place: int, clock: float | None) -> tuple[LabSession, float | None]:
        """The session at ``place`` with its pauses after ``clock`` (the latest recorded end of
        what ran before it), and the clock after it."""
        session = sessions[place]
        rounds, children = [], []
        for position, one in enumerate(session.rounds):
            pause = 0.0
            if clock is not None and one.start is not None and (position or place in parents):
                pause = max(0.0, one.start - clock)
            rounds.append(dataclasses.replace(one, pause=pause))
            clock = _later(clock, one.end)
            for _, kid in sorted(after.get((place, position), ())):
                nested, clock = build(kid, clock)
                children.append(LabChild(position, nested))
        return dataclasses.replace(session, rounds=tuple(rounds), children=tuple(children)), clock

    return [build(place, None)[0] for place in range(len(sessions)) if place not in parents]


def _later(clock: float | None, end: float | None) -> float | None:
    if end is None:
        return clock
    return end if clock is None else max(clock, end)
