"""The per-request metrics, each declared once: its record field, name, unit, how the
simulator's time scale applies to it, and where it shows (the live table, the Prometheus
histograms, summary.json/summary.csv and the report, ``--slo``/``--check``).

Every surface reads this list (``run/livetable.py``, ``run/prometheus.py``,
``analysis/metrics.py``, ``analysis/slo.py``, and ``vocabulary.DURATION_FIELDS``/``RATE_FIELDS``)
instead of keeping its own, as aiperf declares each metric once. Its order is the surfaces':
the live table's columns and the histograms follow it, and so do the summary's, the plain
metrics' then the thinking ones'. The per-level figures that are not a per-request metric's
statistics (counts, rates, shares) are ``analysis/metrics.py``'s own.
"""

from __future__ import annotations

from dataclasses import dataclass

# How the simulator's time scale applies to a field (a simulator run ``time_scale`` × faster):
# a duration is multiplied by it, a rate per second divided (``scale_to_simulated_time``).
SCALED_DURATION, SCALED_RATE = "duration", "rate"
# The statistics a summary or a live table may show, and the quantile of each percentile
QUANTILES = {"p50": 0.5, "p90": 0.9, "p99": 0.99}

# Seconds. TTFT and TTFO: a cached short prompt's few ms to a queued long prefill's minute.
_TTFT_BUCKETS = (
    0.005, 0.01, 0.025, 0.05, 0.075, 0.1, 0.15, 0.2, 0.3, 0.5, 0.75,
    1.0, 1.5, 2.0, 3.0, 5.0, 7.5, 10.0, 15.0, 20.0, 30.0, 60.0,
)  # fmt: skip
# End to end: as TTFT's, on to the several minutes of a long reply at high concurrency.
_LATENCY_BUCKETS = (*_TTFT_BUCKETS, 90.0, 120.0, 180.0, 300.0)
# A request's inter-token latency: MTP's few ms per token to a saturated server's second.
_ITL_BUCKETS = (
    0.001, 0.002, 0.003, 0.005, 0.0075, 0.01, 0.0125, 0.015, 0.02, 0.025, 0.03,
    0.04, 0.05, 0.075, 0.1, 0.15, 0.2, 0.3, 0.5, 0.75, 1.0,
)  # fmt: skip


@dataclass(frozen=True)
class LiveFigures:
    """A metric's columns in the live table: ``heading`` titles the first statistic's column
    ("TTFT ms mean"), the others are titled by their statistic alone ("p50")."""

    heading: str
    stats: tuple[str, ...]  # "mean" or a key of QUANTILES


@dataclass(frozen=True)
class PrometheusHistogram:
    """A metric's histogram per level on ``--prometheus-port`` (observed in seconds)."""

    name: str
    doc: str
    buckets: tuple[float, ...]


@dataclass(frozen=True)
class RequestMetric:
    """One per-request metric: read as ``record[field]`` (the record's unit: seconds, tokens,
    tokens/s), shown as ``column`` (summary.csv's stem: ``ttft_ms_p90``) in ``unit`` (the
    record's value × ``factor``)."""

    field: str
    column: str
    factor: float
    title: str
    unit: str  # "ms", "s", "tok/s", or "" (a count)
    time: str = ""  # SCALED_DURATION, SCALED_RATE or "" (not scaled by the simulator's time scale)
    summary: bool = False  # mean/p50/p90/p99 per level in summary.json/summary.csv and the report
    intervals: bool = False  # bootstrap CIs of its p50 and p90 in the summary
    thinking: bool = False  # summary and live table only where some record reasoned or called tools
    server: bool = False  # the server's own figure: summary only where some record carries it
    bound: bool = False  # --slo/--check may bound it: ``ttft_p90_ms``, ``tps_p10``
    streamed: bool = False  # timed from a stream's tokens: none where the API does not stream
    live: LiveFigures | None = None
    histogram: PrometheusHistogram | None = None


def _kept(field: str, time: str) -> RequestMetric:
    """A field the records keep and the time scale applies to, with no statistics of its own
    (``analysis/metrics.py`` reads some for figures of their own: decode TPS, chunk ITL, send
    lateness)."""
    return RequestMetric(
        field, field, 1.0, field, "s" if time == SCALED_DURATION else "tok/s", time
    )


REQUEST_METRICS = (
    RequestMetric(
        "ttft", "ttft_ms", 1000.0, "TTFT", "ms", SCALED_DURATION,
        summary=True, intervals=True, bound=True, streamed=True,
        live=LiveFigures("TTFT ms", ("mean", "p50", "p90")),
        histogram=PrometheusHistogram(
            "sparkload_ttft_seconds", "Time to first token (any kind).", _TTFT_BUCKETS
        ),
    ),
    RequestMetric(
        "ttfo", "ttfo_ms", 1000.0, "TTFO", "ms", SCALED_DURATION,
        summary=True, intervals=True, thinking=True, bound=True, streamed=True,
        live=LiveFigures("TTFO ms", ("mean", "p50", "p90")),
        histogram=PrometheusHistogram(
            "sparkload_ttfo_seconds",
            "Time to first output token: content or a tool call, reasoning excluded.",
            _TTFT_BUCKETS,
        ),
    ),
    RequestMetric(
        "itl", "itl_ms", 1000.0, "ITL", "ms", SCALED_DURATION,
        summary=True, intervals=True, bound=True, streamed=True,
        live=LiveFigures("ITL ms", ("mean", "p50", "p90")),
        histogram=PrometheusHistogram(
            "sparkload_itl_seconds",
            "A request's inter-token latency: (last token - first) / (output tokens - 1).",
            _ITL_BUCKETS,
        ),
    ),
    RequestMetric(
        "tps", "tps", 1.0, "TPS", "tok/s", SCALED_RATE,
        summary=True, intervals=True, bound=True, streamed=True, live=LiveFigures("TPS", ("mean",)),
    ),
    RequestMetric(
        "latency", "latency_s", 1.0, "Latency", "s", SCALED_DURATION,
        summary=True, intervals=True, bound=True, live=LiveFigures("latency s", ("mean",)),
        histogram=PrometheusHistogram(
            "sparkload_request_latency_seconds",
            "End-to-end latency: the send to the stream's end.",
            _LATENCY_BUCKETS,
        ),
    ),
    # a thinking model's and an agent's (the summary's ``THINKING_COLUMNS``)
    RequestMetric(
        "reasoning_tokens", "reasoning_tokens", 1.0, "Reasoning tokens", "",
        summary=True, thinking=True,
    ),
    RequestMetric(
        "answer_tokens", "answer_tokens", 1.0, "Answer tokens", "",
        summary=True, thinking=True,
    ),
    RequestMetric(
        "reasoning_tps", "reasoning_tps", 1.0, "Reasoning TPS", "tok/s", SCALED_RATE,
        summary=True, thinking=True,
    ),
    RequestMetric(
        "answer_tps", "answer_tps", 1.0, "Answer TPS", "tok/s", SCALED_RATE,
        summary=True, thinking=True,
    ),
    RequestMetric(
        "tool_args_done", "tool_args_ms", 1000.0, "Tool arguments done", "ms", SCALED_DURATION,
        summary=True, thinking=True,
    ),
    # the server's own figures of each request (vLLM's per-request metrics; the summary's
    # ``SERVER_COLUMNS``, only where some record carries them): durations on the server's clock
    RequestMetric(
        "server_queue", "server_queue_ms", 1000.0, "Server queue", "ms", SCALED_DURATION,
        summary=True, server=True, bound=True,
    ),
    RequestMetric(
        "server_ttft", "server_ttft_ms", 1000.0, "Server TTFT", "ms", SCALED_DURATION,
        summary=True, server=True, bound=True,
    ),
    RequestMetric(
        "server_generation", "server_generation_ms", 1000.0, "Server generation", "ms",
        SCALED_DURATION, summary=True, server=True,
    ),
    RequestMetric(
        "server_itl", "server_itl_ms", 1000.0, "Server ITL", "ms", SCALED_DURATION,
        summary=True, server=True, bound=True,
    ),
    RequestMetric(
        "server_tps", "server_tps", 1.0, "Server TPS", "tok/s", SCALED_RATE,
        summary=True, server=True,
    ),
    # speculative decoding: tokens per verify step and the share of drafts accepted (not times)
    RequestMetric(
        "acceptance_length", "acceptance_length", 1.0, "Acceptance length", "",
        summary=True, server=True, bound=True,
    ),
    RequestMetric(
        "acceptance_rate", "acceptance_rate", 1.0, "Draft acceptance rate", "",
        summary=True, server=True, bound=True,
    ),
    *(
        _kept(name, SCALED_DURATION)
        for name in ("ttfb", "ttfc", "t_last_token", "queue_wait", "connect_time")
    ),
    *(_kept(f"chunk_gap_{stat}", SCALED_DURATION) for stat in ("mean", "p50", "p90", "p99", "max")),
    _kept("t_last_reasoning", SCALED_DURATION),
    _kept("decode_tps", SCALED_RATE),
)  # fmt: skip
METRIC_BY_FIELD = {m.field: m for m in REQUEST_METRICS}
