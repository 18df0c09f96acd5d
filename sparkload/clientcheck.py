"""The load generator watching itself: is a level's timing shaped by the client, not the server?

Every process samples itself ten times a second: a ``gevent.sleep(0.1)`` that returns late
means every stream in the process was read late too (the loop was busy); the time the process
spent ready to run but waiting for a core (Linux schedstat) shows a CPU hog beside the worker,
which hardly shows as lag since the kernel favours a mostly-sleeping process on wake-up; and
its own CPU time shows a saturated worker. The figures are cumulative per level index and
travel to the master with the records; the master turns them into flags.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from typing import NamedTuple

import gevent

SAMPLE_INTERVAL = 0.1  # seconds
LAG_SAMPLE_THRESHOLD_MS = 10.0  # a wake-up this late counts as a lagging sample
LAG_SHARE_FLAG = 0.05  # flag a level when more than 5 % of its samples lag
LAG_MAX_FLAG_MS = 100.0  # or when any single wake-up was this late
CPU_FLAG_PCT = 90.0  # or when a process used more than 90 % of a core over the level
RUNQUEUE_FLAG_PCT = 20.0  # or when it waited for a free core more than 20 % of the time


@dataclass
class LevelLoad:
    """One process's self-measurements during one level (cumulative, so resending is harmless)."""

    samples: int = 0
    lagging: int = 0
    lag_max_ms: float = 0.0
    cpu_s: float = 0.0
    wall_s: float = 0.0
    runqueue_s: float = 0.0  # time ready to run but waiting for a core (Linux schedstat)


class ClientMonitor:
    def __init__(self, current_level: Callable[[], int]) -> None:
        self.current_level = current_level
        self.levels: dict[int, LevelLoad] = {}
        self._loop = gevent.spawn(self._sample)

    def snapshot(self) -> dict[str, dict]:
        """String keys: msgpack between processes keeps only string map keys safely."""
        return {str(index): asdict(load) for index, load in self.levels.items()}

    def reset(self) -> None:
        self.levels = {}

    def close(self) -> None:
        self._loop.kill(block=False)

    def _sample(self) -> None:
        wall, cpu, waited = time.perf_counter(), time.process_time(), runqueue_wait()
        while True:
            gevent.sleep(SAMPLE_INTERVAL)
            now, now_cpu, now_waited = time.perf_counter(), time.process_time(), runqueue_wait()
            index = self.current_level()
            if index >= 0:
                load = self.levels.setdefault(index, LevelLoad())
                lag_ms = max(0.0, (now - wall - SAMPLE_INTERVAL) * 1000)
                load.samples += 1
                load.lagging += lag_ms > LAG_SAMPLE_THRESHOLD_MS
                load.lag_max_ms = max(load.lag_max_ms, lag_ms)
                load.cpu_s += now_cpu - cpu
                load.wall_s += now - wall
                load.runqueue_s += now_waited - waited
            wall, cpu, waited = now, now_cpu, now_waited


def runqueue_wait() -> float:
    """Seconds this process has spent runnable but not running (0 where Linux schedstat is
    absent)."""
    try:
        with open("/proc/thread-self/schedstat", "rb") as stat:
            return int(stat.read().split()[1]) / 1e9
    except (OSError, ValueError, IndexError):
        return 0.0


class ClientVerdict(NamedTuple):
    """A level's client check: its figures, its flags in full (the manifest's, the console's,
    the report's) and the same flags abbreviated, in the same order (the live table's)."""

    summary: dict
    flags: list[str]
    short: list[str]


def level_verdict(loads: list[dict]) -> ClientVerdict:
    """Combine every process's figures for one level into a summary and its flags (master)."""
    samples = sum(load["samples"] for load in loads)
    lagging = sum(load["lagging"] for load in loads)
    lag_max = max((load["lag_max_ms"] for load in loads), default=0.0)
    cpu_pct = max(
        (100 * load["cpu_s"] / load["wall_s"] for load in loads if load["wall_s"] > 0), default=0.0
    )
    waiting_pct = max(
        (
            100 * load.get("runqueue_s", 0.0) / load["wall_s"]
            for load in loads
            if load["wall_s"] > 0
        ),
        default=0.0,
    )
    summary = {
        "processes": len(loads),
        "samples": samples,
        "lagging_share": round(lagging / samples, 4) if samples else None,
        "lag_max_ms": round(lag_max, 1),
        "cpu_pct_max": round(cpu_pct, 1),
        "cpu_s": round(sum(load["cpu_s"] for load in loads), 3),
        "runqueue_pct_max": round(waiting_pct, 1),
    }
    found: list[tuple[str, str]] = []
    if samples and (lagging / samples > LAG_SHARE_FLAG or lag_max >= LAG_MAX_FLAG_MS):
        found.append(
            (
                f"event-loop lag: {lagging}/{samples} wake-ups over "
                f"{LAG_SAMPLE_THRESHOLD_MS:g} ms, worst {lag_max:.0f} ms",
                f"lag {lagging}/{samples} worst {lag_max:.0f} ms",
            )
        )
    if cpu_pct > CPU_FLAG_PCT:
        found.append((f"client CPU {cpu_pct:.0f} % of a core", f"CPU {cpu_pct:.0f} %"))
    if waiting_pct > RUNQUEUE_FLAG_PCT:
        found.append(
            (
                f"client starved of CPU: waited for a free core {waiting_pct:.0f} % of the time",
                f"starved {waiting_pct:.0f} %",
            )
        )
    return ClientVerdict(summary, [full for full, _ in found], [short for _, short in found])
