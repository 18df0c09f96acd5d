"""The simulator's own timing of each request: what ``--timing-log`` writes, one JSON line a
request, to compare the server's view with the client's."""

from __future__ import annotations

import asyncio
import json
from dataclasses import dataclass, field
from pathlib import Path

from sparkload.sim.request_metrics import Schedule


@dataclass
class RequestTimes:
    """Server-side timing of one request, in real seconds of this process's clock."""

    received: float
    last_output: float = 0.0  # previous backend output, for the ITL histogram
    first: float | None = None
    last: float | None = None
    chunks: int = 0
    # the engine's stamps of it, on the event loop's clock (vLLM's per-request ``metrics``)
    schedule: Schedule = field(default_factory=Schedule)

    def note_chunk(self, now: float) -> None:
        if self.first is None:
            self.first = now
        self.last = now
        self.chunks += 1


class TimingLog:
    """One JSON line per request, buffered and flushed off the hot path (at least once a
    second and at shutdown)."""

    def __init__(self, path: Path, time_scale: float) -> None:
        self._file = path.open("a", encoding="utf-8")
        self._lines: list[str] = []
        self._scale = time_scale
        self._task: asyncio.Task[None] | None = None

    def record(
        self,
        request_id: str,
        times: RequestTimes,
        tokens: int,
        fault: str | None,
        received_unix: float,
    ) -> None:
        first, last = times.first, times.last
        decode = last - first if first is not None and last is not None else None
        entry = {
            "request_id": request_id,
            "received_unix": received_unix,
            "server_ttft_s": None if times.first is None else times.first - times.received,
            "decode_s": decode,
            "tokens": tokens,
            "chunks": times.chunks,
            "mean_chunk_gap_s": decode / (times.chunks - 1)
            if decode is not None and times.chunks > 1
            else None,
            "mean_itl_s": decode / (tokens - 1) if decode is not None and tokens > 1 else None,
            "fault": fault,
            "time_scale": self._scale,
        }
        self._lines.append(json.dumps(entry))

    def flush(self) -> None:
        if self._lines:
            self._file.write("\n".join(self._lines) + "\n")
            self._file.flush()
            self._lines = []

    def start(self) -> None:
        async def every_second() -> None:
            while True:
                await asyncio.sleep(1.0)
                self.flush()

        self._task = asyncio.get_running_loop().create_task(every_second())

    async def close(self) -> None:
        if self._task:
            self._task.cancel()
            await asyncio.gather(self._task, return_exceptions=True)
        self.flush()
        self._file.close()
