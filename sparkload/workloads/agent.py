"""The agent workload: tool-calling sessions, synthetic or replayed from a recorded trace.

What a coding agent sends a Spark: every request carries a list of tools; many of its turns are
answered with a tool call, not text; the agent runs the tool, appends the call and its result to
the context and asks again, so the context grows step by step, and a prefix cache can serve all
of it but the new part.

- **A synthetic session** has ``--turns`` user turns (default 2; ``--turns-stddev`` draws a
  count per session as the conversation workload does), each made of exactly ``--tool-turns``
  *tool steps* (default 2) and one *answer step*: ``turns x (tool-turns + 1)`` requests. A user
  turn's first step sends the next prompt of the process's seeded order (``--prompts``) as the
  user message; every step sends the whole context: a system prompt, the user messages, and
  every reply received so far. A tool step asks with ``--tool-choice`` (default ``auto``;
  ``required`` makes vLLM force a call by guided decoding); the answer step asks
  ``tool_choice: none``, for the text that ends the user turn.
- **A tool call** (a reply that streamed ``tool_calls``, at any step) joins the context as the
  assistant message with its ``tool_calls`` (the ids, names and arguments as streamed; a call
  without an id gets one, arguments that are not a JSON object are sent as ``{}``), then one
  ``role: "tool"`` message per call with its ``tool_call_id`` and a synthetic result of
  ``--tool-result-tokens`` tokens (default 512; ``--tool-result-tokens-stddev`` for a normal
  spread), drawn from a pool of filler texts fitted to their lengths by the ``--input-tokens``
  count of a message's content (``fitting.synthesize_results``; the estimate until the master
  has fitted them by the target's). A text reply joins as an assistant message.
- **Text where a tool call was asked** (a tool step answered without a call: ``auto`` lets the
  model decide) is a named choice, ``--on-text-reply``, and counted (``extra.text_reply``):
  ``continue`` (default) appends the text and a fixed user message asking the model to go on
  with the tools (what an agent loop such as OpenHands' sends then; without it the next
  request would end with the assistant's own message), and the next step follows as planned;
  ``stop`` ends the session there (the agent gave up).
- **Exact counts.** Every step is planned whatever the replies: a user turn is always its tool
  steps and its answer step, so with ``continue`` a session is always ``turns x (tool-turns +
  1)`` requests and a ladder level of C users ``C x R x`` that, known in advance. With ``stop``
  a session may end early (``UserState.unsent`` tells the session: ``contract.py``'s
  "Sessions"): its last record says how many of its planned requests were not sent
  (``extra.turns_unsent``), and in a counted level the session ships its records when it ends,
  each with the session's actual count in ``turns``, so the master, which sums the ``turns`` of
  first records as it does for drawn turns, ends the level exactly on the requests sent (the
  live table then moves a session at a time). A failed step (an error record) adds nothing to
  the context (the next step sends the same context again) and counts as planned.
- **Replay** (``--agent-trace FILE``, ``inputs.agent_traces``: sglang's agentic trace or a JSONL
  of message lists): this workload with recorded sessions in place of synthetic ones, chosen by
  the option as ``--trace`` chooses the trace workload. Each session, in the seeded order,
  replays its turns in order (at most ``--turns``), one request per turn: the context so far,
  the reply to the turn before, then the turn's own messages. ``--history model`` (default)
  puts the model's own reply there: its text and its tool calls, the trace's tool results that
  follow it re-addressed to the model's call ids in order; when the model's calls do not match
  the results the trace has (another count), the recorded reply stands in, so the context stays
  a valid exchange (or the model's text alone when the trace recorded no reply);
  ``extra.history`` says which (``restart`` for a turn whose recorded list is the whole context:
  the agent condensed its history, and the context starts anew from it). ``--history
  dataset`` sends the recorded replies. A turn is sent with the trace's tools (the turn's, the
  session's or the file's), else ``--tools`` or the built-in set, and ``--tool-choice``; its
  ``step`` is what the trace's reply to it was. A session whose every turn has a recorded time
  is timed by its gaps (each turn due the recorded gap after the send of the turn before: the
  session waits what is left once the reply is in, ``extra.gap_s``), any other by
  ``--think-time``.
- **Prefix sharing** as the conversation workload has it: each request's messages start with
  the byte-identical messages of the one before (the context is kept as sent), and the first
  user message starts with the session's id line (``[conversation <id>]``), so no session is
  served another's context from the cache; the system prompt and the tools before it are the
  same for every synthetic session, the prefix an agent's sessions share.
- **Think time** (``--think-time``): before every request of a session but its first, a seeded
  exponential wait of that mean in the target's time (``extra.think_s``; the tool's run and the
  user's reading in one).
- **Records** carry ``session_id`` (a random UUID), ``turn`` (the request's number in its session,
  1 to ``turns``: the ladder's count and the session's quota read them as a conversation's),
  ``turns`` (the session's requests: as planned, or as sent when ``stop`` ended it) and ``step``
  (``tool_call`` or ``answer``: what the step asked); ``extra`` has ``user_turn`` and
  ``step_index`` (the step's place in its user turn, 1-based; synthetic sessions), ``messages``
  (the context's message count), ``tool_choice``, ``replied`` (``tool_call`` or ``text``; None for
  a failed step, or a reply not asked for: a replay with ``--history dataset``) and, for a replay,
  ``trace_session``, ``recorded_prompt_tokens`` and ``history``.
- **Load plans.** Closed loop only: open loop is refused, as for conversations (an arrival is one
  request, and a session's steps each wait for the reply before: the next step's context holds
  it). The warm-up is a one-request session of its own (its first step; a replay's is the file's
  first turn, drawing nothing from the seeded order, which deals each recorded session once before
  any twice: in one process a first level of C x R sessions over a trace of as many replays each
  once). ``--api completions`` is refused (tools and tool calls are the chat API's), and so are
  ``--identical-prompts`` and ``--cache-bust`` (sessions start unique and mean their later steps
  to hit the cache).

Think times, the tool results drawn and drawn turns come from the user's own generator, seeded
by ``--seed``, the process and the user's number, so a run's draws repeat with its seed.
"""

from __future__ import annotations

import random
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar

from sparkload.apis import able_to, wire_api
from sparkload.config import HISTORY_DATASET, HISTORY_MODEL, HISTORY_SERVER, changed, default
from sparkload.config.workload import ON_TEXT_CONTINUE, ON_TEXT_STOP, TOOL_CHOICE_NONE
from sparkload.errors import ConfigError
from sparkload.inputs.agent_traces import AgentTrace, RecordedTurn, load_agent_trace
from sparkload.inputs.prompts import load_prompts
from sparkload.inputs.tools import Tools, ToolSet, load_tools
from sparkload.records import STATUS_OK, STEP_ANSWER, STEP_TOOL_CALL, WORKLOAD_CHAT, RequestRecord
from sparkload.records.vocabulary import WORKLOAD_AGENT
from sparkload.transport.tally import Reply
from sparkload.workloads import fitting
from sparkload.workloads.coding_tools import BUILTIN_TOOLS, parse_arguments, tool_result
from sparkload.workloads.contract import (
    PlannedRequest,
    Sampling,
    Slot,
    Synthetic,
    UserState,
    Workload,
    check_lengths_agree,
    refuse_input_tokens,
    run_max_tokens,
)
from sparkload.workloads.conversation import ID_LINE
from sparkload.workloads.promptset import pinned

if TYPE_CHECKING:
    from sparkload.config import RunOptions

DEFAULT_TURNS = 2  # user turns of a synthetic session
SYSTEM_PROMPT = (
    "You are a coding agent working in a software repository. Use the tools to read, search, "
    "run and edit its code until the user's task is done, then answer the user in plain text: "
    "what you changed and why."
)
CONTINUE_MESSAGE = (  # after a text reply where a tool call was asked (--on-text-reply continue)
    "Please continue working on the task with the tools. When it is done, say so in your answer."
)
REPLIED_TOOL_CALL, REPLIED_TEXT = "tool_call", "text"  # extra.replied
# extra.history (a replay): what stood for the reply to the turn before
HISTORY_FROM_MODEL, HISTORY_MODEL_TEXT, HISTORY_RECORDED, HISTORY_NONE = (
    "model",
    "model_text",
    "recorded",
    "none",
)
HISTORY_RESTART = "restart"  # the trace's turn rewrote the whole context
SYNTHETIC_FLAGS = (  # options of synthetic sessions only: a replay's sessions are the trace's
    ("--tool-turns", "tool_turns"),
    ("--tool-result-tokens", "tool_result_tokens"),
    ("--tool-result-tokens-stddev", "tool_result_tokens_stddev"),
    ("--on-text-reply", "on_text_reply"),
    ("--turns-stddev", "turns_stddev"),
    ("--prompts", "prompts"),
    ("--reply-lengths", "reply_lengths"),
)
AGENT_FLAGS = (*SYNTHETIC_FLAGS[:4], ("--tools", "tools"), ("--tool-choice", "tool_choice"))


@dataclass
class AgentSession:
    """One session under way: its context as sent, and where it is."""

    session_id: str
    level_index: int  # the level it runs in: a new level starts a new session
    turns: int  # requests planned (the records' ``turns``)
    source: int  # its first prompt (synthetic) or its trace session
    prompt: int = 0  # the prompt of the user turn under way (the records' prompt_index)
    context: list[dict[str, Any]] = field(default_factory=list)  # messages as sent, replies in
    turn: int = 0  # requests planned so far
    reply: Reply | None = None  # a replay: the model's reply to the turn before (None: failed)
    calls_made: int = 0  # tool-call ids this session had to make


@dataclass
class AgentUser(UserState):
    rng: random.Random | None = None  # think times, result lengths and texts, drawn turns
    session: AgentSession | None = None


@dataclass
class AgentWorkload(Workload[AgentUser]):
    name: ClassVar[str] = WORKLOAD_AGENT
    max_tokens: int
    sampling: Sampling
    tools: ToolSet  # --tools or the built-in set (a replay: for turns the trace gives none)
    tool_choice: str
    think_time: float  # mean, target seconds (0: none)
    history: str  # HISTORY_MODEL | HISTORY_DATASET
    seed: int
    source: dict  # the manifest's ``prompts`` entry
    prompts: tuple[str, ...] = ()  # synthetic: the user messages, dealt in the seeded order
    trace: AgentTrace | None = None  # or the recorded sessions replayed
    turns: int | None = None  # --turns (None: DEFAULT_TURNS, or each recorded session's own)
    turns_stddev: float = 0.0
    tool_turns: int = 2
    result_tokens: int = 512
    result_tokens_stddev: float = 0.0
    results: Synthetic | None = None  # synthetic sessions: the fitted tool results
    on_text_reply: str = ON_TEXT_CONTINUE
    cache_bust: bool = False  # only first steps start unique: later steps are meant to hit

    def __post_init__(self) -> None:
        self.requests_per_session = self._fixed_requests()
        self.sessions_may_end_early = (
            self.trace is None and self.on_text_reply == ON_TEXT_STOP and self.tool_turns > 0
        )

    # ----- the options ------------------------------------------------------------------------
    @classmethod
    def settle(cls, opts: RunOptions) -> RunOptions:
        check_lengths_agree(opts)
        refuse_input_tokens(cls.name, opts)
        w = opts.workload
        if opts.plan.arrival_rate:
            raise ConfigError(
                "--workload agent runs closed loop (each step waits for the reply before it, "
                "which the next step's context holds): drop --arrival-rate, or use the ladder "
                "or --step-duration"
            )
        if not wire_api(opts.request.api).carries_tools:
            raise ConfigError(
                f"--workload agent sends messages and tools: use --api {able_to('carries_tools')}"
            )
        if w.history == HISTORY_SERVER:
            raise ConfigError(
                "--history server chains a conversation's turns by a reply the server kept: it is "
                "--workload conversation's (an agent's steps carry their history)"
            )
        if w.identical_prompts or w.cache_bust:
            raise ConfigError(
                "--workload agent starts every session unique and means its later steps to hit "
                "the prefix cache: drop --identical-prompts / --cache-bust"
            )
        clash = [key for key in ("tools", "tool_choice") if key in opts.request.extra_body]
        if clash:
            raise ConfigError(
                f"--extra-body sets {', '.join(clash)}: --workload agent sends its own "
                "(give --tools FILE, --tool-choice)"
            )
        if w.agent_trace is not None:
            given = [flag for flag, dest in SYNTHETIC_FLAGS if _given(opts, dest)]
            if given:
                raise ConfigError(
                    f"--agent-trace replays the trace's sessions: drop {', '.join(given)}"
                )
            return opts
        if w.history == HISTORY_DATASET:
            raise ConfigError(
                "--history dataset replays a trace's recorded replies: give --agent-trace FILE "
                "(synthetic agent sessions always carry the model's own)"
            )
        if w.tool_choice == TOOL_CHOICE_NONE and w.tool_turns:
            raise ConfigError(
                "--tool-choice none asks for no tool call, so a tool step cannot be one: give "
                "--tool-turns 0 (tools in the prompt, text answers)"
            )
        return opts

    @classmethod
    def from_options(cls, opts: RunOptions, synthetic: Synthetic | None = None) -> AgentWorkload:
        w = opts.workload
        tools = load_tools(w.tools) if w.tools is not None else ToolSet.builtin(BUILTIN_TOOLS)
        trace = load_agent_trace(w.agent_trace) if w.agent_trace is not None else None
        prompts: tuple[str, ...] = ()
        results, lengths = None, (w.tool_result_tokens, w.tool_result_tokens_stddev)
        if trace is None:
            prompt_set = load_prompts(w.prompts)
            prompts, source = prompt_set.prompts, prompt_set.describe()
            estimated = fitting.Estimate()  # until the master has fitted them by the target's
            results = synthetic or fitting.synthesize_results(estimated, *lengths, opts.plan.seed)
        else:
            if w.history == HISTORY_DATASET and not trace.has_replies:
                raise ConfigError(
                    f"--history dataset replays the trace's recorded replies, but {trace.path} "
                    "records none (its turns hold only new messages): use --history model"
                )
            source = trace.describe()
        return cls(
            max_tokens=run_max_tokens(WORKLOAD_AGENT, opts),
            sampling=Sampling(pinned=pinned(opts, by_default=False)),
            tools=tools,
            tool_choice=w.tool_choice,
            think_time=w.think_time,
            history=w.history,
            seed=opts.plan.seed,
            source=source,
            prompts=prompts,
            trace=trace,
            turns=w.turns,
            turns_stddev=w.turns_stddev,
            tool_turns=w.tool_turns,
            result_tokens=w.tool_result_tokens,
            result_tokens_stddev=w.tool_result_tokens_stddev,
            results=results,
            on_text_reply=w.on_text_reply,
        )

    @property
    def prompt_count(self) -> int:
        return len(self.trace.sessions) if self.trace else len(self.prompts)

    def describe(self) -> dict:
        return dict(self.source)

    def manifest(self) -> dict:
        out: dict[str, Any] = {
            "name": self.name,
            "max_tokens": self.max_tokens,
            "ignore_eos": self.sampling.pinned,
            "sessions": "trace" if self.trace else "synthetic",
            "requests_per_session": self.requests_per_session,
            "tools": self.tools.describe(),
            "tool_choice": self.tool_choice,
            "think_time_s": self.think_time,
            "history": self.history if self.trace else HISTORY_MODEL,
        }
        if self.trace:
            return {**out, "turns": self.turns, "trace": str(self.trace.path)}
        return {
            **out,
            "turns": self.turns or DEFAULT_TURNS,
            "turns_stddev": self.turns_stddev,
            "tool_turns": self.tool_turns,
            "tool_result_tokens": self.result_tokens,
            "tool_result_tokens_stddev": self.result_tokens_stddev,
            "tool_results": self.results.source if self.results else {},
            "on_text_reply": self.on_text_reply,
        }

    # ----- the requests -----------------------------------------------------------------------
    def new_user(self, ordinal: int, draw: Callable[[], int]) -> AgentUser:
        return AgentUser(ordinal, draw)

    def next_request(self, user: AgentUser, slot: Slot) -> PlannedRequest:
        """The next step of the session under way, or the first of a new one when it has
        planned all its requests (or ended early), the level changed, or this is the warm-up
        (a one-request session)."""
        session = user.session
        if (
            slot.warmup
            or session is None
            or session.level_index != slot.level_index
            or session.turn >= session.turns
        ):
            session = user.session = self._begin(user, slot)
        session.turn += 1
        extra: dict[str, Any] = {"workload": self.name}
        step: str | None
        if self.trace is None:
            tools, step, index = self.tools.tools, *self._synthetic_step(user, session, extra)
            choice = self.tool_choice if step == STEP_TOOL_CALL else TOOL_CHOICE_NONE
        else:
            tools, step, index = self._replayed_step(session, extra)
            choice = self.tool_choice
        delay, from_send = self._delay(user, session, extra)
        extra.update(messages=len(session.context), tool_choice=choice)
        last_user = next(
            (m["content"] for m in reversed(session.context) if m["role"] == "user"), ""
        )
        return PlannedRequest(
            last_user if isinstance(last_user, str) else "",
            self.max_tokens,
            index,
            messages=tuple(session.context),
            extra=extra,
            wants_reply=self.trace is None or self.history == HISTORY_MODEL,
            session_id=session.session_id,
            turn=session.turn,
            turns=session.turns,
            delay=delay,
            delay_from_send=from_send,
            tools=tools,
            tool_choice=choice,
            step=step,
        )

    def after(
        self, user: AgentUser, planned: PlannedRequest, record: RequestRecord, reply: Reply | None
    ) -> None:
        """The reply joins the context (a synthetic session's), or waits for the next turn's
        messages (a replay's); a text reply where a tool call was asked follows
        ``--on-text-reply``."""
        session = user.session
        if session is None or planned.session_id != session.session_id:
            return
        answered = reply if record.status == STATUS_OK else None
        record.extra["replied"] = None
        if answered is not None:
            record.extra["replied"] = REPLIED_TOOL_CALL if answered.tool_calls else REPLIED_TEXT
        if self.trace is not None:
            session.reply = answered
            return
        if answered is None:
            return  # nothing to append: the next step sends the same context again
        if answered.tool_calls:
            message, valid = self._assistant_message(session, answered)
            session.context += [message, *self._results(user, message, valid)]
            return
        session.context.append({"role": "assistant", "content": answered.content})
        if planned.step != STEP_TOOL_CALL:
            return
        record.extra["text_reply"] = self.on_text_reply
        if self.on_text_reply == ON_TEXT_CONTINUE:
            session.context.append({"role": "user", "content": CONTINUE_MESSAGE})
            return
        unsent = session.turns - session.turn
        if unsent:
            record.extra["turns_unsent"] = unsent
            user.unsent = unsent
        session.turn = session.turns  # the session is over

    # ----- a session's parts -----------------------------------------------------------------
    def _begin(self, user: AgentUser, slot: Slot) -> AgentSession:
        # a replay's warm-up is the file's first session: it deals none of the seeded order
        source = 0 if slot.warmup and self.trace is not None else user.draw()
        session = AgentSession(uuid.uuid4().hex, slot.level_index, 1, source, source)
        if not slot.warmup and self.trace is not None:
            own = len(self.trace.sessions[source].turns)
            session.turns = own if self.turns is None else min(own, self.turns)
        elif not slot.warmup:  # a warm-up is one request
            session.turns = self._drawn_user_turns(user) * (self.tool_turns + 1)
        if self.trace is None:
            session.context.append({"role": "system", "content": SYSTEM_PROMPT})
        return session

    def _synthetic_step(
        self, user: AgentUser, session: AgentSession, extra: dict[str, Any]
    ) -> tuple[str, int]:
        """Request ``session.turn``'s step and prompt index; the next user message joins the
        context when the step starts a user turn."""
        user_turn, step_index = divmod(session.turn - 1, self.tool_turns + 1)
        if step_index == 0:
            if session.turn == 1:
                text = ID_LINE.format(session.session_id) + self.prompts[session.source]
            else:
                session.prompt = user.draw()
                text = self.prompts[session.prompt]
            session.context.append({"role": "user", "content": text})
        extra.update(user_turn=user_turn + 1, step_index=step_index + 1)
        return (STEP_TOOL_CALL if step_index < self.tool_turns else STEP_ANSWER), session.prompt

    def _replayed_step(
        self, session: AgentSession, extra: dict[str, Any]
    ) -> tuple[Tools, str | None, int]:
        """Recorded turn ``session.turn``: the reply to the turn before and the turn's own
        messages join the context; its tools, step and prompt index (the trace session)."""
        assert self.trace is not None
        recorded = self.trace.sessions[session.source]
        turn = recorded.turns[session.turn - 1]
        if session.turn == 1 or turn.restart:
            session.context = _with_id_line(turn.messages, session.session_id)
            if turn.restart:
                extra["history"] = HISTORY_RESTART
        else:
            before, messages, how = self._before(session, turn)
            session.context += [*before, *messages]
            extra["history"] = how
        extra.update(trace_session=recorded.number, recorded_prompt_tokens=turn.prompt_tokens)
        return turn.tools or self.tools.tools, turn.step, session.source

    def _before(
        self, session: AgentSession, turn: RecordedTurn
    ) -> tuple[list[dict[str, Any]], list[dict[str, Any]], str]:
        """What stands for the reply to the turn before ``turn``, ``turn``'s messages (its tool
        results re-addressed to the model's calls), and which reply it is (``extra.history``)."""
        messages = list(turn.messages)
        recorded = HISTORY_RECORDED if turn.reply else HISTORY_NONE
        reply = session.reply
        if self.history == HISTORY_DATASET or reply is None:
            return list(turn.reply), messages, recorded
        results = next((i for i, m in enumerate(messages) if m["role"] != "tool"), len(messages))
        if len(reply.tool_calls) == results:
            message, _ = self._assistant_message(session, reply)
            for i, call in enumerate(message.get("tool_calls", ())):
                messages[i] = {**messages[i], "tool_call_id": call["id"]}
            return [message], messages, HISTORY_FROM_MODEL
        if turn.reply:
            return list(turn.reply), messages, recorded
        return [{"role": "assistant", "content": reply.content}], messages, HISTORY_MODEL_TEXT

    def _assistant_message(
        self, session: AgentSession, reply: Reply
    ) -> tuple[dict[str, Any], list[bool]]:
        """The model's reply as the context's assistant message (its text and tool calls), and
        whether each call's arguments were a JSON object (those that were not are sent as
        ``{}``: a server that parses the history's arguments would refuse them)."""
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

    def _results(
        self, user: AgentUser, message: dict[str, Any], valid: list[bool]
    ) -> list[dict[str, Any]]:
        """One tool result per call of ``message``, drawn from the fitted pool and addressed to
        its id (an error first for a call whose arguments were not a JSON object)."""
        rng, pool = self._rng(user), self.results.texts if self.results else ()
        out = []
        for call, ok in zip(message["tool_calls"], valid, strict=True):
            text = tool_result(rng.choice(pool), ok)
            out.append({"role": "tool", "tool_call_id": call["id"], "content": text})
        return out

    def _delay(
        self, user: AgentUser, session: AgentSession, extra: dict[str, Any]
    ) -> tuple[float, bool]:
        """The wait before request ``session.turn``: none before a session's first; the
        recorded gap from the send before (a replayed session timed throughout), else a think
        time."""
        if session.turn == 1:
            return 0.0, False
        if self.trace is not None:
            recorded = self.trace.sessions[session.source]
            if recorded.timed:
                now, before = recorded.turns[session.turn - 1], recorded.turns[session.turn - 2]
                assert now.time is not None and before.time is not None
                gap = max(0.0, now.time - before.time)
                extra["gap_s"] = gap
                return gap, True
        if not self.think_time:
            return 0.0, False
        think = self._rng(user).expovariate(1.0 / self.think_time)
        extra["think_s"] = think
        return think, False

    def _rng(self, user: AgentUser) -> random.Random:
        if user.rng is None:
            user.rng = random.Random(f"{self.seed}:{user.stream}:{user.ordinal}")
        return user.rng

    def _drawn_user_turns(self, user: AgentUser) -> int:
        mean = self.turns or DEFAULT_TURNS
        if not self.turns_stddev:
            return mean
        return max(1, round(self._rng(user).gauss(mean, self.turns_stddev)))

    def _fixed_requests(self) -> int | None:
        """Requests per session when every session has the same (the master then knows a
        level's count in advance), else None: drawn turns, recorded sessions of different
        lengths, or sessions ``--on-text-reply stop`` may end early."""
        if self.trace is not None:
            lengths = {len(s.turns) for s in self.trace.sessions}
            if self.turns is not None:
                lengths = {min(length, self.turns) for length in lengths}
            return lengths.pop() if len(lengths) == 1 else None
        if self.turns_stddev or (self.on_text_reply == ON_TEXT_STOP and self.tool_turns):
            return None
        return (self.turns or DEFAULT_TURNS) * (self.tool_turns + 1)


def _with_id_line(messages: tuple[dict[str, Any], ...], session_id: str) -> list[dict[str, Any]]:
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


def _given(opts: RunOptions, dest: str) -> bool:
    """Whether the option ``dest`` differs from its default (the table's)."""
    return getattr(opts.workload, dest) != default(dest)


def refuse_agent_options(opts: RunOptions) -> None:
    """The agent options given to another workload: a ConfigError of one line (they would do
    nothing there)."""
    given = [flag for flag, dest in AGENT_FLAGS if _given(opts, dest)]
    if given:
        raise ConfigError(
            f"{', '.join(given)}: for --workload agent (this run's is {opts.workload.name})"
        )


def choose_agent(opts: RunOptions) -> RunOptions:
    """``--agent-trace`` chooses the agent workload (as ``--trace`` chooses the trace's)."""
    if opts.plan.trace is not None:
        raise ConfigError("--agent-trace and --trace are two replays: give one of them")
    if opts.workload.name not in (WORKLOAD_CHAT, WORKLOAD_AGENT):
        raise ConfigError(
            f"--agent-trace replays agent sessions; --workload {opts.workload.name} has its own"
        )
    return changed(opts, workload=WORKLOAD_AGENT)
