"""The target's Prometheus ``/metrics``, read at level boundaries into ``server_metrics.jsonl``.

One snapshot per endpoint and scrape (the format ``analysis/server_metrics.py`` reads)::

    {"level_index": 0, "concurrency": 4, "when": "start" | "during" | "end", "time": <epoch s>,
     "endpoint": "http://spark-1:8000", "samples": [{"name": ..., "labels": {...}, "value": ...}]}

Only ``vllm:`` samples are kept (a vLLM exposition also carries Python process metrics), and
``*_created`` samples are dropped: they are creation timestamps, not values. Labels are kept as
the server wrote them; analysis sums over ``engine`` and every other label but ``position``.
Parsing uses prometheus_client's own text parser (DESIGN section 6).

A server without ``/metrics`` (404, refused connection, an HTML page, no ``vllm:`` series) is
not an error: ``scrape`` returns None and the run goes on without server figures. The API key,
when one is set, goes out in the Authorization header and nowhere else (never logged).
"""

from __future__ import annotations

import logging
import re
import time

import requests
from prometheus_client.parser import text_string_to_metric_families

from sparkload.target import Endpoint

logger = logging.getLogger("sparkload")
SCRAPE_TIMEOUT = 3.0  # seconds; a scrape of vLLM's /metrics takes a few milliseconds
METRIC_PREFIX = "vllm:"
NO_METRICS_MESSAGE = "server exposes no /metrics; server-side figures skipped"
_NAME_END = re.compile(r"[{\s]")


def metrics_url(endpoint_url: str) -> str:
    """``/metrics`` sits at the server root, beside ``/v1`` (vLLM serves both on one port)."""
    return Endpoint.parse(endpoint_url).base + "/metrics"


GAUGES = (
    "vllm:num_requests_running",
    "vllm:num_requests_waiting",
    "vllm:kv_cache_usage_perc",
    "vllm:gpu_cache_usage_perc",
)  # what a scrape in the middle of a level keeps


def _metric_name(line: str) -> str:
    body = line[7:] if line.startswith(("# TYPE ", "# HELP ")) else line
    return _NAME_END.split(body, 1)[0]


def _only(text: str, names: tuple[str, ...]) -> str:
    """The lines of ``names`` (and their comments): parsing 700 lines costs ~10 ms, a few
    ~0.1 ms."""
    wanted = set(names)
    return "".join(line + "\n" for line in text.splitlines() if _metric_name(line) in wanted)


def parse_samples(text: str, names: tuple[str, ...] | None = None) -> list[dict]:
    """The ``vllm:`` samples of a Prometheus text exposition; ValueError if it is not one.

    ``names``: keep only these metrics (filtered before parsing, which is what costs)."""
    if names is not None:
        text = _only(text, names)
    samples = []
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            if not sample.name.startswith(METRIC_PREFIX) or sample.name.endswith("_created"):
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
    if not samples:
        raise NoMetrics(f"{url}: no vllm: series")
    return samples


def scrape(
    endpoint_url: str,
    level_index: int,
    concurrency: int,
    when: str,
    api_key: str = "",
    timeout: float = SCRAPE_TIMEOUT,
    verify_tls: bool = True,
) -> dict | None:
    """One snapshot of one endpoint, or None when it exposes no (vLLM) /metrics."""
    try:
        samples = fetch_samples(metrics_url(endpoint_url), api_key, timeout, verify_tls=verify_tls)
    except NoMetrics:
        return None
    return snapshot(endpoint_url, level_index, concurrency, when, samples)


def snapshot(
    endpoint_url: str,
    level_index: int,
    concurrency: int,
    when: str,
    samples: list[dict],
    now: float | None = None,
) -> dict:
    return {
        "level_index": level_index,
        "concurrency": concurrency,
        "when": when,
        "time": time.time() if now is None else now,
        "endpoint": endpoint_url,
        "samples": samples,
    }


class MetricsScraper:
    """Scrapes every endpoint of a run; an endpoint that fails its first scrape is dropped.

    Runs on the master (or the local process) only, at level boundaries: between levels no
    request is in flight, so the few milliseconds of a parse delay no stream. ``when="during"``
    samples (only the gauges ``GAUGES``, filtered before parsing) are taken by the collector.
    """

    def __init__(
        self,
        endpoints: list[str],
        api_key: str = "",
        timeout: float = SCRAPE_TIMEOUT,
        verify_tls: bool = True,
    ) -> None:
        self.endpoints = list(endpoints)
        self.api_key = api_key
        self.timeout = timeout
        self.verify_tls = verify_tls
        self._live: dict[str, bool] = {}  # endpoint → has /metrics (after its first scrape)
        self.skipped_logged = False

    @property
    def active(self) -> bool:
        """False once no endpoint is left to scrape."""
        return any(self._live.get(url, True) for url in self.endpoints)

    def take(
        self, level_index: int, concurrency: int, when: str, names: tuple[str, ...] | None = None
    ) -> list[dict]:
        """A snapshot of every endpoint that has /metrics (``names``: only these metrics)."""
        snapshots = []
        for url in self.endpoints:
            if self._live.get(url) is False or (names is not None and url not in self._live):
                continue
            try:
                samples = fetch_samples(
                    metrics_url(url), self.api_key, self.timeout, names, self.verify_tls
                )
            except NoMetrics as exc:
                if url not in self._live:  # never answered: this server has no /metrics
                    self._live[url] = False
                    self._note_skipped(str(exc))
                else:
                    logger.warning("sparkload: /metrics scrape failed (%s); snapshot missing", exc)
                continue
            self._live[url] = True
            snapshots.append(snapshot(url, level_index, concurrency, when, samples))
        return snapshots

    def _note_skipped(self, reason: str) -> None:
        if not self.skipped_logged:
            self.skipped_logged = True
            logger.info("%s (%s)", NO_METRICS_MESSAGE, reason)
