"""The server metrics' options: the target's /metrics and every other node's Prometheus endpoint."""

from __future__ import annotations

from dataclasses import dataclass

from sparkload.config.option import SERVER_METRICS, Option
from sparkload.config.parsers import boolean, non_negative, scrape_targets

ROWS: tuple[Option, ...] = (
    Option(
        "--metrics-interval",
        5.0,
        "Seconds of the target's time (simulated time on the simulator) between mid-level "
        "/metrics samples (running, waiting, KV usage, power, energy); counters are read at "
        "every level boundary; 0 = boundaries only",
        SERVER_METRICS,
        non_negative,
    ),
    Option(
        "--no-server-metrics",
        False,
        "Do not scrape the target's /metrics",
        SERVER_METRICS,
        boolean,
    ),
    Option(
        "--scrape",
        [],
        "Another node's Prometheus endpoint, NAME=URL (repeatable): each Spark's vLLM /metrics, a "
        "dcgm-exporter, a node_exporter or sparkload node-exporter; read with the target's at "
        "every level, for per-node power, energy per token, clocks and temperature. Each must "
        "answer before the load; it never gets the API key",
        SERVER_METRICS,
        scrape_targets,
        argparse_extra={"action": "append"},
    ),
)


@dataclass(frozen=True)
class ServerMetricsOptions:
    metrics_interval: float
    no_server_metrics: bool
    scrape: dict[str, str]  # node name -> its Prometheus URL

    @property
    def enabled(self) -> bool:
        """The target's own /metrics are read (``--scrape`` nodes are read either way)."""
        return not self.no_server_metrics
