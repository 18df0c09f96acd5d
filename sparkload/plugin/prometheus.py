"""``--prometheus-port`` on the master (or the local process): the run's live metrics served
while Locust runs, fed by the collector (``run/prometheus.py`` is the exporter; this is its glue).

One ``RunMetrics`` per process, subscribed to every run's ``RunCollector`` as a watcher; the
server listens from the moment the options are checked (a port that cannot be listened on is
one line and exit 2, before any load) and until the process quits, so Prometheus sees the gap
between two runs of the web UI as a run that is not active, not as a target that is down. The
web form may change the port for the next run: the server moves with it.
"""

from __future__ import annotations

import logging

from sparkload.config import ResultsOptions
from sparkload.run.prometheus import MetricsServer, RunMetrics

logger = logging.getLogger("sparkload")


class PrometheusPlugin:
    def __init__(self) -> None:
        self.metrics = RunMetrics()
        self.server: MetricsServer | None = None

    def serve(self, results: ResultsOptions) -> RunMetrics | None:
        """Listen where the options say (nothing with port 0); the watcher a run's collector
        takes, or None when the live metrics are off. ConfigError if the port is not free."""
        asked = (results.prometheus_host, results.prometheus_port)
        if not results.prometheus_port:
            self.stop()
            return None
        if self.server is None or self.server.asked != asked:
            self.stop()
            self.server = MetricsServer(*asked, self.metrics.registry)
            logger.info("sparkload: Prometheus metrics at %s", self.server.url)
        return self.metrics

    def stop(self) -> None:
        if self.server is not None:
            self.server.stop()
            self.server = None
