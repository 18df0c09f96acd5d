"""vLLM-named Prometheus metrics for the simulator, on a private registry per server.

Gauges and counters are read from the backend when scraped (the engine keeps the totals);
the latency histograms are observed by the server as tokens go out, in simulated seconds, so
a time-scaled run reports the same values as a real-time one. Every series carries vLLM's
labels ``model_name`` and ``engine="0"``.

Beside them, each node's power model (``power.py``) as dcgm-exporter's default counters name
it: ``DCGM_FI_DEV_POWER_USAGE`` (W) and ``DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION`` (mJ since the
server started; a counter, so prometheus_client writes it with ``_total``, the name a
Prometheus parser gives dcgm-exporter's too), and with ``--thermal`` (``thermal.py``)
``DCGM_FI_DEV_SM_CLOCK``, ``DCGM_FI_DEV_MAX_SM_CLOCK`` (MHz) and ``DCGM_FI_DEV_GPU_TEMP``
(°C), labelled like dcgm-exporter's (``gpu``, ``UUID``, ``device``, ``modelName``,
``Hostname``). ``/metrics`` carries the head node's (node 1); ``/node/<i>/metrics`` node i's
alone, one per node of the TP group, as a dcgm-exporter on each Spark would serve it. One GPU
keeps one ``UUID`` wherever it is read, so a scraper that reads node 1 twice can tell; two
simulators never share one.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from typing import Protocol

from prometheus_client import CollectorRegistry, Histogram, generate_latest
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, Metric
from prometheus_client.registry import Collector

from sparkload.sim.engine import Counters
from sparkload.sim.power import PowerMeter

# vLLM's default buckets (vllm/v1/metrics/loggers.py), seconds.
TTFT_BUCKETS = (
    0.001,
    0.005,
    0.01,
    0.02,
    0.04,
    0.06,
    0.08,
    0.1,
    0.25,
    0.5,
    0.75,
    1.0,
    2.5,
    5.0,
    7.5,
    10.0,
    20.0,
    40.0,
    80.0,
    160.0,
    640.0,
    2560.0,
)
ITL_BUCKETS = (
    0.01,
    0.025,
    0.05,
    0.075,
    0.1,
    0.15,
    0.2,
    0.3,
    0.4,
    0.5,
    0.75,
    1.0,
    2.5,
    5.0,
    7.5,
    10.0,
    20.0,
    40.0,
    80.0,
)
E2E_BUCKETS = (
    0.3,
    0.5,
    0.8,
    1.0,
    1.5,
    2.0,
    2.5,
    5.0,
    10.0,
    15.0,
    20.0,
    30.0,
    40.0,
    50.0,
    60.0,
    120.0,
    240.0,
    480.0,
    960.0,
    1920.0,
    7680.0,
)
LABELS = ("model_name", "engine")


class StatsSource(Protocol):
    """What the metrics read from a backend at scrape time."""

    counters: Counters

    @property
    def num_running(self) -> int: ...
    @property
    def num_waiting(self) -> int: ...
    def kv_usage(self) -> float: ...
    def kv_cache_blocks(self) -> tuple[int, int] | None: ...
    @property
    def nodes(self) -> int: ...
    @property
    def power(self) -> PowerMeter | None: ...


DCGM_LABELS = ("gpu", "UUID", "device", "modelName", "Hostname")
POWER_USAGE = "DCGM_FI_DEV_POWER_USAGE"
TOTAL_ENERGY = "DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION"
SM_CLOCK = "DCGM_FI_DEV_SM_CLOCK"  # --thermal's (``thermal.py``)
MAX_SM_CLOCK = "DCGM_FI_DEV_MAX_SM_CLOCK"
GPU_TEMP = "DCGM_FI_DEV_GPU_TEMP"


class _DcgmCollector(Collector):
    """One node's power and energy, named and labelled as dcgm-exporter's."""

    def __init__(self, meter: PowerMeter, node: int, server_id: str) -> None:
        self._meter = meter
        gpu_uuid = f"GPU-sparkload-sim-{server_id}-node-{node}"
        self._labels = ["0", gpu_uuid, "nvidia0", "NVIDIA GB10 (simulated)", f"spark-{node}"]

    def collect(self) -> Iterator[Metric]:
        power = GaugeMetricFamily(POWER_USAGE, "Power draw (in W).", labels=DCGM_LABELS)
        power.add_metric(self._labels, self._meter.watts())
        yield power
        energy = CounterMetricFamily(
            TOTAL_ENERGY, "Total energy consumption since boot (in mJ).", labels=DCGM_LABELS
        )
        energy.add_metric(self._labels, self._meter.energy_j() * 1e3)
        yield energy
        temperature = self._meter.temperature_c()
        thermal = self._meter.thermal
        if temperature is None or thermal is None:
            return  # --thermal off: no clock or temperature to serve
        for name, doc, value in (
            (SM_CLOCK, "SM clock frequency (in MHz).", thermal.clock_mhz),
            (MAX_SM_CLOCK, "Maximum SM clock frequency (in MHz).", thermal.model.max_clock_mhz),
            (GPU_TEMP, "GPU temperature (in C).", temperature),
        ):
            gauge = GaugeMetricFamily(name, doc, labels=DCGM_LABELS)
            gauge.add_metric(self._labels, value)
            yield gauge


class _BackendCollector(Collector):
    def __init__(self, source: StatsSource, model_name: str, speculative: bool) -> None:
        self._source = source
        self._labels = [model_name, "0"]
        self._speculative = speculative

    def _gauge(self, name: str, doc: str, value: float) -> GaugeMetricFamily:
        family = GaugeMetricFamily(name, doc, labels=LABELS)
        family.add_metric(self._labels, value)
        return family

    def _counter(self, name: str, doc: str, value: float) -> CounterMetricFamily:
        family = CounterMetricFamily(name, doc, labels=LABELS)
        family.add_metric(self._labels, value)
        return family

    def collect(self) -> Iterator[Metric]:
        src, c = self._source, self._source.counters
        blocks = src.kv_cache_blocks()
        if blocks is not None:  # vLLM's info gauge: the cache configuration in its labels
            info = GaugeMetricFamily(
                "vllm:cache_config_info",
                "Information of the LLMEngine CacheConfig",
                labels=("block_size", "num_gpu_blocks", "engine"),
            )
            info.add_metric([str(blocks[1]), str(blocks[0]), "0"], 1.0)
            yield info
        yield self._gauge(
            "vllm:num_requests_running",
            "Number of requests in model execution batches.",
            src.num_running,
        )
        yield self._gauge(
            "vllm:num_requests_waiting",
            "Number of requests waiting to be processed.",
            src.num_waiting,
        )
        yield self._gauge(
            "vllm:kv_cache_usage_perc", "KV-cache usage. 1 means 100 percent usage.", src.kv_usage()
        )
        yield self._counter(
            "vllm:prompt_tokens", "Number of prefill tokens processed.", c.prompt_tokens
        )
        yield self._counter(
            "vllm:generation_tokens", "Number of generation tokens processed.", c.generation_tokens
        )
        yield self._counter(
            "vllm:prefix_cache_queries",
            "Prefix cache queries, in terms of number of queried tokens.",
            c.prefix_cache_queries,
        )
        yield self._counter(
            "vllm:prefix_cache_hits",
            "Prefix cache hits, in terms of number of cached tokens.",
            c.prefix_cache_hits,
        )
        yield self._counter(
            "vllm:num_preemptions", "Cumulative number of preemptions.", c.preemptions
        )
        if self._speculative:
            yield from self._spec_families(c)

    def _spec_families(self, c: Counters) -> Iterator[Metric]:
        yield self._counter(
            "vllm:spec_decode_num_drafts", "Number of spec decoding drafts.", c.spec_drafts
        )
        yield self._counter(
            "vllm:spec_decode_num_draft_tokens", "Number of draft tokens.", c.spec_draft_tokens
        )
        yield self._counter(
            "vllm:spec_decode_num_accepted_tokens",
            "Number of accepted tokens.",
            c.spec_accepted_tokens,
        )
        per_pos = CounterMetricFamily(
            "vllm:spec_decode_num_accepted_tokens_per_pos",
            "Accepted tokens per draft position.",
            labels=(*LABELS, "position"),
        )
        for position, count in enumerate(c.spec_accepted_per_pos):
            per_pos.add_metric([*self._labels, str(position)], count)
        yield per_pos


class SimMetrics:
    """The registry one server exposes at ``/metrics``, and one per node (``node_exposition``)."""

    def __init__(self, source: StatsSource, model_name: str, speculative: bool) -> None:
        self.registry = CollectorRegistry()
        self.registry.register(_BackendCollector(source, model_name, speculative))
        self._nodes: dict[int, CollectorRegistry] = {}
        meter = source.power
        server_id = uuid.uuid4().hex[:12]  # every simulated GPU's UUID is its own, as a real one
        if meter is not None:
            for node in range(1, source.nodes + 1):
                self._nodes[node] = CollectorRegistry()
                self._nodes[node].register(_DcgmCollector(meter, node, server_id))
            self.registry.register(_DcgmCollector(meter, 1, server_id))

        def histogram(name: str, doc: str, buckets: tuple[float, ...]) -> Histogram:
            h = Histogram(name, doc, LABELS, registry=self.registry, buckets=buckets)
            return h.labels(model_name, "0")

        self.ttft = histogram(
            "vllm:time_to_first_token_seconds",
            "Histogram of time to first token in seconds.",
            TTFT_BUCKETS,
        )
        self.itl = histogram(
            "vllm:inter_token_latency_seconds",
            "Histogram of inter-token latency in seconds.",
            ITL_BUCKETS,
        )
        self.e2e = histogram(
            "vllm:e2e_request_latency_seconds",
            "Histogram of e2e request latency in seconds.",
            E2E_BUCKETS,
        )

    def exposition(self) -> bytes:
        return generate_latest(self.registry)

    def node_exposition(self, node: int) -> bytes | None:
        """Node ``node``'s (1..N) power and energy, or None: no such node, or no power model."""
        registry = self._nodes.get(node)
        return None if registry is None else generate_latest(registry)
