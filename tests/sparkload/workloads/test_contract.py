"""The workload contract as a workload to come uses it, through a user's session: its own
per-user state, the reply it asks for, per-request messages and the record's fields."""

from __future__ import annotations

import dataclasses
import json
from dataclasses import dataclass, field

from locust.argument_parser import LocustArgumentParser

from sparkload.inputs.prompts import PromptOrder
from sparkload.plugin.options import register
from sparkload.records import PHASE_MEASURE, RequestRecord
from sparkload.run.context import RunContext
from sparkload.run.session import Assignment, UserSession
from sparkload.stages import MEASURE, Stage
from sparkload.transport.tally import Reply
from sparkload.workloads.contract import PlannedRequest, Sampling, Slot, UserState, Workload
from tests.servers import Script, scripted


@dataclass
class Lines(UserState):
    history: list[dict[str, str]] = field(default_factory=list)


class LineByLine(Workload[Lines]):
    """Each request sends the user's history and one new line; the reply joins the history."""

    name = "line-by-line"
    max_tokens = 3
    sampling = Sampling()
    cache_bust = False
    prompt_count = 1

    def __init__(self, wants_reply: bool) -> None:
        self.wants_reply = wants_reply
        self.replies: list[str | None] = []

    @classmethod
    def from_options(cls, opts, synthetic=None) -> LineByLine:
        return cls(wants_reply=True)

    def describe(self) -> dict:
        return {}

    def manifest(self) -> dict:
        return {"name": self.name}

    def new_user(self, ordinal, draw) -> Lines:
        return Lines(ordinal, draw)

    def next_request(self, user: Lines, slot: Slot) -> PlannedRequest:
        line = {"role": "user", "content": f"line {user.planned}"}
        return PlannedRequest(
            line["content"],
            self.max_tokens,
            messages=(*user.history, line),
            extra={"turn": user.planned},
            wants_reply=self.wants_reply,
        )

    def after(self, user: Lines, planned, record: RequestRecord, reply: Reply | None) -> None:
        text = None if reply is None else reply.content
        self.replies.append(text)
        assert planned.messages is not None
        user.history += [planned.messages[-1], {"role": "assistant", "content": text or ""}]


class Shipped(list):
    """Stands for the record shipper: keeps what it is given."""

    def issue(self) -> None:
        pass

    def ship(self, record: dict) -> None:
        self.append(record)

    def note_identity(self, endpoint: str, found: dict[str, str]) -> None:
        pass


def two_requests(workload: LineByLine) -> tuple[list[dict], Shipped]:
    """Two requests of one user to a server streaming " t0 t1 t2": the bodies it got, and the
    records shipped."""
    parser = LocustArgumentParser()
    register(parser)
    shipped = Shipped()
    with scripted(Script(tokens=3)) as server:
        context = RunContext.from_options(parser.parse_args([]), server.url)
        session = UserSession(
            context=dataclasses.replace(context, workload=workload, model="m"),
            ordinal=0,
            endpoint=context.endpoints[0],
            node_id="local",
            worker_label="local",
            prompt_order=PromptOrder(1, 0),
            shipper=shipped,
            next_request_id=lambda: "r",
        )
        for _ in range(2):
            session.send(Assignment(Stage(MEASURE, 0, 1), PHASE_MEASURE))
        session.close()
        bodies = [json.loads(body) for _, body in server.requests]
    return bodies, shipped


def test_a_workload_keeps_its_users_state_and_gets_the_reply_it_asked_for():
    workload = LineByLine(wants_reply=True)
    bodies, shipped = two_requests(workload)
    assert workload.replies == [" t0 t1 t2", " t0 t1 t2"]
    assert bodies[1]["messages"] == [
        {"role": "user", "content": "line 0"},
        {"role": "assistant", "content": " t0 t1 t2"},
        {"role": "user", "content": "line 1"},
    ]
    assert [(r["extra"], r["max_tokens"], r["status"]) for r in shipped] == [
        ({"turn": 0}, 3, "ok"),
        ({"turn": 1}, 3, "ok"),
    ]


def test_a_workload_that_does_not_ask_for_the_reply_gets_none():
    workload = LineByLine(wants_reply=False)
    two_requests(workload)
    assert workload.replies == [None, None]
