"""Node telemetry per level and node from server_metrics.jsonl: energy, power, clocks,
temperature, CPU and memory (the families of ``sparkload.records.TELEMETRY``).

A node is one scraped endpoint (``node`` in a snapshot): the target's own ``/metrics``
(``api``) or a ``--scrape`` node; its GPUs (label sets of one family) add up. Times: a
snapshot's is the master's wall clock, as the records' are; a node's seconds are simulated
(x ``Run.time_scale``) for the simulator's own nodes (its /metrics and /node/<i>/metrics), real
for a node elsewhere (a real exporter beside a simulated run; the cluster's sum then mixes the
two).

A level's figures cover its measured requests' own window, first send to last end
(``server_metrics.Window``, from the records). Its bounds are read from the snapshot taken
when its warm-up came back ("measure"; else its "start") and its "end", which bracket the window
with nothing in flight; of the mid-level samples only those inside the window count (not the
spawn, the warm-up or the idle tail after the last answer), and a sampled figure needs
``MIN_GAUGE_SAMPLES`` of them, else it is NaN (the report says "too few samples").

Energy, per node and level, by the first method the node's series allow:
  counter    an energy counter (DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION in mJ, sparkload
             node-exporter's joules, node_exporter's hwmon joules) read at the bounds and at
             every sample inside the window: its curve over the window. The window's time
             outside the requests (between a bound and the first send or the last end) is idle:
             where the node has a power gauge it comes off at the draw at the bounds, so the
             curve starts at the first send and ends at the last end (``energy_method`` says by
             how much). A counter that went down (a restart) is not used.
  power      without a counter, a power gauge's samples inside the window: their trapezoid mean
             over the window's time (at least ``MIN_GAUGE_SAMPLES`` samples)
Then joules over the window;  mean W = joules / seconds;  peak W (``power_max_w``) from the same
source over the same window: the highest mean power between two consecutive readings of the
counter, or the highest power sample, so never below the mean; J per output token = joules /
output tokens of the level's measured requests (ok ones); output tokens per J = the inverse.
One GPU read through two nodes (the same ``UUID`` label) counts once, under the ``--scrape``
node.

Throttling: a level is flagged on a node when its SM clock, in mid-level samples taken while the
GPU was busy (utilization 50 % or more, when reported), fell below 90 % of the maximum SM clock
(the exporter's, else the highest the node showed in the run); the flag gives the clock, the
maximum and the hottest temperature of the level.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from itertools import pairwise
from typing import Any
from urllib.parse import urlsplit

import numpy as np
import pandas as pd

from analysis.reading.load import Dataset, Run
from analysis.reading.server_metrics import (
    MIN_GAUGE_SAMPLES,
    Window,
    measured_windows,
    read_snapshots,
)
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
    "samples",
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
Curve = list[tuple[float, float]]  # (a node's seconds, joules since the curve's first point)


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


def peak_watts(curve: Curve) -> float:
    """The highest mean power between two consecutive points of an energy curve (seconds,
    joules): the peak at the sampling's resolution, never below the curve's overall mean, which
    is a time-weighted mean of these; NaN without two points apart."""
    return max(
        ((j1 - j0) / (t1 - t0) for (t0, j0), (t1, j1) in pairwise(curve) if t1 > t0),
        default=np.nan,
    )


def trimmed(curve: Curve, requests: tuple[float, float], idle_w: float) -> tuple[Curve, float]:
    """An energy curve over a level's window cut to its requests (first send, last end), with
    the idle edges' seconds: its bounds, read with nothing in flight, move in to the requests at
    the idle draw ``idle_w``. Unchanged (0 s) when the requests do not lie between the bounds or
    the edges would take all the energy."""
    (t0, j0), (t1, j1) = curve[0], curve[-1]
    start, end = requests
    head, tail = start - t0, t1 - end
    first, last = (start, j0 + idle_w * head), (end, j1 - idle_w * tail)
    if head < 0 or tail < 0 or end <= start or last[1] <= first[1]:
        return curve, 0.0
    return [first, *curve[1:-1], last], head + tail


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


@dataclass(frozen=True)
class NodeEnergy:
    """A node's energy over a level's window and its peak power, from one source."""

    joules: float
    seconds: float
    peak_w: float  # NaN: too few samples inside the window
    method: str  # "": the node has no energy or power series
    gpus: frozenset[str] = frozenset()


NO_ENERGY = NodeEnergy(np.nan, np.nan, np.nan, "")


def _gpus_of(series: Series) -> frozenset[str]:
    return frozenset(u for key in series if (u := _uuid(key)))


def counter_curve(readings: list[Reading], name: str, taken: set[str], scale: float) -> Curve:
    """An energy counter's joules since the first reading at every reading that carries it,
    times in the node's seconds; empty when a bound lacks it or a series went down (a restart).
    ``taken``: GPUs already counted under another node."""
    first, last = readings[0].families.get(name), readings[-1].families.get(name)
    if first is None or last is None:
        return []
    curve = []
    for r in readings:
        if (series := r.families.get(name)) is None:
            continue
        joules = counter_joules(first, _without(series, taken))
        if joules is None:
            return []
        curve.append((r.time * scale, joules))
    return curve


def energy(
    readings: list[Reading],
    requests: tuple[float, float] | None,
    scale: float,
    taken: set[str],
) -> NodeEnergy:
    """A node's energy over a level: ``readings`` are its two bounds and the samples inside the
    requests' window between them, ``requests`` that window (first send, last end; wall-clock
    seconds; None: no records), ``scale`` the node's time scale. The counter's curve (cut to
    the requests where the bounds' idle draw is known), else the power samples inside."""
    inside = readings[1:-1]
    window = None if requests is None else (requests[0] * scale, requests[1] * scale)
    idle_w = idle_watts(readings, taken)
    for family in (f for f in TELEMETRY if f.quantity == ENERGY):
        curve = counter_curve(readings, family.name, taken, scale)
        if not curve:
            continue
        method, edges = f"counter {family.name}", 0.0
        if window is not None and idle_w is not None:
            curve, edges = trimmed(curve, window, idle_w)
        if edges > 0:
            method += f", less {edges:.2f} s of idle edges at {idle_w:.1f} W"
        enough = len(curve) - 2 >= MIN_GAUGE_SAMPLES
        return NodeEnergy(
            curve[-1][1] - curve[0][1],
            curve[-1][0] - curve[0][0],
            peak_watts(curve) if enough else np.nan,
            method,
            _gpus_of(_without(readings[-1].families[family.name], taken)),
        )
    for family in (f for f in TELEMETRY if f.quantity == POWER):
        points = [
            (r.time * scale, series)
            for r in inside
            if (series := _without(r.families.get(family.name) or {}, taken))
        ]
        if not points:
            continue
        used = frozenset().union(*(_gpus_of(series) for _, series in points))
        seconds = [t for t, _ in points]
        watts = [sum(series.values()) for _, series in points]
        if window is None or len(points) < MIN_GAUGE_SAMPLES or seconds[-1] <= seconds[0]:
            return NodeEnergy(np.nan, np.nan, np.nan, f"too few samples of {family.name}", used)
        mean_w = trapezoid_joules(seconds, watts) / (seconds[-1] - seconds[0])
        span = window[1] - window[0]
        method = f"power {family.name}, trapezoid mean of {len(points)} samples"
        return NodeEnergy(mean_w * span, span, max(watts), method, used)
    return NO_ENERGY


def _values(readings: Iterable[Reading], quantity: str) -> list[float]:
    return [v for r in readings if (found := r.first(quantity)) for v in found[1].values()]


def _extreme(values: list[float], pick: Callable[[list[float]], Any]) -> float:
    return float(pick(values)) if values else np.nan


def _busy(reading_: Reading) -> bool:
    util = reading_.first(GPU_UTIL)
    return util is None or max(util[1].values()) >= BUSY_UTIL_PCT


def gauges(readings: list[Reading], clock_max: float) -> dict:
    """Temperature, SM clocks, GPU and CPU use, memory of a node over a level: ``readings`` are
    its two bounds and the samples inside the requests' window; the figures read from those
    samples need ``MIN_GAUGE_SAMPLES`` of them (NaN otherwise)."""
    inside = readings[1:-1]
    during = inside if len(inside) >= MIN_GAUGE_SAMPLES else []  # the bounds are idle
    busy = [r for r in during if _busy(r)]
    clocks = _values(busy, SM_CLOCK)
    temperature = _extreme(_values(readings, TEMPERATURE), max)
    row = {
        "temperature_max_c": temperature,
        "sm_clock_min_mhz": _extreme(clocks, min),
        "sm_clock_max_mhz": clock_max,
        "gpu_util_mean_pct": _extreme(_values(during, GPU_UTIL), np.mean),
        "cpu_busy_pct": _cpu(readings, during),
        "memory_used_max_gb": _memory_used(readings) / 1e9,
        "samples": len(inside),
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
def _windows(
    run: Run, requests: Mapping[int, LevelRequests], sustained: bool = False
) -> tuple[dict[tuple[int, str], list[Reading]], dict[int, int], set[str]]:
    """(level, node) → the level's two bounds with the samples inside its requests' window
    between them; level → its C; the endpoint nodes. ``sustained``: of the --sustain level."""
    by_key: dict[tuple[int, str], list[tuple[dict, Reading]]] = defaultdict(list)
    endpoint_nodes: set[str] = set()
    for snap in read_snapshots(run, sustained):
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
        level = requests.get(key[0])
        window = level.window if level is not None else None
        inside = [
            r
            for _, r in items
            if r.when == "during"
            and window is not None
            and window.holds(r.time)
            and start.time < r.time < end.time
        ]
        windows[key] = [start, *sorted(inside, key=lambda r: r.time), end]
        concurrency[key[0]] = int(items[0][0].get("concurrency", 0))
    return windows, concurrency, endpoint_nodes


def _clock_max(readings: list[Reading]) -> float:
    """The exporter's maximum SM clock, else the highest SM clock seen."""
    stated = _values(readings, SM_CLOCK_MAX)
    return max(stated) if stated else _extreme(_values(readings, SM_CLOCK), max)


def run_rows(run: Run, requests: dict[int, LevelRequests], sustained: bool = False) -> list[dict]:
    """One row per level and node of one run; ``requests``: what each level's requests did;
    ``sustained``: the --sustain level's rows (not the run's levels')."""
    windows, concurrency, endpoint_nodes = _windows(run, requests, sustained)
    by_node: dict[str, list[Reading]] = defaultdict(list)
    for (_, node), window in windows.items():
        by_node[node] += window
    clock_max = {node: _clock_max(readings) for node, readings in by_node.items()}
    rows = []
    for index in sorted({index for index, _ in windows}):
        taken: set[str] = set()
        # --scrape nodes first: a GPU the target's /metrics also shows counts under its node
        nodes = sorted((n for i, n in windows if i == index), key=lambda n: n in endpoint_nodes)
        level = requests.get(index)
        span = (level.window.start, level.window.end) if level is not None else None
        for node in nodes:
            window = windows[(index, node)]
            shown = gpus(window)
            if shown and shown <= taken:
                continue  # the same GPUs as a node before it (the head's, read twice)
            found = energy(window, span, node_time_scale(run, node), taken)
            taken |= found.gpus
            has_energy = bool(np.isfinite(found.joules))
            row = {
                "label": run.label,
                "concurrency": concurrency[index],
                "level_index": index,
                "node": node,
                "joules": found.joules,
                "seconds": found.seconds,
                "power_max_w": found.peak_w,
                "output_tokens": level.output_tokens if has_energy and level else np.nan,
                "energy_method": found.method,
                **gauges(window, clock_max[node]),
            }
            if found.method or any(_has_value(v) for k, v in row.items() if k in GAUGE_KEYS):
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


def idle_watts(readings: list[Reading], taken: set[str]) -> float | None:
    """A node's draw with nothing in flight: its power at the level's bounds (the warm-up and
    the level's last request are back there), the lower of the two; None without a gauge."""
    for family in (f for f in TELEMETRY if f.quantity == POWER):
        bounds = [
            _without(r.families.get(family.name) or {}, taken) for r in (readings[0], readings[-1])
        ]
        if all(bounds):
            return min(sum(series.values()) for series in bounds)
    return None


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
            rows += run_rows(run, level_requests(dataset.records, run, run_index))
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
    out["samples"] = grouped["samples"].min()  # the fewest of a run's level
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
    """What one level's measured requests did."""

    output_tokens: float  # of the ok ones
    window: Window  # first send to last end, wall clock


def level_requests(records: pd.DataFrame, run: Run, run_index: int) -> dict[int, LevelRequests]:
    """A run's levels by index: their measured requests' output tokens and window."""
    windows = measured_windows(records, run, run_index)
    if not windows:
        return {}
    mine = records[(records["run"] == run_index) & records["measure"] & records["ok"]]
    tokens = mine.groupby("level_index")["output_tokens"].sum()
    return {
        index: LevelRequests(float(tokens.get(index, 0.0)), window)
        for index, window in windows.items()
    }
