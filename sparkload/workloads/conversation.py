"""The conversation workload: multi-turn chat sessions whose context grows turn by turn.

What a Spark's owners mostly run (coding agents, chat assistants): every turn sends the whole
history, so a turn's prompt is the turn before it plus the reply and one new user message, and
a prefix cache can serve all of it but the new part.

- **A conversation** has ``--turns`` user turns (default 4), or a count drawn per conversation
  from a normal distribution around it (``--turns-stddev``; rounded, at least 1: aiperf's
  ``--conversation-turn-mean`` / ``--conversation-turn-stddev``). Each turn sends every earlier
  user message, each followed by the reply the model actually streamed (``--history model``),
  then the new user message. The history is kept as the very messages sent, so each turn's
  prompt starts with the byte-identical text of the turn before it and the server's chat
  template renders the same prefix.
- **Synthetic conversations** (``--prompts`` a plain prompt file, by default
  ``prompts/prompts.txt``, 100 prompts of 124-139 tokens at 4 characters a token): every user
  message is the next prompt of the process's seeded prompt order, so the context grows by about
  one prompt and one reply per turn. The first message starts with the conversation's id line,
  ``[conversation <id>]``: no two conversations share a prefix block, so none is served from
  another's cache.
- **Dataset conversations** (JSONL ``messages`` or ShareGPT ``conversations`` with several user
  turns, ``datasets.parse_conversations``): each conversation of the file, in the seeded order,
  replays its user turns (at most ``--turns`` of them) after its system messages, the first
  behind the id line too; ``--history dataset`` puts the file's own replies in the history in
  place of the model's.
- **Server-kept history** (``--history server``, ``--api responses`` only): a turn after the
  first sends only its new user message (behind a dataset's system messages, as
  ``instructions``, which a Responses API does not carry over) and the ``previous_response_id``
  of the last answered turn (the record's ``response_id``); the server holds the rest. What the
  prefix cache serves and what the turn costs the client are the server's business then; the
  records' prompt tokens still say how long the context grew. A server that keeps no responses
  answers the second turn with an error (vLLM: start it with
  ``VLLM_ENABLE_RESPONSES_API_STORE=1``), recorded as that turn's failure; a 404 there names
  that variable in the record's error (``NO_STORE_HINT``), as the server's own words do not.
- **Think time** (``--think-time``): before every turn but the first the user waits a seeded
  exponential time of that mean, in the target's time (``PlannedRequest.delay``: the session
  waits, outside the measured span, and divides by the time scale); ``extra.think_s`` keeps it.
- **Output length**: every turn asks the run's (``--max-tokens``, default 128, or
  ``--output-tokens``, pinned); a dataset turn its line's ``max_tokens``, or with
  ``--reply-lengths`` its reply's length, unless ``--output-tokens`` is given.
- **A failed turn** (an error record) has no reply to go on with: its exchange stays out of the
  history and the next turn goes on with the exchanges answered so far (``extra.history_turns``
  counts them). The conversation keeps its planned turns, so a ladder level's count stays exact.
- **Load plans.** In the ladder a user's quota of a level is ``--requests-per-user`` whole
  conversations (``contract.py``, "Sessions"): a level of C users runs C x R conversations, C x R
  x N requests with a fixed N; the level's warm-up is a one-turn conversation of its own. With
  ``--step-duration`` a user starts a new conversation when one ends and at every new level (a
  conversation cut by a level's end stays cut). Open loop is refused: an arrival is one request,
  and a conversation's turns each wait for the reply before.

A conversation's ``session_id`` is a random UUID, unique across processes and runs. Turn counts
and think times come from the user's own generator, seeded by ``--seed``, the process and the
user's number, so a run's draws repeat with its seed.
"""

from __future__ import annotations

import random
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar

from sparkload.apis import able_to, wire_api
from sparkload.config import HISTORY_DATASET, HISTORY_MODEL, HISTORY_SERVER
from sparkload.errors import ConfigError
from sparkload.inputs.datasets import DatasetConversation, Messages, content_text, prefixed
from sparkload.inputs.prompts import load_conversations, load_prompts
from sparkload.records import STATUS_OK, WORKLOAD_CONVERSATION, RequestRecord, http_error_kind
from sparkload.transport.tally import Reply
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
from sparkload.workloads.promptset import pinned

if TYPE_CHECKING:
    from sparkload.config import RunOptions

DEFAULT_TURNS = 4
ID_LINE = "[conversation {}]\n"  # the first characters of a conversation's first user message
# What a 404 on a continued turn means (--history server): vLLM says only "Response with id ...
# not found."
NO_STORE_HINT = (
    "(--history server: the server kept no earlier response to continue; vLLM keeps them only "
    "when started with VLLM_ENABLE_RESPONSES_API_STORE=1)"
)


@dataclass
class Conversation:
    """One conversation under way: what its next turn sends."""

    session_id: str
    level_index: int  # the level it runs in: a new level starts a new conversation
    turns: int  # planned
    source: int  # its dataset conversation, or the prompt of its first message
    prefix: Messages = ()  # a dataset's system messages, first in every turn
    history: list[dict[str, str]] = field(default_factory=list)  # the answered exchanges
    turn: int = 0  # turns planned so far
    answered: int = 0  # user turns in ``history`` (--history server: answered turns)
    last_response_id: str | None = None  # --history server: the last answered turn's


@dataclass
class ConversationUser(UserState):
    rng: random.Random | None = None  # turn counts and think times (made on first use)
    conversation: Conversation | None = None


@dataclass
class ConversationWorkload(Workload[ConversationUser]):
    name: ClassVar[str] = WORKLOAD_CONVERSATION
    max_tokens: int
    sampling: Sampling
    turns: int | None  # --turns (None: DEFAULT_TURNS, or each dataset conversation's own)
    turns_stddev: float
    think_time: float  # mean, target seconds (0: none)
    history: str  # HISTORY_MODEL | HISTORY_DATASET | HISTORY_SERVER
    seed: int
    source: dict  # the manifest's ``prompts`` entry
    prompts: tuple[str, ...] = ()  # synthetic: the user messages, dealt in the seeded order
    dataset: tuple[DatasetConversation, ...] = ()  # or the conversations replayed
    own_lengths: bool = True  # a dataset turn may ask its own max_tokens (no --output-tokens)
    cache_bust: bool = False  # only first turns start unique: later turns are meant to hit

    def __post_init__(self) -> None:
        self.requests_per_session = self._fixed_turns()

    @classmethod
    def settle(cls, opts: RunOptions) -> RunOptions:
        check_lengths_agree(opts)
        refuse_input_tokens(cls.name, opts)
        if opts.plan.arrival_rate:
            raise ConfigError(
                "--workload conversation runs closed loop (each turn waits for the reply before "
                "it): drop --arrival-rate, or use the ladder or --step-duration"
            )
        wire = wire_api(opts.request.api)
        if not wire.carries_messages:
            raise ConfigError(
                f"--workload conversation sends messages: use --api {able_to('carries_messages')}"
            )
        if opts.workload.history == HISTORY_SERVER and not wire.server_history:
            raise ConfigError(
                "--history server chains turns by the id of the reply the server kept: "
                f"give --api {able_to('server_history')}"
            )
        if opts.workload.identical_prompts or opts.workload.cache_bust:
            raise ConfigError(
                "--workload conversation starts every conversation unique and means its later "
                "turns to hit the prefix cache: drop --identical-prompts / --cache-bust"
            )
        return opts

    @classmethod
    def from_options(
        cls, opts: RunOptions, synthetic: Synthetic | None = None
    ) -> ConversationWorkload:
        found = load_conversations(opts.workload.prompts, opts.workload.reply_lengths)
        prompts: tuple[str, ...] = ()
        if found is None:
            if opts.workload.history == HISTORY_DATASET:
                raise ConfigError(
                    "--history dataset replays a dataset's own replies, but "
                    f"{opts.workload.prompts} is a plain prompt file: give a JSONL or ShareGPT "
                    "dataset"
                )
            prompt_set = load_prompts(opts.workload.prompts)
            prompts, source = prompt_set.prompts, prompt_set.describe()
        elif opts.workload.turns_stddev:
            raise ConfigError(
                "--turns-stddev draws the turns of synthetic conversations; a dataset's "
                "conversations have their own (--turns caps them)"
            )
        else:
            source = found.describe()
        return cls(
            max_tokens=run_max_tokens(WORKLOAD_CONVERSATION, opts),
            sampling=Sampling(pinned=pinned(opts, by_default=False)),
            turns=opts.workload.turns,
            turns_stddev=opts.workload.turns_stddev,
            think_time=opts.workload.think_time,
            history=opts.workload.history,
            seed=opts.plan.seed,
            source=source,
            prompts=prompts,
            dataset=found.conversations if found else (),
            own_lengths=opts.workload.output_tokens is None,
        )

    @property
    def prompt_count(self) -> int:
        return len(self.dataset) or len(self.prompts)

    def describe(self) -> dict:
        return dict(self.source)

    def manifest(self) -> dict:
        return {
            "name": self.name,
            "max_tokens": self.max_tokens,
            "ignore_eos": self.sampling.pinned,
            "turns": self.turns if self.dataset else self.turns or DEFAULT_TURNS,
            "turns_stddev": self.turns_stddev,
            "requests_per_session": self.requests_per_session,
            "think_time_s": self.think_time,
            "history": self.history,
            "conversations": "dataset" if self.dataset else "synthetic",
        }

    def new_user(self, ordinal: int, draw: Callable[[], int]) -> ConversationUser:
        return ConversationUser(ordinal, draw)

    def next_request(self, user: ConversationUser, slot: Slot) -> PlannedRequest:
        """The next turn of the conversation under way, or the first of a new one when it has
        planned all its turns, the level changed, or this is the warm-up (a one-turn
        conversation)."""
        conversation = user.conversation
        if (
            slot.warmup
            or conversation is None
            or conversation.level_index != slot.level_index
            or conversation.turn >= conversation.turns
        ):
            conversation = user.conversation = self._begin(user, slot)
        conversation.turn += 1
        message, index, max_tokens = self._user_turn(user, conversation)
        think = self._think_time(user) if conversation.turn > 1 else 0.0
        extra: dict[str, Any] = {"workload": self.name, "history_turns": conversation.answered}
        if self.think_time:
            extra["think_s"] = think
        return PlannedRequest(
            content_text(message["content"]),
            max_tokens,
            index,
            messages=(*conversation.prefix, *conversation.history, message),
            extra=extra,
            wants_reply=self.history == HISTORY_MODEL,
            session_id=conversation.session_id,
            turn=conversation.turn,
            turns=conversation.turns,
            delay=think,
            history_id=conversation.last_response_id,
            category=self.dataset[conversation.source].category if self.dataset else None,
        )

    def after(
        self,
        user: ConversationUser,
        planned: PlannedRequest,
        record: RequestRecord,
        reply: Reply | None,
    ) -> None:
        """The exchange joins the history with its reply: the model's when the turn succeeded
        (a failed turn's exchange stays out), or the file's with ``--history dataset``; with
        ``--history server`` the server keeps it, and the next turn names its response."""
        conversation = user.conversation
        if conversation is None or planned.session_id != conversation.session_id:
            return
        if self.history == HISTORY_SERVER:
            if record.status == STATUS_OK and record.response_id is not None:
                conversation.last_response_id = record.response_id
                conversation.answered += 1
            elif planned.history_id and record.error_kind == http_error_kind(404):
                record.error = f"{record.error} {NO_STORE_HINT}"
            return
        if self.history == HISTORY_DATASET:
            said = self.dataset[conversation.source].turns[(planned.turn or 1) - 1].reply
        elif record.status == STATUS_OK and reply is not None:
            said = reply.content
        else:
            return
        assert planned.messages  # planned by next_request: the new user message is last
        conversation.history.append(planned.messages[-1])
        if said is not None:
            conversation.history.append({"role": "assistant", "content": said})
        conversation.answered += 1

    # ----- the conversation's parts --------------------------------------------------------
    def _begin(self, user: ConversationUser, slot: Slot) -> Conversation:
        source = user.draw()
        session_id = uuid.uuid4().hex
        if slot.warmup:
            turns = 1
        elif self.dataset:
            own = len(self.dataset[source].turns)
            turns = own if self.turns is None else min(own, self.turns)
        else:
            turns = self._drawn_turns(user)
        prefix = self.dataset[source].prefix if self.dataset else ()
        return Conversation(session_id, slot.level_index, turns, source, prefix)

    def _user_turn(
        self, user: ConversationUser, conversation: Conversation
    ) -> tuple[dict[str, Any], int, int]:
        """Turn ``conversation.turn``'s user message, its prompt index and its max_tokens."""
        turn = conversation.turn
        max_tokens = self.max_tokens
        if self.dataset:
            index = conversation.source
            planned = self.dataset[index].turns[turn - 1]
            text: str | list[dict[str, Any]] = planned.user["content"]
            if self.own_lengths and planned.max_tokens is not None:
                max_tokens = planned.max_tokens
        else:
            index = conversation.source if turn == 1 else user.draw()
            text = self.prompts[index]
        if turn == 1:
            text = prefixed(ID_LINE.format(conversation.session_id), text)
        return {"role": "user", "content": text}, index, max_tokens

    def _rng(self, user: ConversationUser) -> random.Random:
        if user.rng is None:
            user.rng = random.Random(f"{self.seed}:{user.stream}:{user.ordinal}")
        return user.rng

    def _drawn_turns(self, user: ConversationUser) -> int:
        mean = self.turns or DEFAULT_TURNS
        if not self.turns_stddev:
            return mean
        return max(1, round(self._rng(user).gauss(mean, self.turns_stddev)))

    def _think_time(self, user: ConversationUser) -> float:
        return self._rng(user).expovariate(1.0 / self.think_time) if self.think_time else 0.0

    def _fixed_turns(self) -> int | None:
        """Requests per conversation when every conversation has the same (the master then
        knows a level's count in advance), else None."""
        if not self.dataset:
            return None if self.turns_stddev else self.turns or DEFAULT_TURNS
        lengths = {len(c.turns) for c in self.dataset}
        if self.turns is not None:
            lengths = {min(length, self.turns) for length in lengths}
        return lengths.pop() if len(lengths) == 1 else None


def refuse_conversation_options(opts: RunOptions) -> None:
    """The conversation options given to a workload without sessions: a ConfigError of one line
    (they would do nothing there; the agent workload has them too)."""
    given = [
        flag
        for flag, is_set in (
            ("--turns", opts.workload.turns is not None),
            ("--turns-stddev", opts.workload.turns_stddev > 0),
            ("--think-time", opts.workload.think_time > 0),
            ("--history", opts.workload.history != HISTORY_MODEL),
        )
        if is_set
    ]
    if given:
        raise ConfigError(
            f"{', '.join(given)}: for --workload conversation or agent (this run's is "
            f"{opts.workload.name})"
        )
