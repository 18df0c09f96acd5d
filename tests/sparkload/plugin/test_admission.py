"""The worker token at the master's door (plugin.admission), against stand-ins for Locust's
master and worker runners: who is held, who is admitted, who is refused, what is dropped."""

from __future__ import annotations

import time
from types import SimpleNamespace
from typing import Any

import gevent
from gevent.pool import Group
from locust.event import Events
from locust.rpc import Message

from sparkload.hostsecrets import HostSecrets
from sparkload.plugin import admission
from sparkload.plugin.admission import (
    ANSWER_WITHIN,
    MSG_ANSWER,
    MSG_CHALLENGE,
    MSG_HELLO,
    MasterGate,
    WorkerPass,
)
from sparkload.records import EXIT_BAD_INPUT
from sparkload.stages import MSG_RECORDS
from sparkload.workertoken import MASTER, WORKER, proof

TOKEN = "a-long-random-token"
NODE = "client-b_0123"


class StandInMaster:
    """What MasterGate uses of Locust's MasterRunner; records what Locust itself was handed."""

    def __init__(self) -> None:
        self.sent: list[tuple[str, Any, str | None]] = []
        self.locust_saw: list[tuple[str, str]] = []
        self.greenlet = Group()
        self.custom: dict[str, Any] = {}
        self.environment = SimpleNamespace(events=Events())  # its quitting event

    def handle_message(self, client_id: str, msg: Message) -> None:
        self.locust_saw.append((client_id, msg.type))

    def send_message(self, msg_type: str, data: Any = None, client_id: str | None = None) -> None:
        self.sent.append((msg_type, data, client_id))

    def register_message(self, msg_type: str, listener: Any, concurrent: bool = False) -> None:
        self.custom[msg_type] = listener

    def last(self, msg_type: str) -> Any:
        return [data for kind, data, _ in self.sent if kind == msg_type][-1]


def gate(token: str = TOKEN) -> tuple[MasterGate, StandInMaster]:
    runner = StandInMaster()
    made = MasterGate(runner, HostSecrets(api_key="k", worker_token=token))
    runner.greenlet.kill()  # the expiry loop: the tests call refuse_late themselves
    return made, runner


def connect(runner: StandInMaster, node: str = NODE, nonce: str = "w-nonce") -> None:
    runner.handle_message(node, Message("client_ready", "2.47.0", node))
    runner.handle_message(node, Message(MSG_HELLO, {"nonce": nonce, "hostname": "client-b"}, node))


def answer(runner: StandInMaster, node: str, token: str, nonce: str = "w-nonce") -> None:
    challenge = runner.last(MSG_CHALLENGE)
    made = proof(token, WORKER, challenge["nonce"], nonce, node)
    runner.handle_message(node, Message(MSG_ANSWER, {"proof": made}, node))


def test_a_connecting_worker_is_acknowledged_but_not_handed_to_locust():
    _gate, runner = gate()
    connect(runner)
    assert runner.locust_saw == []
    assert ("ack", {}, NODE) in runner.sent  # no index: it is not a worker of the run yet


def test_the_challenge_carries_the_masters_proof_and_no_token():
    _gate, runner = gate()
    connect(runner)
    challenge = runner.last(MSG_CHALLENGE)
    assert challenge["proof"] == proof(TOKEN, MASTER, "w-nonce", challenge["nonce"], NODE)
    assert TOKEN not in repr(runner.sent)


def test_a_right_proof_hands_the_workers_client_ready_to_locust():
    made, runner = gate()
    connect(runner)
    answer(runner, NODE, TOKEN)
    assert runner.locust_saw == [(NODE, "client_ready")]
    assert made.about[NODE]["hostname"] == "client-b"


def test_an_admitted_workers_messages_reach_locust():
    _gate, runner = gate()
    connect(runner)
    answer(runner, NODE, TOKEN)
    runner.handle_message(NODE, Message(MSG_RECORDS, {"records": []}, NODE))
    assert runner.locust_saw[-1] == (NODE, MSG_RECORDS)


def test_a_wrong_token_is_refused_told_to_quit_and_named():
    made, runner = gate()
    connect(runner)
    answer(runner, NODE, "a-wrong-token")
    assert ("quit", None, NODE) in runner.sent
    assert [(r.node, r.hostname, r.reason) for r in made.refused] == [
        (NODE, "client-b", "wrong worker token")
    ]


def test_nothing_a_refused_worker_sends_reaches_locust():
    _gate, runner = gate()
    connect(runner)
    answer(runner, NODE, "a-wrong-token")
    for kind in (MSG_RECORDS, "heartbeat", "stats", "client_ready", MSG_ANSWER):
        runner.handle_message(NODE, Message(kind, {}, NODE))
    assert (NODE, "client_ready") not in runner.locust_saw and runner.locust_saw == []


def test_a_worker_without_a_token_is_refused_for_that():
    made, runner = gate()
    connect(runner)
    runner.handle_message(NODE, Message(MSG_ANSWER, {"proof": None}, NODE))
    assert made.refused[0].reason == "it holds no worker token"


def test_a_worker_that_never_answers_is_refused_once_its_time_is_up():
    made, runner = gate()
    runner.handle_message(NODE, Message("client_ready", "2.47.0", NODE))  # plain Locust: no hello
    made.refuse_late(time.monotonic() + ANSWER_WITHIN / 2)
    assert made.refused == []
    made.refuse_late(time.monotonic() + ANSWER_WITHIN + 1)
    assert "within" in made.refused[0].reason and ("quit", None, NODE) in runner.sent


def test_workers_still_held_are_told_to_quit_when_the_master_quits():
    _gate, runner = gate()
    connect(runner)
    runner.environment.events.quitting.fire(environment=runner.environment)
    assert ("quit", None, NODE) in runner.sent


def test_a_message_whose_sender_claims_another_workers_id_is_dropped():
    _gate, runner = gate()
    connect(runner)
    answer(runner, NODE, TOKEN)
    runner.handle_message("intruder", Message(MSG_RECORDS, {"records": []}, NODE))
    assert runner.locust_saw == [(NODE, "client_ready")]


def test_the_locustfile_download_passes_before_admission():
    _gate, runner = gate()
    runner.handle_message(NODE, Message("locustfile", {"version": "2.47.0"}, NODE))
    assert runner.locust_saw == [(NODE, "locustfile")]


def test_with_no_token_locust_handles_every_message_and_hellos_ask_for_no_proof():
    made, runner = gate(token="")
    runner.handle_message(NODE, Message("client_ready", "2.47.0", NODE))
    assert runner.locust_saw == [(NODE, "client_ready")]  # Locust's own handler, untouched
    runner.custom[MSG_HELLO](environment=None, msg=Message(MSG_HELLO, {"hostname": "h"}, NODE))
    assert runner.last(MSG_CHALLENGE)["nonce"] is None and made.about[NODE]["hostname"] == "h"


class StandInWorker:
    """What WorkerPass uses of Locust's WorkerRunner."""

    def __init__(self) -> None:
        self.client_id = NODE
        self.sent: list[tuple[str, Any]] = []
        self.custom: dict[str, Any] = {}
        self.environment = type("Env", (), {"process_exit_code": None})()
        self.quit_called = False

    def register_message(self, msg_type: str, listener: Any, concurrent: bool = False) -> None:
        self.custom[msg_type] = listener

    def send_message(self, msg_type: str, data: Any = None, client_id: str | None = None) -> None:
        self.sent.append((msg_type, data))

    def quit(self) -> None:
        self.quit_called = True


def challenge_worker(token: str, master_token: str | None) -> StandInWorker:
    """A worker holding ``token`` challenged by a master holding ``master_token`` (None: none)."""
    worker = StandInWorker()
    made = WorkerPass(worker, HostSecrets(worker_token=token), {"hostname": "client-b"})
    nonce = "m-nonce" if master_token is not None else None
    master_proof = (
        proof(master_token, MASTER, made.nonce, "m-nonce", NODE) if master_token else None
    )
    data = {"nonce": nonce, "proof": master_proof, "secrets": {"api_key": True, "headers": []}}
    worker.custom[MSG_CHALLENGE](environment=None, msg=Message(MSG_CHALLENGE, data, "master"))
    gevent.sleep(0)  # let a leaving worker's quit run
    return worker


def test_a_worker_says_hello_with_what_it_is_and_a_nonce():
    worker = StandInWorker()
    WorkerPass(worker, HostSecrets(), {"hostname": "client-b"})
    kind, data = worker.sent[0]
    assert kind == MSG_HELLO and data["hostname"] == "client-b" and len(data["nonce"]) == 64


def test_a_worker_answers_a_master_that_proves_the_token_and_stays():
    worker = challenge_worker(TOKEN, TOKEN)
    (kind, data) = worker.sent[-1]
    assert kind == MSG_ANSWER and data["proof"] and not worker.quit_called


def test_a_worker_leaves_a_master_whose_proof_does_not_match_with_exit_code_2():
    worker = challenge_worker(TOKEN, "another-token")
    assert worker.quit_called and worker.environment.process_exit_code == EXIT_BAD_INPUT


def test_a_worker_with_a_token_leaves_a_master_that_asks_for_none():
    worker = challenge_worker(TOKEN, None)
    assert worker.quit_called and worker.environment.process_exit_code == EXIT_BAD_INPUT


def test_a_worker_without_a_token_stays_with_a_master_that_asks_for_none():
    worker = challenge_worker("", None)
    assert not worker.quit_called and [kind for kind, _ in worker.sent] == [MSG_HELLO]


def test_a_hello_from_the_network_is_bounded_and_typed():
    about = admission._about({"hostname": "h" * 1000, "receive_stamps": "x", "secrets": None})
    assert about == {"hostname": "h" * 255, "receive_stamps": {}, "secrets": {}}
