"""The run's manifest (manifest.json): what the run was and how far it got, one entry per level
and per worker. Every entry reads and writes through ``records.codec``."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sparkload.records.codec import Entry, empty, omitted
from sparkload.records.entries import (
    ArrivalEntry,
    ClientCheck,
    ClientEntry,
    ClockReading,
    HostInfo,
    PromptsEntry,
    ReceiveStamps,
    RefusedWorker,
    RepeatEntry,
    RequestEntry,
    SamplingEntry,
    Schedule,
    SecretNames,
    ServerEntry,
    SimulatorEntry,
    StreamCheck,
    Versions,
    WorkloadEntry,
)
from sparkload.records.precision import PrecisionEntry
from sparkload.records.scenario import ScenarioEntry
from sparkload.records.verdicts import CapacityEntry
from sparkload.records.vocabulary import (
    MANIFEST_FILE,
    SCHEMA_VERSION,
    STATUS_RUNNING,
    WORKLOAD_CHAT,
)


@dataclass
class LevelEntry(Entry):
    """One level of a run as the manifest keeps it: its plan, its timing and its checks."""

    index: int
    concurrency: int
    expected: int | None  # measured requests the plan asks for (None: time-based / open loop)
    started_at: str
    ended_at: str | None = None
    received: int = 0
    client: ClientCheck | None = empty()  # the load generator's self-measurements (at the end)
    client_flags: list[str] = field(default_factory=list)
    stream: StreamCheck | None = empty()  # stream-shape figures of the level (at the end)
    stream_flags: list[str] = field(default_factory=list)  # what the stream shape says of the path
    stream_flag_kinds: list[str] = field(default_factory=list)  # STREAM_* of each, in order
    arrival_rate: float | None = None  # open loop: the offered rate of this level (requests/s)
    # What showed the level over-saturated (None: nothing did); an open-loop level's arrivals
    # then stopped early unless --no-saturation-stop, a ladder level is only flagged
    saturation: str | None = None
    unsent: int = 0  # open loop: arrivals of its schedule never sent (stopped early)
    schedule: Schedule | None = empty()  # open loop: its whole seeded schedule, sent or not
    # --target-precision: each target's precision at the level's end, and whether the level
    # stopped at --max-requests-per-level with a target unmet (absent: no target)
    precision: list[PrecisionEntry] | None = omitted()
    capped: bool | None = omitted()
    # --refine-knee: a level added after the ladder's, around the knee its live figures showed
    refines_knee: bool | None = omitted()
    phase: str | None = omitted()  # --scenario: the phase it is (``ScenarioEntry.phases``)
    # --sustain: the level holds the load a capacity search found, for this many seconds of
    # the target's time (absent: a level of the plan or a probe); the analysis sets it apart
    sustain: float | None = omitted()


@dataclass(frozen=True)
class LevelMarks:
    """What a shape says of a level beyond its load, when it begins it: each mark goes into the
    level's manifest entry only when set, so every other plan's manifest stays as it was."""

    refines_knee: bool = False  # --refine-knee added it after the ladder's levels
    phase: str | None = None  # --scenario: the phase it is
    sustain: float | None = None  # --sustain: it holds a found load this many target seconds

    def mark(self, entry: LevelEntry) -> None:
        if self.refines_knee:
            entry.refines_knee = True
        if self.phase is not None:
            entry.phase = self.phase
        if self.sustain is not None:
            entry.sustain = self.sustain


NO_MARKS = LevelMarks()  # a level that is only its load


@dataclass
class WorkerEntry(Entry):
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
    clock_readings: list[ClockReading] = field(default_factory=list)
    clock_flags: list[str] = field(default_factory=list)  # offset unknown, or it moved
    receive_stamps: ReceiveStamps | None = empty()  # as its hello said (None: it said nothing)
    secrets: SecretNames | None = empty()  # its own: a key or not, header names


@dataclass
class Manifest(Entry):
    """What a run was (target, plan, workload, versions) and how far it got: manifest.json.

    Written only by the load side's run controller, read through ``read_manifest`` by the
    analysis and the matrix runner. What this version cannot read is kept in ``unknown`` (every
    entry's) and written back, so an older reader never drops what a newer writer recorded.
    """

    label: str = ""
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
    arrival: ArrivalEntry | None = None  # open loop: its plan
    slice_duration: float | None = None  # --slice-duration: report windows, target seconds
    capacity: CapacityEntry | None = None  # --find-capacity: the search's answer so far
    scenario: ScenarioEntry | None = omitted()  # --scenario: its name and phases
    tiers: list[CapacityEntry] = field(default_factory=list)  # --tier: each tier's search so far
    # A rate sweep stopped at an over-saturated level: its index (later rates were not run)
    saturated_at: int | None = None
    workload: WorkloadEntry = field(default_factory=WorkloadEntry)
    prompts: PromptsEntry = field(default_factory=PromptsEntry)
    sampling: SamplingEntry = field(default_factory=SamplingEntry)
    seed: int = 0
    # --keep-outputs: every record keeps its reply's text and its prompt's key (sparkload
    # fidelity compares them); absent or None: no record holds an output
    outputs_kept: bool | None = omitted()
    request_timeout: float | None = None
    simulator: SimulatorEntry | None = None
    time_scale: float = 1.0
    versions: Versions | None = empty()
    host_info: HostInfo | None = empty()
    client: ClientEntry | None = empty()
    request: RequestEntry | None = empty()
    servers: dict[str, ServerEntry] = field(default_factory=dict)  # by endpoint
    # Prometheus endpoints scraped into server_metrics.jsonl: node name -> URL (the API
    # endpoints' /metrics as "api" / "api-N", then every --scrape NAME=URL)
    scrape: dict[str, str] = field(default_factory=dict)
    metadata: dict[str, str] = field(default_factory=dict)  # the user's --metadata KEY=VALUE
    repeat: RepeatEntry | None = None  # --repeat: run k of n, back to back
    command: list[str] = field(default_factory=list)  # argv, secrets hidden
    started_at: str = ""
    ended_at: str | None = None
    status: str = STATUS_RUNNING
    abort_reason: str | None = None
    levels: list[LevelEntry] = field(default_factory=list)
    # distributed runs: every worker admitted, and every one refused at the worker token, whose
    # messages were ignored
    workers: list[WorkerEntry] = field(default_factory=list)
    refused_workers: list[RefusedWorker] = field(default_factory=list)

    @property
    def workload_name(self) -> str:
        return self.workload.name or WORKLOAD_CHAT

    @classmethod
    def upgraded(cls, data: dict[str, Any]) -> dict[str, Any]:
        """The first manifests named the workload only, and wrote the command as one string."""
        upgraded = dict(data)
        if isinstance(data.get("workload"), str):
            upgraded["workload"] = {"name": data["workload"]}
        if isinstance(data.get("command"), str):
            upgraded["command"] = data["command"].split()
        return upgraded


def read_manifest(run_dir: Path) -> Manifest:
    """The manifest of a run directory; ``OSError`` / ``ValueError`` when it is missing or bad."""
    data = json.loads((Path(run_dir) / MANIFEST_FILE).read_text(encoding="utf-8"))
    if not isinstance(data, dict):
        raise ValueError(f"{MANIFEST_FILE} is not a JSON object")
    return Manifest.from_dict(data)
