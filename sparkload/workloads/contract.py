"""The workload contract: what a workload must do for the load side to send its requests.

A workload decides what each request asks (its prompt, its output length, whether its reply is
wanted back) and what its record keeps beside the measurement. Everything else is the load
side's: the body's common fields (``sparkload.body``), the send and the measurement
(``transport.client``), the record's timing fields, and when a request goes (the load shape).

How the load side drives a workload (``sparkload.plugin``):

1. Every process validates the options (``config.from_namespace``), lets the workload settle
   them (``registry.settle`` → ``Workload.settle``) and builds the workload
   (``registry.load`` → ``Workload.from_options``); all processes build the same.
2. Each Locust user gets its state once, ``new_user(ordinal, draw)``, kept by its session.
3. For every request: ``next_request(user, slot)`` → the session waits the planned
   ``delay`` (a think time, outside the measured span), encodes the body
   (``BodyTemplate.encode``), sends and measures it into a ``RequestRecord`` → ``after(user,
   planned, record, reply)`` → the record is shipped.

``next_request`` and ``after`` run on the user's greenlet, just outside the measured span: they
must not block, sleep or do I/O (anything slow belongs in ``from_options``, or on the master
before the load, as the ``--input-tokens`` prompts are fitted; a wait before the send is
``PlannedRequest.delay``, which the session honours), and they never raise for a failed request
(a failure is in the record, ``record.status``).

Sessions and the ladder's count. A user's quota of a ladder level is ``--requests-per-user``
*sessions*: a request planned without ``turn`` is a session of its own; a conversation is one
session of ``turns`` requests, planned back to back (``turn`` 1, 2, ... ``turns``) within one
level. The session (``run/session.py``) starts a new session of the quota only when the one
under way has planned all its turns, so ``next_request`` must continue the conversation under
way while it has turns left and the slot is of the same level (and not the warm-up, which is a
session of its own: ``Slot.warmup``). ``requests_per_session`` tells the master the level's
count in advance (C x requests-per-user x it); when it is None (turns drawn per conversation)
every record carries its session's ``turns`` and the master sums them as first turns arrive.
A workload whose sessions may end before their planned turns (``sessions_may_end_early``: the
agent workload's ``--on-text-reply stop``) sets ``user.unsent`` in ``after`` to the requests it
will not plan (and says so in the record's ``extra["turns_unsent"]``); the session then begins
the quota's next session. In a counted level it holds such a workload's records until their
session ends and ships them with the session's actual count in ``turns``, so the master, which
sums the ``turns`` of first turns, still knows every session's count when its first record
arrives.

What the contract admits beside today's workloads:

- per-user state (a conversation's history, its session id and turn): ``new_user`` returns the
  workload's own ``UserState`` subclass (``Workload[MyUser]``), handed back on every call
  (``workloads/conversation.py`` is one);
- the reply: a request planned with ``wants_reply=True`` comes back to ``after`` with the
  assistant's streamed reply (``stream.Reply``: its content, not its reasoning, and its tool
  calls assembled from their deltas; ``None`` when not asked, so the client keeps nothing
  unless a workload needs it: ``stream.ReplyStream``);
- per-request output length and messages: ``PlannedRequest.max_tokens`` and
  ``PlannedRequest.messages`` (a shared system prefix, then the request's own part; an agent's
  carry assistant ``tool_calls`` and ``tool`` results), and the request's ``tools`` and
  ``tool_choice`` (``body.py`` sends them as planned, whatever ``--extra-body`` says);
- the record's own fields: ``PlannedRequest.extra`` is ``RequestRecord.extra``, for details one
  workload's report tables read (prefill's size and time). A field the analysis groups every
  workload's records by (a conversation's ``session_id`` and ``turn``, an agent's ``step``) is a
  typed field of
  ``RequestRecord`` instead, the results contract's own, copied from a typed field of
  ``PlannedRequest`` by the session: typed, it is documented, checked, and readable by the
  analysis, which may import only ``sparkload.records``;
- a wait before the send: ``PlannedRequest.delay`` (a think time after the reply before), or,
  with ``delay_from_send``, a recorded gap between two requests' sends, of which the session
  waits what is left once the reply before is in;
- timing: when a request goes is the load shape's business. A trace replay's shape takes its
  due times from the trace, and its ``Arrival`` names the trace line: ``Slot.arrival`` hands it
  to the workload, which supplies the content of that line.
"""

from __future__ import annotations

import hashlib
from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar, Generic, TypeVar

import orjson

from sparkload.config import OUTPUT_TOKENS
from sparkload.errors import ConfigError
from sparkload.inputs.datasets import Messages
from sparkload.records import WORKLOAD_CHAT, RequestRecord
from sparkload.stages import Arrival
from sparkload.transport.tally import Reply

if TYPE_CHECKING:
    from sparkload.config import RunOptions


@dataclass(frozen=True, slots=True)
class Slot:
    """Where the next request falls in the run: what a workload may plan it by."""

    level_index: int  # the stage's level (counts on over the runs of --repeat)
    arrival: Arrival | None = None  # open loop: the arrival this request answers
    warmup: bool = False  # the level's warm-up request (not measured): a session of its own


@dataclass(slots=True)
class UserState:
    """One user's place in the workload, kept by the user's session from its first request to
    its last. A workload with more to keep per user (a conversation) subclasses it."""

    ordinal: int  # the user's number in its process
    draw: Callable[[], int]  # the next index of the process's seeded prompt order (shared)
    planned: int = 0  # requests planned for this user before this one (the session counts)
    # the process the user runs in ("local" or the worker's index), set by the session: with the
    # ordinal, what seeds a workload's own per-user draws (a conversation's turns, think times)
    stream: str = "local"
    # set by ``after``: the session under way ends now, this many of its planned requests unsent
    # (the session reads it, ends the session and resets it; see the module's "Sessions")
    unsent: int = 0


@dataclass(frozen=True, slots=True)
class PlannedRequest:
    """One request as its workload planned it: what to send, and what its record keeps."""

    text: str  # the prompt: the completions API's, and the chat API's when no messages
    max_tokens: int  # this request's output length (the record's ``max_tokens``)
    prompt_index: int = 0  # which prompt (the record's ``prompt_index``)
    messages: Messages | None = None  # chat API: sent as they are (else text as one message)
    extra: dict[str, Any] = field(default_factory=dict)  # the record's ``extra``
    wants_reply: bool = False  # ``after`` gets the streamed reply (its text and tool calls)
    # a conversation's turn (the record's typed fields; None: a session of one request)
    session_id: str | None = None
    turn: int | None = None  # 1-based
    turns: int | None = None  # the turns this session was planned with
    # an agent's request: its own agent session (a sub-agent's inside the session above), the
    # agent session that spawned it (None at depth 0) and its depth (the record's typed fields)
    agent_session: str | None = None
    parent_session: str | None = None
    depth: int | None = None
    delay: float = 0.0  # seconds to wait before the send, in the target's time (a think time)
    delay_from_send: bool = False  # ``delay`` counts from the session's previous send, not now
    # an agent's request: the tools sent with it and its tool_choice (None: not sent), and what
    # the step asks (the record's typed ``step``: records.STEP_TOOL_CALL | STEP_ANSWER)
    tools: tuple[dict[str, Any], ...] | None = None
    tool_choice: str | None = None
    step: str | None = None
    schema: dict[str, Any] | None = None  # the reply's own JSON Schema (a dataset line's)
    category: str | None = None  # what the request asks (a dataset line's; the record's)
    # --tenants: the request's traffic class (the record's) and the model it asks for, one or a
    # mix in --model's syntax that the user deals (None: the run's), set by the tenants
    # workload (``workloads/tenants.py``)
    tenant: str | None = None
    model: str | None = None
    # the server's id of the reply this turn continues, for an API that keeps a conversation's
    # history server-side (``WireApi.server_history``; the Responses API's previous_response_id)
    history_id: str | None = None
    # several texts sent as one request's inputs (``--batch-size`` on an API that batches them,
    # ``WireApi.batches_inputs``: embeddings); None: the one ``text``
    inputs: tuple[str, ...] | None = None


PROMPT_KEY_CHARS = 16  # hex digits of the sha256: 64 bits, no two prompts of a run alike


def prompt_key(planned: PlannedRequest) -> str:
    """The key of a request's prompt, the same in every run and level (``--keep-outputs``):
    the sha256 of its messages (or its text, sent as one message), its tools and their choice,
    never of the model, the output length or the sampling, so that a variant's reply to a
    prompt meets the reference's reply to the same prompt."""
    asked = {
        "messages": planned.messages,
        "text": None if planned.messages else planned.text,
        "tools": planned.tools,
        "tool_choice": planned.tool_choice,
    }
    encoded = orjson.dumps(asked, option=orjson.OPT_SORT_KEYS)
    return hashlib.sha256(encoded).hexdigest()[:PROMPT_KEY_CHARS]


@dataclass(frozen=True)
class Sampling:
    """What a workload asks of every body beside its prompt and output length; the user's
    options override it (``sparkload.body``)."""

    fields: Mapping[str, Any] = field(default_factory=dict)  # e.g. the notes' temperature 0
    pinned: bool = False  # exactly max_tokens out: ignore_eos, min_tokens = the request's length


SEPARATOR = "\n\n"  # between a shared prefix and a synthetic prompt's own text


@dataclass(frozen=True)
class Synthetic:
    """What the master settled about the prompts before the load, as it travels to the workers
    in the options of the test's start (plain data): the prompts it fitted (``--input-tokens``,
    ``--seq-dist``, ``--prefix-tokens``: ``workloads.fitting``), or only a ``source`` (a trace
    replay's: how its blocks count, the run's salt)."""

    texts: tuple[str, ...]  # each prompt's own text (after its prefix, when there are prefixes)
    source: dict  # the manifest's ``prompts`` entry: generator, seed, how tokens were counted
    outputs: tuple[int | None, ...] = ()  # per prompt, its output length (None: the run's)
    prefixes: tuple[str, ...] = ()  # prompt i starts with prefixes[i % len] + SEPARATOR

    def prompt(self, index: int) -> str:
        """Prompt ``index`` as sent: its prefix, a blank line and its own text."""
        if not self.prefixes:
            return self.texts[index]
        return self.prefixes[index % len(self.prefixes)] + SEPARATOR + self.texts[index]

    def to_message(self) -> dict:
        return {
            "texts": list(self.texts),
            "source": self.source,
            "outputs": list(self.outputs),
            "prefixes": list(self.prefixes),
        }

    @classmethod
    def from_message(cls, data: dict) -> Synthetic:
        return cls(
            tuple(data["texts"]),
            dict(data["source"]),
            tuple(data.get("outputs") or ()),
            tuple(data.get("prefixes") or ()),
        )


UserT = TypeVar("UserT", bound=UserState)


class Workload(ABC, Generic[UserT]):
    """What every request of a run asks, and what its record keeps (see the module's steps).

    An implementation has a ``name`` (one of ``records.WORKLOAD_NAMES``, its key in
    ``registry.WORKLOADS``) and these attributes, fixed once built:

        max_tokens   -- the run's output length: the manifest's, and a request's unless it
                        plans its own
        sampling     -- ``Sampling``: its own body fields and whether the length is pinned
        cache_bust   -- every prompt starts unique, so no prefix cache serves it (manifest)
        prompt_count -- how many indices the process's seeded prompt order deals
                        (``UserState.draw``); unused by a workload that never draws
        requests_per_session -- requests in each session of a user's quota (see the module's
                        "Sessions"): 1 by default, a conversation's fixed turns, or None when
                        they vary from session to session
        sessions_may_end_early -- ``after`` may end a session before its planned turns
                        (``UserState.unsent``); False by default
        users_by_index -- what a user sends depends on its index in the run (``user_at``), so
                        a closed-loop level's users must be the run's first C: a level below
                        an earlier one idles the users above it instead of stopping some
                        (Locust's choice of which is arbitrary); False by default

    and the methods below; ``settle`` and ``after`` have defaults.
    """

    name: ClassVar[str]
    max_tokens: int
    sampling: Sampling
    cache_bust: bool
    requests_per_session: int | None = 1
    sessions_may_end_early: bool = False
    users_by_index: ClassVar[bool] = False

    @property
    @abstractmethod
    def prompt_count(self) -> int: ...

    @classmethod
    def settle(cls, opts: RunOptions) -> RunOptions:
        """The workload's rules on the run's options: the options to run with (a workload may
        set the load plan, as prefill does), or a ConfigError of one line naming the conflict.

        The default: ``--max-tokens`` and ``--output-tokens`` must agree, and ``--input-tokens``
        (the chat workload's synthetic prompts) is refused.
        """
        check_lengths_agree(opts)
        refuse_input_tokens(cls.name, opts)
        return opts

    @classmethod
    @abstractmethod
    def from_options(cls, opts: RunOptions, synthetic: Synthetic | None = None) -> Workload:
        """The workload of the settled ``opts``; any unreadable prompt file is a ConfigError of
        one line. ``synthetic``: the prompts the master fitted, once it has (until then, while
        the options are checked before the target is known, None)."""

    @abstractmethod
    def describe(self) -> dict:
        """The manifest's ``prompts`` entry: what the prompts came from (paths, sha256, count,
        generator and seed), plain JSON data."""

    @abstractmethod
    def manifest(self) -> dict:
        """The manifest's ``workload`` entry: the name and every parameter that shapes the
        requests, plain JSON data."""

    @abstractmethod
    def new_user(self, ordinal: int, draw: Callable[[], int]) -> UserT:
        """The state of a new user (called once per user, by its session)."""

    def user_at(self, index: int, ordinal: int, draw: Callable[[], int]) -> UserT:
        """The state of the run's user number ``index`` (Locust's dispatch order across every
        process: ``plugin/node.py``), ``ordinal`` in its own process. A workload that deals
        users by their place in the run (``workloads/tenants.py``) overrides it; the default is
        ``new_user``."""
        return self.new_user(ordinal, draw)

    @abstractmethod
    def next_request(self, user: UserT, slot: Slot) -> PlannedRequest:
        """The next request of ``user``, due at ``slot``: a new ``PlannedRequest`` every call
        (its ``extra`` becomes the record's, which ``after`` may still add to)."""

    def after(
        self, user: UserT, planned: PlannedRequest, record: RequestRecord, reply: Reply | None
    ) -> None:
        """``planned`` was sent and measured into ``record`` (not yet shipped: the workload may
        still add to ``record.extra`` or reclassify it); ``reply`` is the streamed reply (its
        text and tool calls) when ``planned.wants_reply``, else None. The default does nothing."""


def run_max_tokens(name: str, opts: RunOptions) -> int:
    """The run's output length: ``--output-tokens``, else ``--max-tokens``, else the
    workload's own."""
    if opts.workload.output_tokens is not None:
        return opts.workload.output_tokens
    return opts.workload.max_tokens if opts.workload.max_tokens is not None else OUTPUT_TOKENS[name]


def check_lengths_agree(opts: RunOptions) -> None:
    if opts.workload.output_tokens is not None and opts.workload.max_tokens not in (
        None,
        opts.workload.output_tokens,
    ):
        raise ConfigError("--max-tokens and --output-tokens disagree: give one of them")


def refuse_input_tokens(name: str, opts: RunOptions) -> None:
    """The synthetic prompts' options are the chat workload's (``workloads.chat``)."""
    given = synthetic_flags(opts)
    if given and name != WORKLOAD_CHAT:
        raise ConfigError(f"{given[0]} makes chat prompts; --workload {name} has its own")


def synthetic_flags(opts: RunOptions) -> list[str]:
    """The options given that shape synthetic prompts."""
    return [
        flag
        for flag, given in (
            ("--input-tokens", opts.workload.input_tokens is not None),
            ("--seq-dist", bool(opts.workload.seq_dist)),
            ("--input-tokens-stddev", opts.workload.input_tokens_stddev > 0),
            ("--output-tokens-stddev", opts.workload.output_tokens_stddev > 0),
            ("--prefix-tokens", opts.workload.prefix_tokens is not None),
        )
        if given
    ]
