"""The master's side of a run: records in, run directory and per-level tallies out."""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Sequence
from typing import Protocol

import gevent

from sparkload.clientcheck import ClientVerdict, level_verdict
from sparkload.records import (
    PHASE_WARMUP,
    STATUS_COMPLETE,
    STATUS_OK,
    ClientCheck,
    ControlRefusal,
    LevelEntry,
    Manifest,
    Schedule,
    ServerEntry,
    StreamCheck,
    on_master_clock,
    scale_to_simulated_time,
)
from sparkload.run.livetable import LevelTally, check_cell, format_table
from sparkload.run.quality_probe import ProbeTally
from sparkload.run.results import ResultsWriter, utc_now
from sparkload.run.scrape import GAUGES, MetricsScraper
from sparkload.saturation import QueueSample, judge_closed_loop
from sparkload.streamcheck import LevelSample, PathEvidence, short_name
from sparkload.transport.identity import intermediaries, merge_identity

logger = logging.getLogger("sparkload")


class RunWatcher(Protocol):
    """What sees the records beside the run directory, on the master, as they arrive (the live
    Prometheus metrics, ``run/prometheus.py``): the run, each level's start, every batch of
    records (in simulated time, warm-up included) and the run's end."""

    def run_began(self, label: str, variant: str, in_flight: Callable[[], int]) -> None: ...

    def level_began(self, tally: LevelTally) -> None: ...

    def took(self, records: list[dict]) -> None: ...

    def run_closed(self) -> None: ...


class RunCollector:
    """Records in, run directory and per-level tallies out; /metrics snapshots at level bounds.

    ``scraper`` (optional) reads the target's /metrics at every level's start and end into
    server_metrics.jsonl, when the level's warm-up record arrives ("measure": the measured
    requests start), and every ``gauge_interval`` seconds of the target's time in between (the
    gauges, which are ~0 at the boundaries of a closed-loop level, and the energy counters;
    ``scrape.GAUGES``; 0 = never). The target's time: a simulator that runs ``time_scale`` x
    faster is sampled as many times more often in real time, so a level gets as many samples
    whatever the time scale (at 5 s and time scale 10, every 0.5 real seconds).
    ``watchers`` see what it sees (``RunWatcher``: the live Prometheus metrics).
    """

    def __init__(
        self,
        open_run: Callable[[int], ResultsWriter],
        time_scale: float,
        scraper: MetricsScraper | None = None,
        gauge_interval: float = 0.0,
        levels_per_run: int = 0,
        watchers: Sequence[RunWatcher] = (),
        probes: ProbeTally | None = None,
    ) -> None:
        # --repeat: run k of the plan is levels [k * levels_per_run, (k + 1) * levels_per_run),
        # each run its own directory (0: one run)
        self.open_run = open_run
        self.levels_per_run = levels_per_run
        self.writers = [open_run(0)]
        self.time_scale = time_scale
        self.scraper = scraper
        self.gauge_interval = gauge_interval
        self._gauges: gevent.Greenlet | None = None
        self._measure_scraped: set[int] = set()
        self.tallies: dict[int, LevelTally] = {}
        self.issued_by_node: dict[str, int] = {}
        self.unsent_by_node: dict[str, dict[str, int]] = {}  # node -> level index -> unsent
        # the server's waiting queue sampled during the level under way (closed loop's flag)
        self.queue_samples: list[QueueSample] = []
        # node -> level index -> its self-measurements
        self.client_load: dict[str, dict[str, dict]] = {}
        # measured records, wire time, as the stream check keeps them (bounded per level)
        self.stream_samples: dict[int, LevelSample] = {}
        # level index -> measured ok replies with no token: the model ended at once (ok, apart)
        self.empty_replies: dict[int, int] = {}
        self.received = 0
        self.started = time.monotonic()
        self.watchers = tuple(watchers)
        self.probes = probes  # --quality-probe: its graded records into quality.json
        for watcher in self.watchers:
            watcher.run_began(self.manifest.label, self.manifest.variant or "", self.in_flight)

    @property
    def writer(self) -> ResultsWriter:
        """The directory of the run under way."""
        return self.writers[-1]

    @property
    def manifest(self) -> Manifest:
        return self.writer.manifest

    def _level_entry(self, index: int) -> tuple[ResultsWriter, LevelEntry]:
        """The run directory that holds level ``index`` and its manifest entry."""
        writer = self._writer_for(index)
        return writer, next(entry for entry in writer.manifest.levels if entry.index == index)

    def _writer_for(self, level_index: int) -> ResultsWriter:
        run = level_index // self.levels_per_run if self.levels_per_run else 0
        return self.writers[min(run, len(self.writers) - 1)]

    def take(self, batch: dict, clock_offset: float | None = None) -> None:
        """One message from a process: its records and how many requests it has issued so far.
        ``clock_offset``: the sending worker's clock minus the master's (seconds), taken off
        every record's wall-clock fields (None: a local run's, or not known)."""
        self.issued_by_node[batch["node"]] = batch["issued"]
        if batch.get("unsent"):
            self.unsent_by_node[batch["node"]] = batch["unsent"]
        if batch.get("monitor"):
            self.client_load[batch["node"]] = batch["monitor"]
        if batch.get("servers"):
            self._note_servers(batch["servers"])
        records = batch["records"]
        if not records:
            return
        if clock_offset is not None:
            records = [on_master_clock(record, clock_offset) for record in records]
        by_writer: dict[int, list[dict]] = {}
        for record in records:
            writer = self._writer_for(record["level_index"])
            by_writer.setdefault(id(writer), []).append(record)
        for writer in self.writers:
            if id(writer) in by_writer:
                writer.append_records(by_writer[id(writer)])
        self.received += len(records)
        if self.probes is not None:
            for record in records:
                self.probes.add(record)
        simulated = [scale_to_simulated_time(record, self.time_scale) for record in records]
        warmed = set()
        for record, in_simulated_time in zip(records, simulated, strict=True):
            tally = self.tallies.get(record["level_index"])
            if tally is not None:
                tally.add(in_simulated_time)
                if record.get("phase") == PHASE_WARMUP:
                    warmed.add(record["level_index"])
                else:
                    index = record["level_index"]
                    # a reply that could generate tokens (an embedding's counts none: None)
                    generates = record.get("output_tokens") is not None
                    if generates and not record.get("chunks") and record.get("status") == STATUS_OK:
                        self.empty_replies[index] = self.empty_replies.get(index, 0) + 1
                    sample = self.stream_samples.get(index)
                    if sample is None:
                        sample = self.stream_samples[index] = LevelSample(seed=index)
                    sample.add(record)
        for watcher in self.watchers:
            watcher.took(simulated)
        for index in warmed - self._measure_scraped:
            # The warm-up is back, nothing is in flight, and the measured requests go next: a
            # snapshot here keeps spawn and warm-up out of the level's server-side deltas.
            self._measure_scraped.add(index)
            self._scrape(index, self.tallies[index].concurrency, "measure")

    def _note_servers(self, seen: dict[str, dict[str, str]]) -> None:
        """Merge the identifying headers a process saw on its responses into the manifest's
        ``servers`` entry of each endpoint (beside what the look-up before the load found)."""
        servers = self.manifest.servers
        changed = False
        for endpoint, headers in seen.items():
            entry = servers.setdefault(endpoint, ServerEntry())
            changed |= merge_identity(entry.headers, headers)
        if changed:
            self.writer.write_manifest()

    @staticmethod
    def _intermediaries(writer: ResultsWriter) -> list[str]:
        """What the run's responses said of intermediaries on the way, every endpoint's."""
        return [
            named
            for server in writer.manifest.servers.values()
            for named in intermediaries(server.headers)
        ]

    def in_flight(self) -> int:
        return sum(self.issued_by_node.values()) - self.received

    def begin_level(
        self,
        index: int,
        concurrency: int,
        expected: int | None,
        arrival_rate: float | None = None,
        sessions: int | None = None,
        sustain: float | None = None,
    ) -> LevelTally:
        if self.levels_per_run and index // self.levels_per_run >= len(self.writers):
            self.writer.finish(STATUS_COMPLETE)  # the next repetition of the plan starts
            self.writers.append(self.open_run(len(self.writers)))
            logger.info(
                "sparkload run %s: repetition %d, results in %s",
                self.writer.path.name,
                len(self.writers),
                self.writer.path,
            )
        tally = LevelTally(index, concurrency, expected, arrival_rate, self.time_scale, sessions)
        self.tallies[index] = tally
        for watcher in self.watchers:
            watcher.level_began(tally)
        entry = LevelEntry(index, concurrency, expected, utc_now(), arrival_rate=arrival_rate)
        if sustain is not None:  # only --sustain's level says it (the others leave it out)
            entry.sustain = sustain
        self.manifest.levels.append(entry)
        self.writer.write_manifest()
        self.queue_samples = []
        self._scrape(index, concurrency, "start")
        if self.scraper is not None and self.gauge_interval > 0:
            self._gauges = gevent.spawn(self._sample_gauges, index, concurrency)
        return tally

    def note_refusals(self, refusals: Sequence[tuple[str, ControlRefusal]]) -> None:
        """Keep what each endpoint (URL) refused of the server control, in the manifest of the
        run that holds the level it was for."""
        for url, refusal in refusals:
            writer = self._writer_for(refusal.level_index)
            entry = writer.manifest.servers.setdefault(url, ServerEntry())
            entry.control = [*(entry.control or []), refusal]
            writer.write_manifest()

    def note_schedule(self, index: int, schedule: Schedule) -> None:
        """Keep an open-loop level's whole schedule (``shapes.arrival.schedule_summary``)."""
        writer, level = self._level_entry(index)
        level.schedule = schedule
        writer.write_manifest()

    def end_level(
        self, index: int, saturation: str | None = None, stops_sweep: bool = False
    ) -> None:
        """Close the level in the manifest. ``saturation``: what showed an open-loop level
        over-saturated (its shape judged it); ``stops_sweep``: its arrivals were stopped and no
        later level runs. A closed-loop level's flag comes from the server's waiting queue."""
        tally = self.tallies[index]
        writer, level = self._level_entry(index)
        self._stop_gauges()
        level.saturation = saturation or (
            judge_closed_loop(self.queue_samples) if tally.arrival_rate is None else None
        )
        level.unsent = sum(levels.get(str(index), 0) for levels in self.unsent_by_node.values())
        if stops_sweep:
            writer.manifest.saturated_at = index
        figures, level.client_flags, _ = self.client_verdict(index)
        level.client = ClientCheck.from_dict(figures)
        evidence = PathEvidence(self._intermediaries(writer), level.client_flags)
        check = self.stream_samples.pop(index, LevelSample()).check(evidence)
        level.stream = StreamCheck.from_dict(check.summary)
        level.stream_flags, level.stream_flag_kinds = check.flags, check.kinds
        level.ended_at, level.received = utc_now(), tally.measured
        level.expected = tally.expected  # known by now when the sessions' turns were drawn
        writer.write_manifest()
        self._write_quality(writer, complete=False)
        if level.client_flags:
            logger.warning(
                "level %d (C=%d) is shaped by the load generator, not only the server: %s",
                index + 1,
                tally.concurrency,
                "; ".join(level.client_flags),
            )
        if level.stream_flags:
            logger.warning(
                "level %d (C=%d) stream check: %s",
                index + 1,
                tally.concurrency,
                "; ".join(level.stream_flags),
            )
        if level.saturation:
            logger.warning(
                "level %d (%s) over-saturated%s: %s",
                index + 1,
                tally.row()["level"],
                ", arrivals stopped early, no later level runs" if stops_sweep else " (flagged)",
                level.saturation,
            )
        self._scrape(index, tally.concurrency, "end")
        row = tally.row()
        arrival = self.manifest.arrival
        planned = len((arrival.rates if arrival else []) or self.manifest.ladder)
        logger.info(
            "level %s done: C=%d, %d measured (%d failed), TTFT mean %s ms, TPS mean %s",
            f"{index + 1}/{planned}" if planned else index + 1,  # a search plans as it goes
            tally.concurrency,
            tally.measured,
            tally.failures,
            _short(row["ttft_ms_mean"]),
            _short(row["tps_mean"]),
        )

    def _scrape(
        self, index: int, concurrency: int, when: str, names: tuple[str, ...] | None = None
    ) -> None:
        if self.scraper is None or not self.scraper.active:
            return
        for snapshot in self.scraper.take(index, concurrency, when, names):
            self.writer.append_server_metrics(snapshot)
            if when == "during" and "endpoint" in snapshot:
                self._note_queue(snapshot)

    @property
    def gauge_period(self) -> float:
        """Real seconds between mid-level samples: ``gauge_interval`` is in the target's time."""
        return self.gauge_interval / self.time_scale

    def _note_queue(self, snapshot: dict) -> None:
        """An API endpoint's waiting queue, summed with the other endpoints' of the same
        round of samples (they are taken within milliseconds of each other)."""
        waiting = sum(
            s["value"] for s in snapshot["samples"] if s["name"] == "vllm:num_requests_waiting"
        )
        samples = self.queue_samples
        if samples and snapshot["time"] - samples[-1].time < self.gauge_period / 2:
            samples[-1] = QueueSample(samples[-1].time, samples[-1].waiting + waiting)
        else:
            samples.append(QueueSample(snapshot["time"], waiting))

    def _sample_gauges(self, index: int, concurrency: int) -> None:
        while True:
            gevent.sleep(self.gauge_period)
            self._scrape(index, concurrency, "during", GAUGES)

    def _stop_gauges(self) -> None:
        if self._gauges is not None:
            self._gauges.kill(block=True)
            self._gauges = None

    def client_verdict(self, index: int) -> ClientVerdict:
        loads = [levels[str(index)] for levels in self.client_load.values() if str(index) in levels]
        return level_verdict(loads)

    def rows(self) -> list[dict]:
        """The live table, with each level's client check ("ok" or what made it suspect,
        abbreviated: the console's warning and the manifest have it in full) and, once the level
        has ended, its stream check (its flags' kinds and figures); "no data" for a check of a
        level that has no answered request to judge."""
        ended = {
            level.index: [
                short_name(kind, level.stream.to_dict() if level.stream else {})
                for kind in level.stream_flag_kinds
            ]
            for writer in self.writers
            for level in writer.manifest.levels
            if level.ended_at
        }
        rows = []
        for index in sorted(self.tallies):
            row = self.tallies[index].row()
            client = self.client_verdict(index)
            # judged only with both answers to judge and self-measurements to judge them by
            row["client"] = check_cell(client.short, row["n"] and client.summary["samples"])
            row["stream"] = check_cell(ended.get(index, []), row["n"], judged=index in ended)
            rows.append(row)
        return rows

    def summary(self) -> str:
        note = ""
        if self.time_scale != 1:
            note = (
                f" (simulated time: the simulator ran {self.time_scale:g}x faster than real time)"
            )
        return (
            f"sparkload per-level results{note}; "
            "mean/p50/p90 exact from records, linear percentiles\n"
            + format_table(self.rows())
            + "".join(f"\n{line}" for line in [*self._empty_lines(), *self._quality_lines()])
            + "".join(f"\nresults: {writer.path}" for writer in self.writers)
        )

    def _empty_lines(self) -> list[str]:
        """How many of each level's ok replies were empty (the model ended at once), if any:
        they count as answered, with no TTFT or ITL."""
        if not self.empty_replies:
            return []
        said = []
        for index, empty in sorted(self.empty_replies.items()):
            tally = self.tallies[index]
            level = tally.name if tally.arrival_rate is not None else f"C={tally.name}"
            said.append(f"{level} {empty} of {tally.measured - tally.failures}")
        return ["empty replies (the model ended at once: ok, no TTFT or ITL): " + ", ".join(said)]

    def _quality_lines(self) -> list[str]:
        """--quality-probe: each level's accuracy and the pooled one (none without a probe)."""
        return self.probes.lines(sorted(self.tallies)) if self.probes is not None else []

    def _write_quality(self, writer: ResultsWriter, complete: bool) -> None:
        """quality.json of ``writer``'s run directory, from its levels' probe items so far."""
        if self.probes is None:
            return
        mine = [index for index in self.tallies if self._writer_for(index) is writer]
        writer.write_quality(self.probes.entry(mine, complete))

    def close(self, status: str) -> None:
        self._stop_gauges()
        for writer in self.writers:
            self._write_quality(writer, complete=status == STATUS_COMPLETE)
        for watcher in self.watchers:
            watcher.run_closed()
        for writer in self.writers[:-1]:
            writer.close()  # finished when the next run began
        self.writer.close(status)


def _short(value: float | None) -> str:
    return "-" if value is None else f"{value:.1f}"
