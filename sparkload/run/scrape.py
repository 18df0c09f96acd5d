"""Prometheus endpoints read at level boundaries into ``server_metrics.jsonl``: the target's
``/metrics`` and every node of ``--scrape NAME=URL``.

One snapshot per node and scrape (the format ``analysis/reading/server_metrics.py`` and
``analysis/reading/telemetry.py`` read)::

    {"level_index": 0, "concurrency": 4, "when": "start" | "measure" | "during" | "end",
     "time": <epoch s>, "node": "api", "endpoint": "http://spark-1:8000",
     "samples": [{"name": ..., "labels": {...}, "value": ...}]}

``node`` names where the samples come from: ``api`` (or ``api-1``, ``api-2``, ... for several
endpoints) for the target's own ``/metrics``, which alone carry ``endpoint``; a ``--scrape``
node's own name otherwise. The vLLM figures of the report come from the endpoints only (a
``--scrape`` of the head's vLLM /metrics would count its tokens twice); the node telemetry
(power, energy, clocks, temperature, CPU, memory) from every node.

Kept: ``vllm:`` samples (a vLLM exposition also carries Python process metrics) and the node
telemetry families of ``records.TELEMETRY`` (dcgm-exporter, ``sparkload node-exporter``,
node_exporter); ``*_created`` samples are dropped: they are creation timestamps, not values.
Lines of other families are dropped before parsing, which is what costs (a node_exporter serves
thousands). Labels are kept as the server wrote them. Parsing uses prometheus_client's own text
parser (DESIGN section 6).

A target without ``/metrics`` (404, refused connection, an HTML page, nothing kept) is not an
error: its first scrape says so in one line and the run goes on without server figures. A
``--scrape`` node is the user's explicit request, so ``check_nodes`` asks each before the load
and a node that does not answer is bad input. The API key goes out in the Authorization header
of the target's ``/metrics`` only, never to a ``--scrape`` node (another host), never logged.
"""

from __future__ import annotations

import logging
import re
import time
from collections.abc import Iterable
from dataclasses import dataclass

import requests
from prometheus_client.parser import text_string_to_metric_families

from sparkload.errors import ConfigError
from sparkload.records import CPU_SECONDS, TELEMETRY, telemetry_family
from sparkload.transport.target import Endpoint

logger = logging.getLogger("sparkload")
SCRAPE_TIMEOUT = 3.0  # seconds; a scrape of vLLM's /metrics takes a few milliseconds
METRIC_PREFIX = "vllm:"
NO_METRICS_MESSAGE = "server exposes no /metrics; server-side figures skipped"
API_NODE = "api"
_NAME_END = re.compile(r"[{\s]")


def metrics_url(endpoint_url: str) -> str:
    """``/metrics`` sits at the server root, beside ``/v1`` (vLLM serves both on one port)."""
    return Endpoint.parse(endpoint_url).base + "/metrics"


# What a scrape in the middle of a level keeps: vLLM's gauges (~0 at the boundaries of a
# closed-loop level), the node gauges (power, clocks, temperature, utilization, memory) and the
# energy counters, so that a node's peak power is read from the same counter as its mean (the
# highest mean between two samples; ``analysis/reading/telemetry.py``); the other counters (CPU
# seconds, vLLM's) are read at the boundaries.
GAUGES = (
    "vllm:num_requests_running",
    "vllm:num_requests_waiting",
    "vllm:kv_cache_usage_perc",
    "vllm:gpu_cache_usage_perc",
    *(f.name for f in TELEMETRY if f.quantity != CPU_SECONDS),
)


@dataclass(frozen=True)
class Source:
    """One Prometheus endpoint of a run: the node it speaks for and where it is read."""

    node: str
    url: str
    endpoint: str | None = None  # the API endpoint whose /metrics this is (None: --scrape)


def sources(endpoints: Iterable[str], nodes: dict[str, str]) -> list[Source]:
    """The endpoints' /metrics (nodes ``api``, or ``api-1``...) and then every --scrape node;
    a --scrape name that an endpoint already has is bad input."""
    endpoints = list(endpoints)
    names = (
        [API_NODE]
        if len(endpoints) == 1
        else [f"{API_NODE}-{i + 1}" for i in range(len(endpoints))]
    )
    taken = set(names) & set(nodes)
    if taken:
        raise ConfigError(
            f"--scrape: {', '.join(sorted(taken))} is the name of the target's own /metrics; "
            "pick another"
        )
    found = [
        Source(name, metrics_url(url), url) for name, url in zip(names, endpoints, strict=True)
    ]
    return found + [Source(name, url) for name, url in nodes.items()]


def simulator_nodes(url: str, tp: int) -> dict[str, str]:
    """The built-in simulator's nodes, ``spark-1`` .. ``spark-N`` at ``/node/<i>/metrics``,
    when it simulates a TP cluster (one node is its /metrics already)."""
    if tp < 2:
        return {}
    return {f"spark-{i}": f"{url.rstrip('/')}/node/{i}/metrics" for i in range(1, tp + 1)}


def _metric_name(line: str) -> str:
    body = line[7:] if line.startswith(("# TYPE ", "# HELP ")) else line
    return _NAME_END.split(body, 1)[0]


def _kept(name: str) -> bool:
    return name.startswith(METRIC_PREFIX) or telemetry_family(name) is not None


def _only(text: str, names: tuple[str, ...] | None) -> str:
    """The lines of the kept families (and their comments): parsing 700 lines costs ~10 ms, a
    few ~0.1 ms. ``names``: only these families (a counter's ``_total`` samples included)."""
    if names is None:
        return "".join(line + "\n" for line in text.splitlines() if _kept(_metric_name(line)))
    wanted = set(names)
    return "".join(
        line + "\n"
        for line in text.splitlines()
        if _metric_name(line).removesuffix("_total") in wanted
    )


def parse_samples(text: str, names: tuple[str, ...] | None = None) -> list[dict]:
    """The ``vllm:`` and node telemetry samples of a Prometheus text exposition; ValueError if
    it is not one. ``names``: keep only these families (filtered before parsing)."""
    samples = []
    for family in text_string_to_metric_families(_only(text, names)):
        for sample in family.samples:
            if not _kept(sample.name) or sample.name.endswith("_created"):
                continue
            samples.append(
                {"name": sample.name, "labels": dict(sample.labels), "value": float(sample.value)}
            )
    return samples


class NoMetrics(Exception):
    """The endpoint has no usable Prometheus /metrics; the message says why (no secrets)."""


def fetch_samples(
    url: str,
    api_key: str = "",
    timeout: float = SCRAPE_TIMEOUT,
    names: tuple[str, ...] | None = None,
    verify_tls: bool = True,
) -> list[dict]:
    """GET ``url`` and parse it; NoMetrics when there is nothing usable there."""
    headers = {"Accept": "text/plain"}
    if api_key:
        headers["Authorization"] = f"Bearer {api_key}"
    try:
        response = requests.get(url, headers=headers, timeout=timeout, verify=verify_tls)
    except requests.exceptions.RequestException as exc:
        raise NoMetrics(f"{url}: {type(exc).__name__}") from None
    if response.status_code != 200:
        raise NoMetrics(f"{url}: HTTP {response.status_code}")
    try:
        samples = parse_samples(response.text, names)
    except (ValueError, TypeError, IndexError, KeyError):
        raise NoMetrics(f"{url}: not Prometheus text") from None
    if not samples and names is None:
        raise NoMetrics(f"{url}: no vllm: or node telemetry series")
    return samples


def snapshot(
    source: Source,
    level_index: int,
    concurrency: int,
    when: str,
    samples: list[dict],
    now: float | None = None,
) -> dict:
    entry = {
        "level_index": level_index,
        "concurrency": concurrency,
        "when": when,
        "time": time.time() if now is None else now,
        "node": source.node,
    }
    if source.endpoint is not None:
        entry["endpoint"] = source.endpoint
    entry["samples"] = samples
    return entry


def check_nodes(
    nodes: list[Source], timeout: float = SCRAPE_TIMEOUT, verify_tls: bool = True
) -> None:
    """Every --scrape node answers with something kept, before any load; ConfigError if not."""
    for source in nodes:
        try:
            fetch_samples(source.url, timeout=timeout, verify_tls=verify_tls)
        except NoMetrics as exc:
            raise ConfigError(f"--scrape {source.node}: {exc}") from None


class MetricsScraper:
    """Scrapes every source of a run; an endpoint that fails its first scrape is dropped.

    Runs on the master (or the local process) only, at level boundaries: between levels no
    request is in flight, so the few milliseconds of a parse delay no stream. ``when="during"``
    samples (only the gauges ``GAUGES``, filtered before parsing) are taken by the collector.
    """

    def __init__(
        self,
        sources: list[Source],
        api_key: str = "",
        timeout: float = SCRAPE_TIMEOUT,
        verify_tls: bool = True,
    ) -> None:
        self.sources = list(sources)
        self.api_key = api_key
        self.timeout = timeout
        self.verify_tls = verify_tls
        self._live: dict[str, bool] = {}  # node → has /metrics (after its first scrape)
        self.skipped_logged = False

    @property
    def active(self) -> bool:
        """False once no source is left to scrape."""
        return any(self._live.get(source.node, True) for source in self.sources)

    def take(
        self, level_index: int, concurrency: int, when: str, names: tuple[str, ...] | None = None
    ) -> list[dict]:
        """A snapshot of every source that has metrics (``names``: only these families)."""
        snapshots = []
        for source in self.sources:
            live = self._live.get(source.node)
            if live is False or (names is not None and live is None):
                continue
            key = self.api_key if source.endpoint is not None else ""
            try:
                samples = fetch_samples(source.url, key, self.timeout, names, self.verify_tls)
            except NoMetrics as exc:
                if live is None:  # never answered: this server has no /metrics
                    self._live[source.node] = False
                    self._note_skipped(source, str(exc))
                else:
                    logger.warning("sparkload: /metrics scrape failed (%s); snapshot missing", exc)
                continue
            self._live[source.node] = True
            if samples:  # a mid-level sample of a node without gauges has nothing to keep
                snapshots.append(snapshot(source, level_index, concurrency, when, samples))
        return snapshots

    def _note_skipped(self, source: Source, reason: str) -> None:
        if source.endpoint is None:
            logger.warning(
                "sparkload: --scrape %s: %s; not scraped in this run", source.node, reason
            )
        elif not self.skipped_logged:
            self.skipped_logged = True
            logger.info("%s (%s)", NO_METRICS_MESSAGE, reason)
