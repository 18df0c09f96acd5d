"""Who may join a distributed run: the worker token, checked when a worker connects.

Locust's master takes every worker that says ``client_ready`` on its port, counts it towards
``--expect-workers`` and deals it users. With ``--worker-token`` the master's ``MasterGate``
holds a new worker back instead: it answers the worker's ``client_ready`` with a bare ``ack``
(the worker finishes starting and sends its hello), sends a challenge, and only a right proof
(``sparkload.workertoken``) replays the ``client_ready`` to Locust, which then admits the
worker as before. A worker with a wrong proof, none, or no answer within ``ANSWER_WITHIN`` is
told to quit, named in the log and the manifest, and everything it sends is dropped:
heartbeats, Locust's statistics, records.

Every worker (``WorkerPass``) says hello once it has started: its host name, how it times
receives (``transport.stamps``) and which secrets of its own it holds (never their values);
the master answers with its challenge, or with none when it has no token. A worker that holds a
token checks the master's proof too, and leaves a master that cannot give one (or has no
token): it would otherwise send its own API key wherever that master points it.
"""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass
from typing import Any

import gevent
from locust.rpc import Message

from sparkload.hostsecrets import HostSecrets
from sparkload.records import EXIT_BAD_INPUT, RefusedWorker
from sparkload.run.results import utc_now
from sparkload.workertoken import MASTER, WORKER, new_nonce, proof, verify

logger = logging.getLogger("sparkload")

MSG_HELLO = "sparkload_hello"  # worker -> master, once started: nonce, host, stamps, secrets
MSG_CHALLENGE = "sparkload_challenge"  # master -> worker: its nonce and proof (None: no token)
MSG_ANSWER = "sparkload_answer"  # worker -> master: its proof (None: it holds no token)
ANSWER_WITHIN = 10.0  # seconds from a worker's client_ready to its right proof
# Locust messages a worker not admitted yet may send: the locustfile download of `-f -` (code
# the master serves to anyone who asks; no secret is in it)
PASSING = frozenset({"locustfile"})


@dataclass
class Pending:
    """A worker that connected and has not proven the token yet."""

    ready: Message  # its client_ready, replayed to Locust once it is admitted
    since: float  # monotonic
    worker_nonce: str | None = None  # from its hello
    nonce: str | None = None  # the challenge sent to it


class MasterGate:
    """The master's side: worker information from hellos, and, with a token, admission."""

    def __init__(self, runner: Any, secrets: HostSecrets) -> None:
        self.runner = runner
        self.token = secrets.worker_token
        self.secret_names = secrets.names()  # told to workers, so each can say what it lacks
        self.about: dict[str, dict[str, Any]] = {}  # node -> what its hello said
        self.refused: list[RefusedWorker] = []
        self._pending: dict[str, Pending] = {}
        self._admitted: set[str] = set()
        self._locust_handle = runner.handle_message
        if self.token:
            runner.handle_message = self.handle_message
            runner.greenlet.spawn(self._expire)
            runner.environment.events.quitting.add_listener(self.dismiss_pending)
        else:
            runner.register_message(MSG_HELLO, self._on_open_hello)

    def handle_message(self, client_id: str, msg: Message) -> None:
        """In place of Locust's: admitted workers' messages pass, the rest are the gate's."""
        if msg.node_id != client_id:
            logger.warning(
                "sparkload: dropped a %s message from %s claiming to be %s",
                msg.type,
                client_id,
                msg.node_id,
            )
            return
        if client_id in self._admitted:
            self._locust_handle(client_id, msg)
        elif msg.type == "client_ready":
            self._hold(client_id, msg)
        elif msg.type == MSG_HELLO:
            self._challenge(client_id, msg.data)
        elif msg.type == MSG_ANSWER:
            self._judge(client_id, msg.data)
        elif msg.type in PASSING:
            self._locust_handle(client_id, msg)

    def _hold(self, node: str, ready: Message) -> None:
        self._pending.setdefault(node, Pending(ready, time.monotonic()))
        self.runner.send_message("ack", {}, client_id=node)  # no index until it is admitted

    def _on_open_hello(self, environment: Any, msg: Message, **_kwargs: Any) -> None:
        """A hello with no token set: note what the worker said, ask for no proof."""
        self.about[msg.node_id] = _about(msg.data)
        self._send_challenge(msg.node_id, None, None)

    def _challenge(self, node: str, hello: dict) -> None:
        pending = self._pending.get(node)
        if pending is None or not isinstance(hello, dict):
            return
        self.about[node] = _about(hello)
        pending.worker_nonce = str(hello.get("nonce") or "")
        pending.nonce = new_nonce()
        master_proof = proof(self.token, MASTER, pending.worker_nonce, pending.nonce, node)
        self._send_challenge(node, pending.nonce, master_proof)

    def _send_challenge(self, node: str, nonce: str | None, master_proof: str | None) -> None:
        data = {"nonce": nonce, "proof": master_proof, "secrets": self.secret_names}
        self.runner.send_message(MSG_CHALLENGE, data, client_id=node)

    def _judge(self, node: str, answer: Any) -> None:
        pending = self._pending.get(node)
        if pending is None or pending.nonce is None or pending.worker_nonce is None:
            return
        claimed = answer.get("proof") if isinstance(answer, dict) else None
        if claimed is None:
            self._refuse(node, "it holds no worker token")
        elif verify(self.token, WORKER, claimed, pending.nonce, pending.worker_nonce, node):
            del self._pending[node]
            self._admitted.add(node)
            logger.info("sparkload: worker %s proved the worker token", node)
            self._locust_handle(node, pending.ready)
        else:
            self._refuse(node, "wrong worker token")

    def _refuse(self, node: str, reason: str) -> None:
        self._pending.pop(node, None)
        self.runner.send_message("quit", None, client_id=node)
        hostname = self.about.pop(node, {}).get("hostname", "")
        self.refused.append(RefusedWorker(node, hostname, reason, utc_now()))
        logger.warning("sparkload: refused worker %s: %s; nothing it sends counts", node, reason)

    def refuse_late(self, now: float) -> None:
        """Refuse every worker still pending ``ANSWER_WITHIN`` after it connected."""
        late = [node for node, held in self._pending.items() if now - held.since > ANSWER_WITHIN]
        for node in late:
            self._refuse(
                node, f"no right answer to the worker-token challenge within {ANSWER_WITHIN:g} s"
            )

    def dismiss_pending(self, **_kwargs: Any) -> None:
        """The master is quitting: workers still held hear it too (Locust tells only the
        workers it admitted; a held one would wait for ever)."""
        for node in list(self._pending):
            del self._pending[node]
            self.runner.send_message("quit", None, client_id=node)

    def _expire(self) -> None:
        while True:
            gevent.sleep(1.0)
            self.refuse_late(time.monotonic())


class WorkerPass:
    """A worker's side: its hello, and its answer to the master's challenge."""

    def __init__(self, runner: Any, secrets: HostSecrets, about: dict[str, Any]) -> None:
        self.runner = runner
        self.secrets = secrets
        self.nonce = new_nonce()
        runner.register_message(MSG_CHALLENGE, self._on_challenge)
        runner.send_message(MSG_HELLO, {"nonce": self.nonce, **about})

    def _on_challenge(self, environment: Any, msg: Message, **_kwargs: Any) -> None:
        data = msg.data if isinstance(msg.data, dict) else {}
        self._say_what_is_missing(data.get("secrets") or {})
        token, node = self.secrets.worker_token, self.runner.client_id
        master_nonce = data.get("nonce")
        if master_nonce is None:
            if token:
                self._leave(
                    "the master asks for no worker token and this worker has one: "
                    "a master without the token is not the one it was started for"
                )
            return
        if not token:
            self.runner.send_message(MSG_ANSWER, {"proof": None})
            self._leave(
                "the master demands a worker token and this worker has none "
                "(--worker-token, $SPARKLOAD_WORKER_TOKEN or --secrets-file)"
            )
            return
        my_proof = proof(token, WORKER, str(master_nonce), self.nonce, node)
        self.runner.send_message(MSG_ANSWER, {"proof": my_proof})
        if not verify(token, MASTER, data.get("proof"), self.nonce, str(master_nonce), node):
            self._leave(
                "the master's proof does not match this worker's token (a different "
                "token here or on the master)"
            )

    def _say_what_is_missing(self, master_has: dict[str, Any]) -> None:
        mine = self.secrets.names()
        if master_has.get("api_key") and not mine["api_key"]:
            logger.warning(
                "sparkload: the master has an API key and this worker none of its own: its "
                "requests carry no API key (set OPENAI_API_KEY, ANTHROPIC_API_KEY for --api "
                "messages, --api-key or --secrets-file here; the master never sends its key)"
            )
        missing = sorted(set(master_has.get("headers") or []) - set(mine["headers"]))
        if missing:
            logger.warning(
                "sparkload: the master sends header(s) %s and this worker has no value of its "
                "own for them: its requests go without (SPARKLOAD_HEADER or --header here)",
                ", ".join(missing),
            )

    def _leave(self, why: str) -> None:
        logger.error("sparkload: not joining this master: %s", why)
        self.runner.environment.process_exit_code = EXIT_BAD_INPUT
        gevent.spawn(self.runner.quit)


def _about(hello: dict) -> dict[str, Any]:
    """What a worker's hello may say about it (bounded: it comes from the network)."""
    return {
        "hostname": str(hello.get("hostname") or "")[:255],
        "receive_stamps": hello.get("receive_stamps")
        if isinstance(hello.get("receive_stamps"), dict)
        else {},
        "secrets": hello.get("secrets") if isinstance(hello.get("secrets"), dict) else {},
    }
