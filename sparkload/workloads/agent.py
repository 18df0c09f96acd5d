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
- **TraceLab** (``--agent-trace`` with TraceLab's rounds, ``tracelab_replay``): each round one
  request, its synthesized prompt as one user message (no tools), its recorded output pinned,
  after its recorded pause (``--max-think-time`` caps it); a nested sub-agent runs on the
  user's stack after its round. A top-level session and its sub-agents are one session of the
  quota (``--requests-per-user`` counts top-level sessions).
- **Prefix sharing** as the conversation workload has it: each request's messages start with
  the byte-identical messages of the one before (the context is kept as sent), and the first
  user message starts with the session's id line (``[conversation <id>]``), so no session is
  served another's context from the cache; the system prompt and the tools before it are the
  same for every synthetic session, the prefix an agent's sessions share.
- **Think time** (``--think-time``): before every request of a session but its first, a seeded
  exponential wait of that mean in the target's time (``extra.think_s``; the tool's run and the
  user's reading in one).
- **Sub-agents** (``--subagent-rate``, ``workloads.subagents``): a tool step may spawn a sub-agent
  session, drawn when the session begins; the user runs it on its stack of agent sessions
  (``AgentUser.stack``) before the parent's next step, and its last reply becomes the parent's
  tool result. A session's requests count its sub-agents' (``turn``/``turns``).
- **Compaction** (``--compact-at``, ``workloads.compaction``): after a request whose prompt passed
  the size, the session's context is its system prompt and a summary sized to ``--compact-to``.
- **Records** carry ``session_id`` (a random UUID), ``turn`` (the request's number in its session,
  sub-agents included, 1 to ``turns``: the ladder's count and the session's quota read them as a
  conversation's), ``turns`` (the session's requests: as planned, or as sent when ``stop`` ended
  it or a sub-agent), ``agent_session``, ``parent_session`` and ``depth`` (the agent session the
  request is of, the one that spawned it, how deep) and ``step``
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

import dataclasses
import json
import random
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar

from sparkload.config import HISTORY_DATASET, HISTORY_MODEL
from sparkload.config.workload import ON_TEXT_CONTINUE, ON_TEXT_STOP, TOOL_CHOICE_NONE
from sparkload.errors import ConfigError
from sparkload.inputs.agent_traces import AgentTrace, load_recorded
from sparkload.inputs.prompts import load_prompts
from sparkload.inputs.tools import ToolSet, load_tools
from sparkload.inputs.tracelab import LabCorpus, LabSession
from sparkload.records import STATUS_OK, STEP_ANSWER, STEP_TOOL_CALL, RequestRecord
from sparkload.records.vocabulary import WORKLOAD_AGENT
from sparkload.transport.tally import Reply
from sparkload.workloads import blocktext, fitting, subagents, tracelab_replay
from sparkload.workloads.agent_options import check_recorded_kind, settle_agent
from sparkload.workloads.agent_replay import recorded_gap, replayed_step
from sparkload.workloads.agent_sessions import AgentSession, AgentUser, assistant_message
from sparkload.workloads.coding_tools import BUILTIN_TOOLS, tool_result
from sparkload.workloads.compaction import Compaction, frame_tokens
from sparkload.workloads.contract import (
    PlannedRequest,
    Sampling,
    Slot,
    Synthetic,
    Workload,
    run_max_tokens,
)
from sparkload.workloads.conversation import ID_LINE
from sparkload.workloads.promptset import pinned
from sparkload.workloads.subagents import (
    KIND_FORK,
    KIND_FRESH,
    SubagentOptions,
    SubagentPlan,
    draw_spawns,
    fixed_total,
)
from sparkload.workloads.tracelab_replay import LabPlace, LabSynthesis

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
    lab: LabCorpus | None = None  # or TraceLab's (tracelab_replay)
    synthesis: LabSynthesis = field(default_factory=LabSynthesis)  # TraceLab's prompts
    turns: int | None = None  # --turns (None: DEFAULT_TURNS, or each recorded session's own)
    turns_stddev: float = 0.0
    tool_turns: int = 2
    result_tokens: int = 512
    result_tokens_stddev: float = 0.0
    results: Synthetic | None = None  # synthetic sessions: the fitted tool results
    on_text_reply: str = ON_TEXT_CONTINUE
    subagents: SubagentOptions = field(default_factory=SubagentOptions)
    compaction: Compaction | None = None
    cache_bust: bool = False  # only first steps start unique: later steps are meant to hit

    def __post_init__(self) -> None:
        self.requests_per_session = self._fixed_requests()
        self.sessions_may_end_early = (
            self.synthetic and self.on_text_reply == ON_TEXT_STOP and self.tool_turns > 0
        )

    @property
    def synthetic(self) -> bool:
        return self.trace is None and self.lab is None

    # ----- the options ------------------------------------------------------------------------
    @classmethod
    def settle(cls, opts: RunOptions) -> RunOptions:
        return settle_agent(opts)

    @classmethod
    def from_options(cls, opts: RunOptions, synthetic: Synthetic | None = None) -> AgentWorkload:
        w = opts.workload
        tools = load_tools(w.tools) if w.tools is not None else ToolSet.builtin(BUILTIN_TOOLS)
        recorded = load_recorded(w.agent_trace) if w.agent_trace is not None else None
        trace = recorded if isinstance(recorded, AgentTrace) else None
        lab = recorded if isinstance(recorded, LabCorpus) else None
        check_recorded_kind(opts, lab is not None)
        prompts: tuple[str, ...] = ()
        results, lengths = None, (w.tool_result_tokens, w.tool_result_tokens_stddev)
        if lab is not None:  # and the master's salt and count of a block (a unit a token?)
            given = synthetic.source if synthetic else {}
            source = {"generator": blocktext.GENERATOR, "salt": "", **given, **lab.describe()}
        elif trace is None:
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
        compaction = Compaction.from_options(w.compact_at, w.compact_to)
        if compaction is not None:
            compaction.check_fits(SYSTEM_PROMPT + json.dumps(tools.tools))
        return cls(
            max_tokens=lab.max_tokens if lab else run_max_tokens(WORKLOAD_AGENT, opts),
            sampling=Sampling(pinned=pinned(opts, by_default=lab is not None)),
            tools=tools,
            tool_choice=w.tool_choice,
            think_time=w.think_time,
            history=w.history,
            seed=opts.plan.seed,
            source=source,
            prompts=prompts,
            trace=trace,
            lab=lab,
            synthesis=LabSynthesis.of(source, w.max_think_time),
            turns=w.turns,
            turns_stddev=w.turns_stddev,
            tool_turns=w.tool_turns,
            result_tokens=w.tool_result_tokens,
            result_tokens_stddev=w.tool_result_tokens_stddev,
            results=results,
            on_text_reply=w.on_text_reply,
            subagents=SubagentOptions(
                w.subagent_rate, w.subagent_depth, w.subagent_turns, w.subagent_fork
            ),
            compaction=compaction,
        )

    @property
    def prompt_count(self) -> int:
        recorded = self.trace or self.lab
        return len(recorded.sessions) if recorded else len(self.prompts)

    def describe(self) -> dict:
        return dict(self.source)

    def manifest(self) -> dict:
        out: dict[str, Any] = {
            "name": self.name,
            "max_tokens": self.max_tokens,
            "ignore_eos": self.sampling.pinned,
            "sessions": "synthetic" if self.synthetic else "trace",
            "requests_per_session": self.requests_per_session,
            "tools": self.tools.describe(),
            "tool_choice": self.tool_choice,
            "think_time_s": self.think_time,
            "history": self.history if self.trace else HISTORY_MODEL,
        }
        if self.lab:
            return {**out, "turns": self.turns, "trace": str(self.lab.path), "tools": None}
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
            "subagents": dataclasses.asdict(self.subagents),
            "compaction": self.compaction.describe() if self.compaction else None,
        }

    # ----- the requests -----------------------------------------------------------------------
    def new_user(self, ordinal: int, draw: Callable[[], int]) -> AgentUser:
        return AgentUser(ordinal, draw)

    def next_request(self, user: AgentUser, slot: Slot) -> PlannedRequest:
        """The next step of the agent session under way (a sub-agent's while one runs), or the
        first of a new session when the one under way has planned all its requests (or ended
        early), the level changed, or this is the warm-up (a one-request session)."""
        stack = user.stack
        if (
            slot.warmup
            or not stack
            or stack[0].level_index != slot.level_index
            or user.planned_in_session >= user.session_requests
        ):
            stack[:] = [self._begin(user, slot)]
        session = stack[-1]
        session.turn += 1
        user.planned_in_session += 1
        extra: dict[str, Any] = {"workload": self.name}
        step: str | None
        max_tokens = self.max_tokens
        if session.lab is not None:  # TraceLab: one synthesized user message a round
            message, step, max_tokens = tracelab_replay.round_request(
                session.lab, self.synthesis, session.session_id, extra
            )
            session.context = [message]
            tools, index, choice = None, session.source, None
        elif self.trace is None:
            tools, step, index = self.tools.tools, *self._synthetic_step(user, session, extra)
            choice = self.tool_choice if step == STEP_TOOL_CALL else TOOL_CHOICE_NONE
        else:
            assert self.trace is not None
            recorded_tools, step = replayed_step(self.trace, self.history, session, extra)
            tools, index, choice = (
                recorded_tools or self.tools.tools,
                session.source,
                self.tool_choice,
            )
        delay, from_send = self._delay(user, session, extra)
        extra.update(messages=len(session.context), tool_choice=choice)
        if session.depth:
            extra["subagent"] = KIND_FORK if session.forked else KIND_FRESH
        if session.compacted_from is not None:
            extra.update(compacted=session.compactions, compacted_from=session.compacted_from)
            session.compacted_from = None
        last_user = next(
            (m["content"] for m in reversed(session.context) if m["role"] == "user"), ""
        )
        return PlannedRequest(
            last_user if isinstance(last_user, str) else "",
            max_tokens,
            index,
            messages=tuple(session.context),
            extra=extra,
            wants_reply=self.lab is None and (self.trace is None or self.history == HISTORY_MODEL),
            session_id=stack[0].session_id,
            turn=user.planned_in_session,
            turns=user.session_requests,
            agent_session=session.session_id,
            parent_session=session.parent.session_id if session.parent else None,
            depth=session.depth,
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
        ``--on-text-reply``; then a sub-agent drawn for this step starts, or the sub-agent that
        ended hands its answer back to its parent."""
        session = user.stack[-1] if user.stack else None
        if session is None or planned.agent_session != session.session_id:
            return
        answered = reply if record.status == STATUS_OK else None
        record.extra["replied"] = None
        if answered is not None:
            record.extra["replied"] = REPLIED_TOOL_CALL if answered.tool_calls else REPLIED_TEXT
        if self.trace is not None:
            session.reply = answered
            return
        if session.lab is not None:
            self._lab_after(user, session)
            return
        if answered is not None and not self._joins(user, session, planned, record, answered):
            return  # --on-text-reply stop ended it
        child = session.spawns.pop(session.turn, None)
        if child is not None:
            user.stack.append(self._spawn(user, session, child, planned, answered))
        elif session.depth and session.turn >= session.turns:
            self._end_subagent(user, answered)
        self._compact(session, record)

    def _joins(
        self,
        user: AgentUser,
        session: AgentSession,
        planned: PlannedRequest,
        record: RequestRecord,
        answered: Reply,
    ) -> bool:
        """``answered`` joins ``session``'s context; False when ``--on-text-reply stop`` ended
        the session there (a sub-agent's ends it alone: its parent goes on)."""
        if answered.tool_calls:
            message, valid = assistant_message(session, answered)
            session.context += [message, *self._results(user, message, valid)]
            return True
        session.context.append({"role": "assistant", "content": answered.content})
        if planned.step != STEP_TOOL_CALL:
            return True
        record.extra["text_reply"] = self.on_text_reply
        if self.on_text_reply == ON_TEXT_CONTINUE:
            session.context.append({"role": "user", "content": CONTINUE_MESSAGE})
            return True
        unsent = session.turns - session.turn + sum(c.total for c in session.spawns.values())
        if session.depth:
            user.stack.pop()
            user.session_requests -= unsent
            self._hand_back(user, session, answered)
        else:
            unsent = user.unsent = user.session_requests - user.planned_in_session
            user.session_requests = user.planned_in_session  # the session is over
        if unsent:
            record.extra["turns_unsent"] = unsent
        return False

    # ----- a session's parts -----------------------------------------------------------------
    def _begin(self, user: AgentUser, slot: Slot) -> AgentSession:
        # a replay's warm-up is the file's first session: it deals none of the seeded order
        source = 0 if slot.warmup and not self.synthetic else user.draw()
        session = AgentSession(uuid.uuid4().hex, slot.level_index, 1, source, source)
        if self.lab is not None:  # a warm-up: its first round alone
            recorded = self.lab.sessions[source]
            session.lab = LabPlace.of(recorded, 1 if slot.warmup else self.turns, not slot.warmup)
            session.turns = session.lab.kept
        elif not slot.warmup and self.trace is not None:
            own = len(self.trace.sessions[source].turns)
            session.turns = own if self.turns is None else min(own, self.turns)
        elif not slot.warmup:  # a warm-up is one request
            session.turns = self._drawn_user_turns(user) * (self.tool_turns + 1)
            session.spawns = draw_spawns(
                self._rng(user), session.turns, self.tool_turns, 0, self.subagents
            )
        if self.synthetic:
            session.context.append({"role": "system", "content": SYSTEM_PROMPT})
        user.planned_in_session = 0
        user.session_requests = session.turns + sum(c.total for c in session.spawns.values())
        user.session_requests = session.lab.total if session.lab else user.session_requests
        return session

    def _lab_after(self, user: AgentUser, session: AgentSession) -> None:
        """TraceLab: the next sub-agent due after the round just sent starts on the stack; a
        sub-agent that sent its last round gives the stack back to its parent (whose next
        sub-agent due after the same round starts then)."""
        while session.lab is not None:
            child = tracelab_replay.due_child(session.lab)
            if child is not None:
                user.stack.append(self._lab_child(session, child))
                return
            if not session.depth or session.turn < session.turns:
                return
            user.stack.pop()
            session = user.stack[-1]

    @staticmethod
    def _lab_child(parent: AgentSession, recorded: LabSession) -> AgentSession:
        child = AgentSession(
            uuid.uuid4().hex, parent.level_index, len(recorded.rounds), parent.source
        )
        child.depth, child.parent = parent.depth + 1, parent
        child.lab = LabPlace.of(recorded, None)
        return child

    def _spawn(
        self,
        user: AgentUser,
        parent: AgentSession,
        plan: SubagentPlan,
        planned: PlannedRequest,
        answered: Reply | None,
    ) -> AgentSession:
        """The sub-agent ``plan`` drew for the parent's step just answered: it starts from its
        opening and runs before the parent's next step, whose tool result its answer becomes
        (the result of the reply's first call; none when the step was not answered by one)."""
        rng = self._rng(user)
        prompt = rng.randrange(len(self.prompts))
        child = AgentSession(uuid.uuid4().hex, parent.level_index, plan.requests, prompt, prompt)
        child.depth, child.parent, child.forked = parent.depth + 1, parent, plan.forked
        child.spawns = dict(plan.spawns)
        child.frame = parent.frame
        task, line = self.prompts[prompt], ID_LINE.format(child.session_id)
        child.context = subagents.opening(plan, planned.messages or (), line, task)
        if answered is not None and answered.tool_calls:
            child.handoff = len(parent.context) - len(answered.tool_calls)
        return child

    def _end_subagent(self, user: AgentUser, answered: Reply | None) -> None:
        """The sub-agent on top of the stack made its last request: its parent goes on."""
        self._hand_back(user, user.stack.pop(), answered)

    @staticmethod
    def _hand_back(user: AgentUser, child: AgentSession, answered: Reply | None) -> None:
        if child.parent is not None and answered is not None:
            subagents.hand_back(child.parent.context, child.handoff, answered.content)

    def _compact(self, session: AgentSession, record: RequestRecord) -> None:
        """``--compact-at``: the session's frame, measured on its first request answered; and
        its context compacted when this request's prompt passed the size."""
        rule = self.compaction
        if rule is None or record.status != STATUS_OK or record.prompt_tokens is None:
            return
        if session.frame is None and session.depth == 0:
            first_user = next(m["content"] for m in session.context if m["role"] == "user")
            session.frame = frame_tokens(record.prompt_tokens, first_user)
        if not rule.due(record.prompt_tokens) or session.turn >= session.turns:
            return
        session.compactions += 1
        line = ID_LINE.format(session.session_id)
        key = f"{self.seed}:{session.session_id}:{session.compactions}"
        session.context = rule.compacted(session.context, session.frame or 0, line, key)
        session.compacted_from = record.prompt_tokens

    def _synthetic_step(
        self, user: AgentUser, session: AgentSession, extra: dict[str, Any]
    ) -> tuple[str, int]:
        """Request ``session.turn``'s step and prompt index; the next user message joins the
        context when the step starts a user turn."""
        user_turn, step_index = divmod(session.turn - 1, self.tool_turns + 1)
        if step_index == 0 and not (session.depth and session.turn == 1):  # not a task's
            if session.turn == 1:
                text = ID_LINE.format(session.session_id) + self.prompts[session.source]
            else:  # a sub-agent's own draws leave the process's seeded order to sessions
                own = self._rng(user).randrange(len(self.prompts)) if session.depth else None
                session.prompt = user.draw() if own is None else own
                text = self.prompts[session.prompt]
            session.context.append({"role": "user", "content": text})
        extra.update(user_turn=user_turn + 1, step_index=step_index + 1)
        return (STEP_TOOL_CALL if step_index < self.tool_turns else STEP_ANSWER), session.prompt

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
        if session.lab is not None:  # TraceLab: the recorded pause after the reply before
            return extra["pause_s"], False
        if session.turn == 1:
            return 0.0, False
        gap = recorded_gap(self.trace, session) if self.trace is not None else None
        if gap is not None:
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
        if self.lab is not None:
            return tracelab_replay.fixed_requests(self.lab, self.turns)
        if self.trace is not None:
            lengths = {len(s.turns) for s in self.trace.sessions}
            if self.turns is not None:
                lengths = {min(length, self.turns) for length in lengths}
            return lengths.pop() if len(lengths) == 1 else None
        if self.turns_stddev or (self.on_text_reply == ON_TEXT_STOP and self.tool_turns):
            return None
        if self.subagents.rate not in (0.0, 1.0):
            return None  # sub-agents drawn per session
        own = (self.turns or DEFAULT_TURNS) * (self.tool_turns + 1)
        return fixed_total(own, self.tool_turns, self.subagents)
