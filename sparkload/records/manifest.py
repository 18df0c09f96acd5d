"""The run's manifest (manifest.json): what the run was and how far it got, one entry per level
and per worker."""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path
from typing import Any

from sparkload.records.vocabulary import MANIFEST_FILE, SCHEMA_VERSION, STATUS_RUNNING


@dataclass
class LevelEntry:
    """One level of a run as the manifest keeps it: its plan, its timing and its checks."""

    index: int
    concurrency: int
    expected: int | None  # measured requests the plan asks for (None: time-based / open loop)
    started_at: str
    ended_at: str | None = None
    received: int = 0
    client: dict[str, Any] = field(default_factory=dict)  # the load generator's self-measurements
    client_flags: list[str] = field(default_factory=list)
    stream: dict[str, Any] = field(default_factory=dict)  # stream-shape figures of the level
    stream_flags: list[str] = field(default_factory=list)  # what the stream shape says of the path
    stream_flag_kinds: list[str] = field(default_factory=list)  # STREAM_* of each, in order
    arrival_rate: float | None = None  # open loop: the offered rate of this level (requests/s)
    # What showed the level over-saturated (None: nothing did); an open-loop level's arrivals
    # then stopped early unless --no-saturation-stop, a ladder level is only flagged
    saturation: str | None = None
    unsent: int = 0  # open loop: arrivals of its schedule never sent (stopped early)
    # open loop: its whole seeded schedule, sent or not: {"arrivals", "gap_cv"}
    schedule: dict[str, Any] = field(default_factory=dict)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> LevelEntry:
        return cls(**_known(cls, data))


@dataclass
class WorkerEntry:
    """One worker of a distributed run as the master saw it: who, its clock, how it timed.

    Clock offsets are the worker's wall clock minus the master's, in seconds, each measured by
    round trips over Locust's messaging (the shortest round trip's estimate, within half that
    round trip) at the run's start and at every level's start. Durations never use them: each
    is measured on one host's clock."""

    node: str  # Locust's client id: the worker's hostname and a random part
    index: int  # the ``worker`` field of its records
    hostname: str = ""
    clock_offset: float | None = None  # the latest reading (None: never measured)
    clock_rtt: float | None = None  # the round trip of that reading
    clock_readings: list[dict[str, Any]] = field(default_factory=list)  # {"at", "offset", "rtt"}
    clock_flags: list[str] = field(default_factory=list)  # offset unknown, or it moved
    receive_stamps: dict[str, Any] = field(default_factory=dict)  # sparkload.transport.stamps's
    secrets: dict[str, Any] = field(default_factory=dict)  # its own: a key or not, header names

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> WorkerEntry:
        return cls(**_known(cls, data))


@dataclass
class Manifest:
    """What a run was (target, plan, workload, versions) and how far it got: manifest.json.

    Written only by the load side's run controller, read through ``read_manifest`` by the
    analysis and the matrix runner. Fields unknown to this version are kept in ``unknown`` and
    written back, so an older reader never drops what a newer writer recorded.
    """

    label: str
    schema: int = SCHEMA_VERSION
    variant: str | None = None
    tp: int | None = None
    nodes: int | None = None
    endpoints: list[str] = field(default_factory=list)
    model: str = ""
    mode: str = "ladder"  # ladder | steps | arrival
    ladder: list[int] = field(default_factory=list)
    requests_per_user: int | None = None
    warmup_requests_per_level: int = 0
    step_duration: float | None = None
    # open loop: rates, users, duration, process and burstiness (or trace and speedup); with
    # "time": "target" the rates and duration are the target's time (before: real-time rates)
    arrival: dict[str, Any] | None = None
    slice_duration: float | None = None  # --slice-duration: report windows, target seconds
    # The capacity search's answer: {"bounds", "over": "concurrency" | "rate", "capacity" (None:
    # no probe met the bounds), "probes": [{"level_index", "value", "meets", "figures": {bound:
    # statistic}, "breaches": [...]}], "limit" (the smallest breaking probe above the capacity,
    # None: none), "complete" (False while searching, or when the run stopped first)}
    capacity: dict[str, Any] | None = None
    # A rate sweep stopped at an over-saturated level: its index (later rates were not run)
    saturated_at: int | None = None
    workload: dict[str, Any] = field(default_factory=dict)
    prompts: dict[str, Any] = field(default_factory=dict)
    sampling: dict[str, Any] = field(default_factory=dict)
    seed: int = 0
    request_timeout: float | None = None
    simulator: dict[str, Any] | None = None
    time_scale: float = 1.0
    versions: dict[str, Any] = field(default_factory=dict)
    host_info: dict[str, Any] = field(default_factory=dict)
    client: dict[str, Any] = field(default_factory=dict)
    request: dict[str, Any] = field(default_factory=dict)  # api, extra body, header names, ...
    servers: dict[str, dict[str, Any]] = field(default_factory=dict)  # endpoint -> version, headers
    # Prometheus endpoints scraped into server_metrics.jsonl: node name -> URL (the API
    # endpoints' /metrics as "api" / "api-N", then every --scrape NAME=URL)
    scrape: dict[str, str] = field(default_factory=dict)
    metadata: dict[str, str] = field(default_factory=dict)  # the user's --metadata KEY=VALUE
    repeat: dict[str, int] | None = None  # --repeat: {"run": k, "of": n}, runs back to back
    command: list[str] = field(default_factory=list)  # argv, secrets hidden
    started_at: str = ""
    ended_at: str | None = None
    status: str = STATUS_RUNNING
    abort_reason: str | None = None
    levels: list[LevelEntry] = field(default_factory=list)
    # distributed runs: every worker admitted, and every one refused at the worker token
    # ({"node", "reason", "at"}), whose messages were ignored
    workers: list[WorkerEntry] = field(default_factory=list)
    refused_workers: list[dict[str, Any]] = field(default_factory=list)
    unknown: dict[str, Any] = field(default_factory=dict)

    @property
    def workload_name(self) -> str:
        return str(self.workload.get("name") or "chat")

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Manifest:
        """Any manifest sparkload ever wrote; older ones lack fields and get their defaults."""
        known = _known(cls, data)
        known["label"] = str(known.get("label") or "")
        known["levels"] = [
            LevelEntry.from_dict(x) for x in data.get("levels") or [] if isinstance(x, dict)
        ]
        known["workers"] = [
            WorkerEntry.from_dict(x) for x in data.get("workers") or [] if isinstance(x, dict)
        ]
        if isinstance(known.get("workload"), str):  # the first manifests named the workload only
            known["workload"] = {"name": known["workload"]}
        if isinstance(known.get("command"), str):
            known["command"] = known["command"].split()
        names = {f.name for f in fields(cls)}
        known["unknown"] = {k: v for k, v in data.items() if k not in names}
        return cls(**known)

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data.update(data.pop("unknown"))
        return data


def read_manifest(run_dir: Path) -> Manifest:
    """The manifest of a run directory; ``OSError`` / ``ValueError`` when it is missing or bad."""
    data = json.loads((Path(run_dir) / MANIFEST_FILE).read_text(encoding="utf-8"))
    if not isinstance(data, dict):
        raise ValueError(f"{MANIFEST_FILE} is not a JSON object")
    return Manifest.from_dict(data)


def _known(cls: type, data: dict[str, Any]) -> dict[str, Any]:
    names = {f.name for f in fields(cls)} - {"unknown"}
    return {k: v for k, v in data.items() if k in names}
