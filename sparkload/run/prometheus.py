"""``--prometheus-port``: the run's live metrics as Prometheus text, from the records the master
takes, so Prometheus and Grafana see a load test beside DCGM's and ``sparkload node-exporter``'s
gauges while it runs.

``RunMetrics`` is a ``collector.RunWatcher``: the master's ``RunCollector`` hands it each
level's tally as the level begins and every batch of records as it arrives (in simulated time,
as the live table sees them), so the workers do nothing more per request or chunk. It keeps its
own ``CollectorRegistry`` (never the process's global one) and ``MetricsServer`` serves it.

Names follow Prometheus's conventions: the ``sparkload_`` prefix, base units (seconds),
``_total`` on counters. Every series carries the run's ``label`` and ``variant`` (the
manifest's), and the per-level ones the ``level`` as the live table names it ("4", or "2/s" in
an open-loop sweep). Only measured requests count (a level's warm-up is left out, as in the
table and the report), except in flight, which is every request sent and not yet back. A
record's ITL is the request's own (``RequestRecord.derive``'s mean gap per token), so the ITL
histogram has one observation per request, as the report's percentiles do. With the simulator's
``--time-scale`` the durations are simulated seconds; counters still advance in real time.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from gevent.pywsgi import WSGIServer
from prometheus_client import CollectorRegistry, Counter, Histogram, make_wsgi_app
from prometheus_client.core import GaugeMetricFamily, Metric
from prometheus_client.registry import Collector

from sparkload.errors import ConfigError
from sparkload.records import PHASE_MEASURE, REQUEST_METRICS, STATUS_OK
from sparkload.run.livetable import LevelTally

logger = logging.getLogger("sparkload")

RUN_LABELS = ("label", "variant")
LEVEL_LABELS = (*RUN_LABELS, "level")
# (record field, its histogram): one histogram per level of each metric that declares one
HISTOGRAMS = tuple((m.field, m.histogram) for m in REQUEST_METRICS if m.histogram is not None)


@dataclass(frozen=True)
class _Level:
    """A level's labels and its per-level series (looked up once, not per record)."""

    labels: tuple[str, str, str]
    histograms: tuple[tuple[str, Histogram], ...]  # (record field, its series)
    completed: Counter
    output_tokens: Counter


class RunMetrics:
    """The run's live metrics (a ``RunWatcher``): counters and histograms updated per record,
    gauges read from the collector's state at each scrape. A new run starts them afresh."""

    def __init__(self) -> None:
        self.registry = CollectorRegistry()
        self._histograms = {
            field: Histogram(
                spec.name, spec.doc, LEVEL_LABELS, registry=self.registry, buckets=spec.buckets
            )
            for field, spec in HISTOGRAMS
        }
        self._completed = Counter(
            "sparkload_requests_completed",
            "Measured requests answered in full.",
            LEVEL_LABELS,
            registry=self.registry,
        )
        self._failed = Counter(
            "sparkload_requests_failed",
            "Measured requests that failed, by failure kind (the records' error_kind).",
            (*LEVEL_LABELS, "kind"),
            registry=self.registry,
        )
        self._output_tokens = Counter(
            "sparkload_output_tokens",
            "Output tokens of the measured requests answered.",
            LEVEL_LABELS,
            registry=self.registry,
        )
        self.registry.register(_RunGauges(self))
        self.run: tuple[str, str] = ("", "")  # label, variant
        self.began = False  # a run has begun in this process (its series are served)
        self.active = False
        self.in_flight: Callable[[], int] = lambda: 0
        self.levels: dict[int, _Level] = {}  # by level index
        self.tallies: dict[int, LevelTally] = {}
        self.current: LevelTally | None = None

    # ----- RunWatcher ---------------------------------------------------------------------
    def run_began(self, label: str, variant: str, in_flight: Callable[[], int]) -> None:
        counters = (self._completed, self._failed, self._output_tokens)
        for metric in (*self._histograms.values(), *counters):
            metric.clear()
        self.run, self.in_flight = (label, variant), in_flight
        self.began = self.active = True
        self.levels, self.tallies, self.current = {}, {}, None

    def level_began(self, tally: LevelTally) -> None:
        """The level's series exist from its start (at 0), so a rate over them starts there."""
        self.tallies[tally.index] = tally
        self.current = tally
        self._level(tally.index, tally.name)

    def took(self, records: list[dict]) -> None:
        for record in records:
            if record.get("phase") != PHASE_MEASURE:
                continue
            level = self._level(record["level_index"], str(record.get("level", "")))
            if record.get("status") != STATUS_OK:
                kind = record.get("error_kind") or "unknown"
                self._failed.labels(*level.labels, kind).inc()
                continue
            level.completed.inc()
            level.output_tokens.inc(record.get("output_tokens") or 0)
            for field, series in level.histograms:
                value = record.get(field)
                if value is not None:
                    series.observe(value)

    def run_closed(self) -> None:
        """No level is under way any more; the counts stay until the next run begins."""
        self.active, self.current = False, None
        self.in_flight = lambda: 0

    # --------------------------------------------------------------------------------------
    def _level(self, index: int, name: str) -> _Level:
        """The level's series; a record of a level never begun is filed under its C."""
        level = self.levels.get(index)
        if level is None:
            labels = (*self.run, name)
            level = self.levels[index] = _Level(
                labels,
                tuple((f, h.labels(*labels)) for f, h in self._histograms.items()),
                self._completed.labels(*labels),
                self._output_tokens.labels(*labels),
            )
        return level


class _RunGauges(Collector):
    """The gauges, read from the run's state at each scrape: the level under way, requests in
    flight, each level's output tokens/s so far and whether a run is going."""

    def __init__(self, metrics: RunMetrics) -> None:
        self._metrics = metrics

    def describe(self) -> Iterator[Metric]:
        return iter(())  # nothing fixed: what it yields depends on the run

    def collect(self) -> Iterator[Metric]:
        m = self._metrics
        if not m.began:
            return  # no run yet: nothing to say, and no series with empty labels
        run = list(m.run)
        yield _gauge(
            "sparkload_run_active", "1 while a run goes, 0 once it ended.", run, int(m.active)
        )
        yield _gauge(
            "sparkload_requests_in_flight",
            "Requests sent and not yet back (all processes; warm-up included).",
            run,
            m.in_flight() if m.active else 0,
        )
        tps = GaugeMetricFamily(
            "sparkload_output_tokens_per_second",
            "A level's output tokens per second so far, as the live table's total tok/s: mean "
            "TPS x C closed loop, tokens over the level's wall time open loop.",
            labels=LEVEL_LABELS,
        )
        for tally in m.tallies.values():
            if (value := tally.total_tps) is not None:
                tps.add_metric([*run, tally.name], value)
        yield tps
        level = m.current
        if level is None:
            return
        yield _gauge(
            "sparkload_level_index",
            "The level under way, 0-based (the records' level_index).",
            run,
            level.index,
        )
        yield _gauge(
            "sparkload_level_concurrency",
            "Users of the level under way (closed loop: its C; open loop: the pool).",
            run,
            level.concurrency,
        )
        if level.arrival_rate is not None:
            yield _gauge(
                "sparkload_level_offered_requests_per_second",
                "The open-loop level's offered arrival rate (the target's time).",
                run,
                level.arrival_rate,
            )
        info = GaugeMetricFamily(
            "sparkload_level_info",
            "1 for the level under way, by its name as the live table gives it.",
            labels=[*LEVEL_LABELS, "level_index"],
        )
        info.add_metric([*run, level.name, str(level.index)], 1)
        yield info


def _gauge(name: str, doc: str, run: list[str], value: float) -> GaugeMetricFamily:
    family = GaugeMetricFamily(name, doc, labels=RUN_LABELS)
    family.add_metric(run, value)
    return family


class MetricsServer:
    """``registry`` as Prometheus text at http://HOST:PORT/metrics (any path), a greenlet
    server in this process (gevent's WSGI server, as Locust's web UI). A port that cannot be
    listened on is a ``ConfigError``: one line, before any load. Port 0 takes a free one."""

    def __init__(self, host: str, port: int, registry: CollectorRegistry) -> None:
        self.asked = (host, port)
        self._server = WSGIServer((host, port), make_wsgi_app(registry), log=None)
        try:
            self._server.start()
        except OSError as exc:
            raise ConfigError(
                f"--prometheus-port {port}: cannot listen on {host or '0.0.0.0'}:{port}: "
                f"{exc.strerror or exc}"
            ) from None
        self.port: int = self._server.server_port

    @property
    def url(self) -> str:
        return f"http://{self.asked[0] or '0.0.0.0'}:{self.port}/metrics"

    def stop(self) -> None:
        self._server.stop(timeout=1)
