"""Node telemetry per level and node from server_metrics.jsonl: energy, power, clocks,
temperature, CPU and memory (the families of ``sparkload.records.TELEMETRY``).

A node is one scraped endpoint (``node`` in a snapshot): the target's own ``/metrics``
(``api``) or a ``--scrape`` node; its GPUs (label sets of one family) add up. A level's window
runs from the snapshot taken when its warm-up came back ("measure"; else its "start") to its
"end", in simulated time (``Run.time_scale``) for the simulator's own nodes (its /metrics and
/node/<i>/metrics), in real time for a node elsewhere (a real exporter beside a simulated run;
the cluster's sum then mixes the two).

Energy, per node and level, by the first method the node's series allow:
  counter    Δ of an energy counter over the window (DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION in
             mJ, sparkload node-exporter's joules, node_exporter's hwmon joules); a counter
             that went down (a restart) is not used
  trapezoid  the integral of a power gauge over its samples in the window (the two bounds and
             the mid-level ones, ``--metrics-interval``): as good as the samples are many
Nothing is in flight at the window's bounds, so the window's time outside the requests' wall
time (first send to last end, the summary's ``wall_s``: the scrapes and the record shipping
around the requests, magnified by the simulator's time scale) is idle: where the node has a
power gauge, those idle edges at its draw at the bounds come off, and the level's joules and
seconds are its requests' (``energy_method`` says by how much). Then  mean W = joules /
seconds;  J per output token = joules / output tokens of the level's measured requests (ok
ones);  output tokens per J = the inverse. One GPU read through two nodes (the same ``UUID``
label) counts once, under the ``--scrape`` node.

Throttling: a level is flagged on a node when its SM clock, in mid-level samples taken while the
GPU was busy (utilization 50 % or more, when reported), fell below 90 % of the maximum SM clock
(the exporter's, else the highest the node showed in the run); the flag gives the clock, the
maximum and the hottest temperature of the level.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

import numpy as np
import pandas as pd

from analysis.load import Dataset, Run
from analysis.server_metrics import read_snapshots
from sparkload.records import (
    CPU_BUSY,
    CPU_SECONDS,
    ENERGY,
    GPU_UTIL,
    MEMORY_AVAILABLE,
    MEMORY_TOTAL,
    MEMORY_USED,
    POWER,
    SM_CLOCK,
    SM_CLOCK_MAX,
    TELEMETRY,
    TEMPERATURE,
    TelemetryFamily,
    telemetry_family,
)

BUSY_UTIL_PCT = 50.0
THROTTLE_SHARE = 0.9  # an SM clock below this share of the maximum while busy: throttled
IDLE_CPU_MODES = ("idle", "iowait")

NODE_COLUMNS = [
    "label",
    "concurrency",
    "node",
    "joules",
    "mean_w",
    "j_per_output_token",
    "output_tokens_per_j",
    "power_max_w",
    "temperature_max_c",
    "sm_clock_min_mhz",
    "sm_clock_max_mhz",
    "gpu_util_mean_pct",
    "cpu_busy_pct",
    "memory_used_max_gb",
    "seconds",
    "output_tokens",
    "energy_method",
    "throttle",
]
LEVEL_COLUMNS = [
    "label",
    "concurrency",
    "nodes",
    "joules",
    "mean_w",
    "j_per_output_token",
    "output_tokens_per_j",
    "energy_method",
]

Series = dict[tuple, float]  # one family's label sets → value


@dataclass
class Reading:
    """One snapshot of one node, its telemetry by family."""

    time: float
    when: str
    families: dict[str, Series] = field(default_factory=dict)

    def first(self, quantity: str) -> tuple[TelemetryFamily, Series] | None:
        """The preferred family of ``quantity`` this reading holds."""
        for family in TELEMETRY:
            if family.quantity == quantity and family.name in self.families:
                return family, self.families[family.name]
        return None


def reading(snapshot: dict) -> Reading:
    """A snapshot's telemetry, scaled to each quantity's unit (J, W, MHz, °C, %, s, bytes)."""
    out = Reading(float(snapshot["time"]), str(snapshot["when"]))
    for sample in snapshot.get("samples") or []:
        family = telemetry_family(str(sample.get("name", "")))
        value = sample.get("value")
        if family is None or not isinstance(value, (int, float)):
            continue
        labels = tuple(sorted((sample.get("labels") or {}).items()))
        out.families.setdefault(family.name, {})[labels] = float(value) * family.scale
    return out


# ----- pure arithmetic -------------------------------------------------------------------------
def counter_joules(start: Series, end: Series) -> float | None:
    """Σ over series of end − start; None when a series went down (the counter restarted) or
    the two readings share no series."""
    shared = [key for key in end if key in start]
    deltas = [end[key] - start[key] for key in shared]
    if not deltas or min(deltas) < 0:
        return None
    return float(sum(deltas))


def trapezoid_joules(seconds: Iterable[float], watts: Iterable[float]) -> float:
    """The integral of power over time, linear between samples (seconds ascending)."""
    return float(np.trapezoid(np.asarray(list(watts), float), np.asarray(list(seconds), float)))


def per_token(joules: float, tokens: float) -> tuple[float, float]:
    """(joules per output token, output tokens per joule); NaN where undefined."""
    j_per_token = joules / tokens if tokens > 0 else np.nan
    tokens_per_j = tokens / joules if joules > 0 else np.nan
    return j_per_token, tokens_per_j


def cpu_busy_pct(start: Series, end: Series) -> float:
    """node_exporter's per-CPU, per-mode seconds: the share not idle over the window, %."""
    busy = total = 0.0
    for key, value in end.items():
        delta = value - start.get(key, value)
        total += delta
        if dict(key).get("mode") not in IDLE_CPU_MODES:
            busy += delta
    return 100.0 * busy / total if total > 0 else np.nan


# ----- one node, one level ---------------------------------------------------------------------
def _uuid(labels: tuple) -> str | None:
    return dict(labels).get("UUID")


def gpus(window: list[Reading]) -> set[str]:
    """The GPU UUIDs a node's readings name (dcgm-exporter labels every series with one)."""
    return {
        uuid
        for r in window
        for series in r.families.values()
        for key in series
        if (uuid := _uuid(key))
    }


def _without(series: Series, taken: set[str]) -> Series:
    return {key: value for key, value in series.items() if _uuid(key) not in taken}


def energy(window: list[Reading], scale: float, taken: set[str]) -> tuple[float, str, set[str]]:
    """(joules, method, GPU UUIDs used) of a node over a level's window; NaN joules when its
    series cannot say. ``taken``: GPUs already counted under another node."""
    first, last = window[0], window[-1]
    for family in (f for f in TELEMETRY if f.quantity == ENERGY):
        start, end = first.families.get(family.name), last.families.get(family.name)
        if start is None or end is None:
            continue
        end = _without(end, taken)
        joules = counter_joules(start, end)
        if joules is not None:
            return joules, f"counter {family.name}", {u for k in end if (u := _uuid(k))}
    for family in (f for f in TELEMETRY if f.quantity == POWER):
        points = [
            (r.time, _without(s, taken)) for r in window if (s := r.families.get(family.name))
        ]
        keys = {key for _, series in points for key in series}
        if len(points) < 2 or not keys:
            continue
        joules = sum(
            trapezoid_joules(
                [t * scale for t, series in points if key in series],
                [series[key] for _, series in points if key in series],
            )
            for key in keys
        )
        method = f"trapezoid over {len(points)} samples of {family.name}"
        return joules, method, {u for k in keys if (u := _uuid(k))}
    return np.nan, "", set()


def _values(readings: Iterable[Reading], quantity: str) -> list[float]:
    return [v for r in readings if (found := r.first(quantity)) for v in found[1].values()]


def _extreme(values: list[float], pick: Callable[[list[float]], Any]) -> float:
    return float(pick(values)) if values else np.nan


def _busy(reading_: Reading) -> bool:
    util = reading_.first(GPU_UTIL)
    return util is None or max(util[1].values()) >= BUSY_UTIL_PCT


def gauges(window: list[Reading], clock_max: float) -> dict:
    """Power peak, temperature, SM clocks, GPU and CPU use, memory of a node over a window."""
    during = [r for r in window if r.when == "during"]  # the bounds are idle (closed loop)
    busy = [r for r in during if _busy(r)]
    clocks = _values(busy, SM_CLOCK)
    temperature = _extreme(_values(window, TEMPERATURE), max)
    row = {
        "power_max_w": _extreme(_values(during, POWER), max),
        "temperature_max_c": temperature,
        "sm_clock_min_mhz": _extreme(clocks, min),
        "sm_clock_max_mhz": clock_max,
        "gpu_util_mean_pct": _extreme(_values(during, GPU_UTIL), np.mean),
        "cpu_busy_pct": _cpu(window, during),
        "memory_used_max_gb": _memory_used(window) / 1e9,
        "throttle": "",
    }
    if clocks and np.isfinite(clock_max) and min(clocks) < THROTTLE_SHARE * clock_max:
        hot = f", up to {temperature:.0f} °C" if np.isfinite(temperature) else ""
        row["throttle"] = (
            f"SM clock down to {min(clocks):.0f} MHz of {clock_max:.0f} "
            f"({min(clocks) / clock_max:.0%}) while busy{hot}"
        )
    return row


def _cpu(window: list[Reading], during: list[Reading]) -> float:
    gauge = _values(during, CPU_BUSY)
    if gauge:
        return float(np.mean(gauge))
    start, end = window[0].first(CPU_SECONDS), window[-1].first(CPU_SECONDS)
    return cpu_busy_pct(start[1], end[1]) if start and end else np.nan


def _memory_used(window: list[Reading]) -> float:
    used = _values(window, MEMORY_USED)
    if used:
        return max(used)
    totals, available = _values(window, MEMORY_TOTAL), _values(window, MEMORY_AVAILABLE)
    return max(totals) - min(available) if totals and available else np.nan


# ----- a run, then the report ------------------------------------------------------------------
def _windows(run: Run) -> tuple[dict[tuple[int, str], list[Reading]], dict[int, int], set[str]]:
    """(level, node) → the readings of the level's window; level → its C; the endpoint nodes."""
    by_key: dict[tuple[int, str], list[tuple[dict, Reading]]] = defaultdict(list)
    endpoint_nodes: set[str] = set()
    for snap in read_snapshots(run):
        node = str(snap.get("node") or snap.get("endpoint") or "")
        if "endpoint" in snap or "node" not in snap:
            endpoint_nodes.add(node)
        by_key[(int(snap["level_index"]), node)].append((snap, reading(snap)))
    windows, concurrency = {}, {}
    for key, items in by_key.items():
        bounds = {r.when: r for _, r in items if r.when != "during"}
        start, end = bounds.get("measure") or bounds.get("start"), bounds.get("end")
        if start is None or end is None or end.time <= start.time:
            continue
        inside = [r for _, r in items if r.when == "during" and start.time < r.time < end.time]
        windows[key] = [start, *sorted(inside, key=lambda r: r.time), end]
        concurrency[key[0]] = int(items[0][0].get("concurrency", 0))
    return windows, concurrency, endpoint_nodes


def _clock_max(readings: list[Reading]) -> float:
    """The exporter's maximum SM clock, else the highest SM clock seen."""
    stated = _values(readings, SM_CLOCK_MAX)
    return max(stated) if stated else _extreme(_values(readings, SM_CLOCK), max)


def run_rows(run: Run, requests: dict[int, LevelRequests]) -> list[dict]:
    """One row per level and node of one run; ``requests``: what each level's requests did."""
    windows, concurrency, endpoint_nodes = _windows(run)
    by_node: dict[str, list[Reading]] = defaultdict(list)
    for (_, node), window in windows.items():
        by_node[node] += window
    clock_max = {node: _clock_max(readings) for node, readings in by_node.items()}
    rows = []
    for index in sorted({index for index, _ in windows}):
        taken: set[str] = set()
        # --scrape nodes first: a GPU the target's /metrics also shows counts under its node
        nodes = sorted((n for i, n in windows if i == index), key=lambda n: n in endpoint_nodes)
        for node in nodes:
            window = windows[(index, node)]
            shown = gpus(window)
            if shown and shown <= taken:
                continue  # the same GPUs as a node before it (the head's, read twice)
            scale = node_time_scale(run, node)
            joules, method, used = energy(window, scale, taken)
            idle_w = idle_watts(window, taken)
            taken |= used
            seconds = (window[-1].time - window[0].time) * scale
            level = requests.get(index)
            if method and level is not None and idle_w is not None:
                wall_s = level.wall_s * scale / run.time_scale
                joules, seconds, method = without_idle_edges(
                    joules, seconds, wall_s, idle_w, method
                )
            row = {
                "label": run.label,
                "concurrency": concurrency[index],
                "level_index": index,
                "node": node,
                "joules": joules,
                "seconds": seconds,
                "output_tokens": level.output_tokens if method and level else np.nan,
                "energy_method": method,
                **gauges(window, clock_max[node]),
            }
            if method or any(_has_value(v) for k, v in row.items() if k in GAUGE_KEYS):
                rows.append(row)
    return rows


def node_time_scale(run: Run, node: str) -> float:
    """The time base of a node's figures: the simulator's own nodes (on the server of a
    simulated endpoint) count in its simulated time, every other node in real time."""
    url = run.manifest.scrape.get(node)
    if url is None or run.time_scale == 1:
        return run.time_scale
    servers = {urlsplit(endpoint).netloc for endpoint in run.manifest.endpoints}
    return run.time_scale if urlsplit(url).netloc in servers else 1.0


def idle_watts(window: list[Reading], taken: set[str]) -> float | None:
    """A node's draw with nothing in flight: its power at the window's bounds (the warm-up and
    the level's last request are back there), the lower of the two; None without a gauge."""
    for family in (f for f in TELEMETRY if f.quantity == POWER):
        bounds = [
            _without(r.families.get(family.name) or {}, taken) for r in (window[0], window[-1])
        ]
        if all(bounds):
            return min(sum(series.values()) for series in bounds)
    return None


def without_idle_edges(
    joules: float, window_s: float, wall_s: float, idle_w: float, method: str
) -> tuple[float, float, str]:
    """(joules, seconds, method) of the requests' wall time (first send to last end): the
    window's energy less its idle edges, the window's time outside the wall time at the idle
    draw. Unchanged when the wall time does not fit in the window."""
    edges = window_s - wall_s
    if not 0 < wall_s < window_s or joules - idle_w * edges <= 0:
        return joules, window_s, method
    method += f", less {edges:.2f} s of idle edges at {idle_w:.1f} W"
    return joules - idle_w * edges, wall_s, method


GAUGE_KEYS = (
    "power_max_w",
    "temperature_max_c",
    "sm_clock_min_mhz",
    "gpu_util_mean_pct",
    "cpu_busy_pct",
    "memory_used_max_gb",
)


def _has_value(value: object) -> bool:
    return isinstance(value, float) and bool(np.isfinite(value))


def _join(values: Iterable[str]) -> str:
    return "; ".join(dict.fromkeys(v for v in values if v))


def per_node(dataset: Dataset) -> pd.DataFrame:
    """Per (label, concurrency, node) of the closed-loop runs: energy over the runs of a label
    added up, the gauges' extremes; empty when no run has node telemetry."""
    rows = []
    for run_index, run in enumerate(dataset.runs):
        if run.server_metrics_path is not None and not run.open_loop:
            rows += run_rows(run, level_requests(dataset.records, run_index))
    if not rows:
        return pd.DataFrame(columns=NODE_COLUMNS)
    raw = pd.DataFrame(rows)
    keys = ["label", "concurrency", "node"]
    grouped = raw.groupby(keys, sort=False)
    out = grouped[["joules", "seconds", "output_tokens"]].sum(min_count=1)
    out["power_max_w"] = grouped["power_max_w"].max()
    out["temperature_max_c"] = grouped["temperature_max_c"].max()
    out["sm_clock_min_mhz"] = grouped["sm_clock_min_mhz"].min()
    out["sm_clock_max_mhz"] = grouped["sm_clock_max_mhz"].max()
    out["gpu_util_mean_pct"] = grouped["gpu_util_mean_pct"].mean()
    out["cpu_busy_pct"] = grouped["cpu_busy_pct"].mean()
    out["memory_used_max_gb"] = grouped["memory_used_max_gb"].max()
    out["energy_method"] = grouped["energy_method"].agg(_join)
    out["throttle"] = grouped["throttle"].agg(_join)
    out["mean_w"] = out["joules"] / out["seconds"]
    ratios = [per_token(j, t) for j, t in zip(out["joules"], out["output_tokens"], strict=True)]
    out["j_per_output_token"] = [r[0] for r in ratios]
    out["output_tokens_per_j"] = [r[1] for r in ratios]
    return out.reset_index()[NODE_COLUMNS]


def per_level(nodes: pd.DataFrame) -> pd.DataFrame:
    """The cluster per (label, concurrency): every node's energy added up (nodes with energy)."""
    with_energy = nodes[np.isfinite(nodes["joules"].astype(float))]
    if with_energy.empty:
        return pd.DataFrame(columns=LEVEL_COLUMNS)
    grouped = with_energy.groupby(["label", "concurrency"], sort=False)
    out = pd.DataFrame(
        {
            "nodes": grouped["node"].agg(lambda names: ", ".join(names)),
            "joules": grouped["joules"].sum(),
            "mean_w": grouped["mean_w"].sum(),
            "j_per_output_token": grouped["j_per_output_token"].sum(),
            "energy_method": grouped["energy_method"].agg(
                lambda methods: _join(m.split(", less ")[0] for m in methods)
            ),
        }
    )
    out["output_tokens_per_j"] = 1.0 / out["j_per_output_token"]
    return out.reset_index()[LEVEL_COLUMNS]


@dataclass(frozen=True)
class LevelRequests:
    """What one level's measured requests did (simulated time)."""

    output_tokens: float  # of the ok ones
    wall_s: float  # first send to last end, as the summary's wall_s


def level_requests(records: pd.DataFrame, run_index: int) -> dict[int, LevelRequests]:
    """A run's levels by index: their measured requests' output tokens and wall time."""
    if "level_index" not in records or records.empty:
        return {}
    mine = records[(records["run"] == run_index) & records["measure"]]
    ends = mine["start_time"] + mine["latency"].fillna(0.0)
    out = {}
    for index, level in mine.groupby("level_index"):
        tokens = level.loc[level["ok"], "output_tokens"].sum()
        wall = ends[level.index].max() - level["start_time"].min()
        out[int(index)] = LevelRequests(float(tokens), float(wall))
    return out
