"""Records travel from every process to the master in small batches (Locust custom messages).

Batches keep the master's receive loop short (a big msgpack unpack blocks it); a periodic flush
bounds the delay. With the local runner ``send_message`` calls the master's handler in-process,
so one code path serves local, ``--processes N`` and separate workers.

What the responses said about the path (``transport.identity``) rides along: each process ships
an endpoint's identifying headers whenever it sees one it had not seen before.
"""

from __future__ import annotations

import logging

import gevent

from sparkload.clientcheck import ClientMonitor
from sparkload.stages import MSG_RECORDS
from sparkload.transport.identity import merge_identity

FLUSH_INTERVAL = 0.25  # seconds
MAX_BATCH = 200  # records

logger = logging.getLogger(__name__)


class RecordShipper:
    def __init__(self, runner, node_id: str, monitor: ClientMonitor | None = None) -> None:
        self.runner = runner
        self.node_id = node_id
        self.monitor = monitor  # its self-measurements ride along with every batch
        self.issued = 0  # requests this process committed to (sent, or due in open loop)
        # open loop, a level whose arrivals were stopped early: level index -> arrivals unsent
        self.unsent: dict[str, int] = {}
        self._unsent_changed = False
        self._buffer: list[dict] = []
        self._reported_issued = 0
        self._identity: dict[str, dict[str, str]] = {}  # endpoint -> headers seen by this process
        self._new_identity: dict[str, dict[str, str]] = {}  # ... not yet shipped
        gevent.spawn(self._flush_periodically)  # for as long as the process lives

    def issue(self) -> None:
        self.issued += 1

    def withdraw(self, level_index: int, never_issued: int, dropped: int) -> None:
        """An over-saturated level's arrivals were stopped: ``dropped`` issued ones will not be
        sent after all, and with the ``never_issued`` rest they are the level's unsent,
        shipped at once so the master stops waiting for them."""
        self.issued -= dropped
        key = str(level_index)
        self.unsent[key] = self.unsent.get(key, 0) + never_issued + dropped
        self._unsent_changed = True
        self.flush()

    def ship(self, record: dict) -> None:
        self._buffer.append(record)
        if len(self._buffer) >= MAX_BATCH:
            self.flush()

    def note_identity(self, endpoint: str, found: dict[str, str]) -> None:
        """A response's identifying headers; shipped with the next batch when any is new."""
        known = self._identity.setdefault(endpoint, {})
        if found and merge_identity(known, found):
            self._new_identity[endpoint] = dict(known)

    def flush(self) -> None:
        if (
            not self._buffer
            and self.issued == self._reported_issued
            and not self._new_identity
            and not self._unsent_changed
        ):
            return
        batch, self._buffer = self._buffer, []
        identity, self._new_identity = self._new_identity, {}
        issued = self.issued
        try:
            self.runner.send_message(
                MSG_RECORDS,
                {
                    "node": self.node_id,
                    "issued": issued,
                    "records": batch,
                    "monitor": self.monitor.snapshot() if self.monitor else None,
                    "servers": identity,
                    "unsent": dict(self.unsent),
                },
            )
        except Exception:
            self._buffer = batch + self._buffer  # nothing is lost: resent with the next flush
            self._new_identity = {**identity, **self._new_identity}
            raise
        self._reported_issued = issued
        self._unsent_changed = False

    def reset(self) -> None:
        self.flush()
        self.issued = self._reported_issued = 0
        self.unsent = {}
        if self.monitor:
            self.monitor.reset()

    def _flush_periodically(self) -> None:
        while True:
            gevent.sleep(FLUSH_INTERVAL)
            try:
                self.flush()
            except Exception as exc:  # noqa: BLE001 - kept and retried with the next flush
                logger.warning("sending records to the master failed (will retry): %s", exc)
