"""The master's side of a run: records in, run directory and per-level tallies out."""

from __future__ import annotations

import logging
import time

from sparkload.livetable import LevelTally, format_table
from sparkload.records import scale_to_simulated_time
from sparkload.results import ResultsWriter, utc_now

logger = logging.getLogger("sparkload")


class RunCollector:
    def __init__(self, writer: ResultsWriter, time_scale: float) -> None:
        self.writer = writer
        self.time_scale = time_scale
        self.tallies: dict[int, LevelTally] = {}
        self.issued_by_node: dict[str, int] = {}
        self.received = 0
        self.started = time.monotonic()

    @property
    def manifest(self) -> dict:
        return self.writer.manifest

    def take(self, batch: dict) -> None:
        """One message from a process: its records and how many requests it has issued so far."""
        self.issued_by_node[batch["node"]] = batch["issued"]
        records = batch["records"]
        if not records:
            return
        self.writer.append_records(records)
        self.received += len(records)
        for record in records:
            tally = self.tallies.get(record["level_index"])
            if tally is not None:
                tally.add(scale_to_simulated_time(record, self.time_scale))

    def in_flight(self) -> int:
        return sum(self.issued_by_node.values()) - self.received

    def begin_level(self, index: int, concurrency: int, expected: int | None) -> LevelTally:
        tally = self.tallies[index] = LevelTally(index, concurrency, expected)
        self.manifest["levels"].append(
            {"index": index, "concurrency": concurrency, "expected": expected,
             "started_at": utc_now(), "ended_at": None, "received": 0}
        )
        self.writer.write_manifest()
        return tally

    def end_level(self, index: int) -> None:
        tally = self.tallies[index]
        level = self.manifest["levels"][-1]
        level.update(ended_at=utc_now(), received=tally.measured)
        self.writer.write_manifest()
        row = tally.row()
        logger.info(
            "level %d/%d done: C=%d, %d measured (%d failed), TTFT mean %s ms, TPS mean %s",
            index + 1, len(self.manifest.get("ladder") or [0]), tally.concurrency, tally.measured,
            tally.failures, _short(row["ttft_ms_mean"]), _short(row["tps_mean"]),
        )

    def rows(self) -> list[dict]:
        return [self.tallies[i].row() for i in sorted(self.tallies)]

    def summary(self) -> str:
        note = ""
        if self.time_scale != 1:
            note = f" (simulated time: the simulator ran {self.time_scale:g}x faster than real time)"
        return (
            f"sparkload per-level results{note}; mean/p50/p90 exact from records, linear percentiles\n"
            + format_table(self.rows())
            + f"\nresults: {self.writer.path}"
        )

    def close(self, status: str) -> None:
        self.writer.close(status)


def _short(value: float | None) -> str:
    return "-" if value is None else f"{value:.1f}"
