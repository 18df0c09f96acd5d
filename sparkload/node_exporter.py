"""``sparkload node-exporter``: one Spark's GPU power, clocks, temperature and utilization, and
its host's CPU and memory, as Prometheus text for ``--scrape`` (for machines without DCGM).

Once a second it runs ``nvidia-smi --query-gpu=power.draw,clocks.sm,clocks.max.sm,
temperature.gpu,utilization.gpu --format=csv,noheader,nounits`` (a bounded timeout) and reads
the host with psutil; ``/metrics`` serves the latest readings (names in
``sparkload.records.TELEMETRY``, label ``gpu``: nvidia-smi's line index) and an energy counter
per GPU: each sample's power held until the next one, and carried on to the moment of the
scrape, so the counter is continuous and never goes down, and a level's energy is as fine as
one-second samples whatever the load generator's scrape interval (a counter that moved only at
sample times would be off by up to a sample's worth at each end of a level). GPU memory is left
out: on GB10's unified memory nvidia-smi's memory fields mean nothing; the host's is the one.

A missing nvidia-smi, or one that fails, times out or prints something else, is one line on
stderr (and one more when it recovers), never a crash: the exporter keeps serving the host's
CPU and memory, with ``sparkload_nvidia_smi_up 0`` and no GPU series (stale readings would
lie), because a Spark whose GPU cannot be read is still worth watching from the CPU side and a
scrape that answers beats one refused. Across failed samples the last good power is held.
"""

from __future__ import annotations

import argparse
import math
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

import psutil
from prometheus_client import CollectorRegistry, start_http_server
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, Metric
from prometheus_client.registry import Collector

QUERY = ("power.draw", "clocks.sm", "clocks.max.sm", "temperature.gpu", "utilization.gpu")
DEFAULT_PORT = 9401  # beside dcgm-exporter's 9400 and node_exporter's 9100
READY_LINE = "sparkload node-exporter listening on http://{host}:{port}/metrics"
GPU_GAUGES = (  # (metric name, help, GpuReading field): the names of records.TELEMETRY
    ("sparkload_gpu_power_watts", "GPU power draw (nvidia-smi power.draw), W.", "power_w"),
    ("sparkload_gpu_sm_clock_mhz", "SM clock (nvidia-smi clocks.sm), MHz.", "sm_clock_mhz"),
    (
        "sparkload_gpu_sm_clock_max_mhz",
        "Maximum SM clock (nvidia-smi clocks.max.sm), MHz.",
        "sm_clock_max_mhz",
    ),
    (
        "sparkload_gpu_temperature_celsius",
        "GPU temperature (nvidia-smi temperature.gpu), degrees C.",
        "temperature_c",
    ),
    (
        "sparkload_gpu_utilization_percent",
        "GPU utilization (nvidia-smi utilization.gpu), percent.",
        "utilization_pct",
    ),
)


def nvidia_smi_command(executable: str = "nvidia-smi") -> list[str]:
    return [executable, f"--query-gpu={','.join(QUERY)}", "--format=csv,noheader,nounits"]


@dataclass(frozen=True)
class GpuReading:
    """One GPU's line of the query; None where nvidia-smi says [N/A] or [Not Supported]."""

    power_w: float | None
    sm_clock_mhz: float | None
    sm_clock_max_mhz: float | None
    temperature_c: float | None
    utilization_pct: float | None


def _field(text: str) -> float | None:
    text = text.strip()
    if text.startswith("[") or text in ("", "N/A"):
        return None
    number = float(text)  # ValueError for anything else
    if not math.isfinite(number):
        raise ValueError(f"not a finite number: {text!r}")
    return number


def parse_query(output: str) -> list[GpuReading]:
    """One reading per non-empty line, in nvidia-smi's GPU order; ValueError if a line is not
    five comma-separated numbers (or [N/A])."""
    readings = []
    for line in output.splitlines():
        if not line.strip():
            continue
        fields = line.split(",")
        if len(fields) != len(QUERY):
            raise ValueError(f"expected {len(QUERY)} fields, got {line.strip()!r}")
        readings.append(GpuReading(*(_field(f) for f in fields)))
    if not readings:
        raise ValueError("no GPU in the output")
    return readings


@dataclass
class HostReading:
    cpu_busy_pct: float
    memory_used_bytes: float
    memory_total_bytes: float


def read_host() -> HostReading:
    """CPU busy since the last call (psutil), memory in use = total − available."""
    memory = psutil.virtual_memory()
    return HostReading(
        psutil.cpu_percent(interval=None), memory.total - memory.available, memory.total
    )


@dataclass
class State:
    """What ``/metrics`` serves: the latest readings and each GPU's energy so far."""

    gpus: list[GpuReading] = field(default_factory=list)  # the latest sample's (none: failed)
    held: list[GpuReading] = field(default_factory=list)  # the last good sample's readings
    energy_j: list[float] = field(default_factory=list)  # at ``sampled_at``
    sampled_at: float = 0.0  # the clock of the last good sample
    host: HostReading | None = None
    nvidia_smi_up: bool = False

    def energy_at(self, now: float) -> list[float]:
        """Each GPU's energy at ``now``: the last good power held since it was read."""
        held = [(g.power_w or 0.0) * max(0.0, now - self.sampled_at) for g in self.held]
        return [e + h for e, h in zip(self.energy_j, held, strict=True)]


class Sampler:
    """Runs nvidia-smi and reads the host once per call to ``sample``; integrates energy."""

    def __init__(
        self,
        command: list[str],
        timeout: float,
        say: Callable[[str], None],
        clock: Callable[[], float] = time.monotonic,
        host: Callable[[], HostReading] = read_host,
    ) -> None:
        self.command = command
        self.timeout = timeout
        self.state = State()
        self.lock = threading.Lock()
        self._say = say
        self._clock = clock
        self._host = host
        self._problem = ""  # what the last failed run said ("" once it works)
        self.gpu_missing = False  # no nvidia-smi at all: not tried again

    def sample(self) -> None:
        host = self._host()
        gpus = [] if self.gpu_missing else self._read_gpus()
        with self.lock:
            self.state.host = host
            self.state.nvidia_smi_up = bool(gpus)
            self.state.gpus = gpus
            if gpus:
                self._integrate(gpus)

    def _read_gpus(self) -> list[GpuReading]:
        try:
            done = subprocess.run(
                self.command, capture_output=True, text=True, timeout=self.timeout, check=False
            )
            if done.returncode != 0:
                last = (done.stderr or done.stdout).strip().splitlines()[-1:] or [""]
                raise RuntimeError(f"exit code {done.returncode}: {last[0]}".rstrip(": "))
            gpus = parse_query(done.stdout)
        except FileNotFoundError:
            self.gpu_missing = True
            self._say(f"{self.command[0]} not found; serving the host's CPU and memory only")
            return []
        except subprocess.TimeoutExpired:
            self._failed(f"no answer within {self.timeout:g} s")
            return []
        except (OSError, RuntimeError, ValueError) as exc:
            self._failed(str(exc))
            return []
        if self._problem:
            self._say(f"{self.command[0]} answers again")
            self._problem = ""
        return gpus

    def _failed(self, problem: str) -> None:
        if not self._problem:
            self._say(f"{self.command[0]} failed ({problem}); GPU series left out until it answers")
        self._problem = problem

    def _integrate(self, gpus: list[GpuReading]) -> None:
        now, state = self._clock(), self.state
        if len(state.held) != len(gpus):
            state.energy_j = [0.0] * len(gpus)  # first sample, or the GPUs changed
        else:
            state.energy_j = state.energy_at(now)
        state.held, state.sampled_at = gpus, now

    def energy_now(self) -> list[float]:
        with self.lock:
            return self.state.energy_at(self._clock())


class StateCollector(Collector):
    """The latest ``State`` as Prometheus families."""

    def __init__(self, sampler: Sampler) -> None:
        self._sampler = sampler

    def collect(self) -> Iterator[Metric]:
        energy = self._sampler.energy_now()
        with self._sampler.lock:
            state = self._sampler.state
            gpus, host, up = list(state.gpus), state.host, state.nvidia_smi_up
        yield GaugeMetricFamily(
            "sparkload_nvidia_smi_up", "1 when the last nvidia-smi query answered.", value=int(up)
        )
        for name, doc, attribute in GPU_GAUGES:
            family = GaugeMetricFamily(name, doc, labels=["gpu"])
            for index, gpu in enumerate(gpus):
                value = getattr(gpu, attribute)
                if value is not None:
                    family.add_metric([str(index)], value)
            yield family
        if gpus:
            joules = CounterMetricFamily(
                "sparkload_gpu_energy_joules",
                "GPU energy since the exporter started: power.draw integrated over its samples.",
                labels=["gpu"],
            )
            for index, value in enumerate(energy):
                joules.add_metric([str(index)], value)
            yield joules
        if host is not None:
            yield GaugeMetricFamily(
                "sparkload_host_cpu_busy_percent",
                "Host CPU busy since the previous sample, percent.",
                value=host.cpu_busy_pct,
            )
            yield GaugeMetricFamily(
                "sparkload_host_memory_used_bytes",
                "Host memory in use (total minus available), bytes.",
                value=host.memory_used_bytes,
            )
            yield GaugeMetricFamily(
                "sparkload_host_memory_total_bytes",
                "Host memory, bytes.",
                value=host.memory_total_bytes,
            )


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="sparkload node-exporter",
        description="Serve this machine's GPU power, clocks, temperature and utilization "
        "(nvidia-smi, once a second) and its CPU and memory as Prometheus text, for "
        "sparkload run --scrape NAME=http://THIS-HOST:PORT/metrics (for machines without DCGM).",
    )
    parser.add_argument(
        "--port",
        type=int,
        default=DEFAULT_PORT,
        help=f"0 picks a free port (default: {DEFAULT_PORT})",
    )
    parser.add_argument(
        "--host",
        default="0.0.0.0",
        help="address to listen on; the load generator scrapes it from another machine "
        "(default: 0.0.0.0)",
    )
    parser.add_argument(
        "--interval", type=float, default=1.0, help="seconds between samples (default: 1)"
    )
    parser.add_argument(
        "--timeout",
        type=float,
        default=5.0,
        help="seconds one nvidia-smi run may take (default: 5)",
    )
    parser.add_argument(
        "--nvidia-smi", default="nvidia-smi", help="the nvidia-smi to run (default: from PATH)"
    )
    return parser


def _problem(args: argparse.Namespace) -> str:
    if not 0 <= args.port <= 65535:
        return f"--port {args.port}: give 0..65535"
    if not 0.05 <= args.interval < math.inf:
        return f"--interval {args.interval:g}: give 0.05 seconds or more"
    if not 0 < args.timeout < math.inf:
        return f"--timeout {args.timeout:g}: give a number of seconds above 0"
    return ""


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    if problem := _problem(args):
        print(f"sparkload node-exporter: error: {problem}", file=sys.stderr)
        return 2

    def say(line: str) -> None:
        print(f"sparkload node-exporter: {line}", file=sys.stderr, flush=True)

    sampler = Sampler(nvidia_smi_command(args.nvidia_smi), args.timeout, say)
    registry = CollectorRegistry()
    registry.register(StateCollector(sampler))
    read_host()  # psutil's first CPU figure covers nothing; start its interval here
    sampler.sample()
    try:
        server, _thread = start_http_server(args.port, args.host, registry)
    except OSError as exc:  # the port is taken, or the address is not this machine's
        print(
            f"sparkload node-exporter: error: {args.host}:{args.port}: {exc.strerror}",
            file=sys.stderr,
        )
        return 1
    stop = threading.Event()
    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, lambda *_: stop.set())
    print(READY_LINE.format(host=args.host, port=server.server_port), flush=True)
    while not stop.wait(args.interval):
        sampler.sample()
    server.shutdown()
    return 0


if __name__ == "__main__":
    sys.exit(main())
