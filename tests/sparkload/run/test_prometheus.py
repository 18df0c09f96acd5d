"""The live Prometheus metrics: names by Prometheus's conventions, buckets fit for LLM latencies,
series per level and variant, read back with prometheus_client's own text parser."""

from __future__ import annotations

import pytest
import requests
from prometheus_client import REGISTRY, generate_latest
from prometheus_client.parser import text_string_to_metric_families

from sparkload.errors import ConfigError
from sparkload.records import REQUEST_METRICS
from sparkload.run.livetable import LevelTally
from sparkload.run.prometheus import MetricsServer, RunMetrics

FAMILIES = {
    "sparkload_ttft_seconds": "histogram",
    "sparkload_ttfo_seconds": "histogram",
    "sparkload_itl_seconds": "histogram",
    "sparkload_request_latency_seconds": "histogram",
    "sparkload_requests_completed": "counter",
    "sparkload_requests_failed": "counter",
    "sparkload_output_tokens": "counter",
    "sparkload_output_tokens_per_second": "gauge",
    "sparkload_requests_in_flight": "gauge",
    "sparkload_run_active": "gauge",
    "sparkload_level_index": "gauge",
    "sparkload_level_concurrency": "gauge",
    "sparkload_level_info": "gauge",
}
RUN = {"label": "nvfp4-mtp-tp1", "variant": "nvfp4-mtp"}


def record(level_index: int = 0, level: int = 4, **fields) -> dict:
    return {
        "phase": "measure",
        "status": "ok",
        "level_index": level_index,
        "level": level,
        "ttft": 0.3,
        "ttfo": 0.4,
        "itl": 0.02,
        "latency": 3.0,
        "output_tokens": 128,
        "tps": 42.0,
        **fields,
    }


def started(in_flight: int = 0, *tallies: LevelTally) -> RunMetrics:
    metrics = RunMetrics()
    metrics.run_began(RUN["label"], RUN["variant"], lambda: in_flight)
    for tally in tallies or (LevelTally(0, 4, 40),):
        metrics.level_began(tally)
    return metrics


def families(metrics: RunMetrics) -> dict:
    text = generate_latest(metrics.registry).decode()
    return {family.name: family for family in text_string_to_metric_families(text)}


def samples(metrics: RunMetrics, name: str) -> list:
    """Every sample called ``name`` (a family's, or a histogram's _bucket/_count/_sum)."""
    return [s for f in families(metrics).values() for s in f.samples if s.name == name]


def value(metrics: RunMetrics, name: str, **labels: str) -> float:
    matching = [s.value for s in samples(metrics, name) if labels.items() <= s.labels.items()]
    assert len(matching) == 1, (name, labels, matching)
    return matching[0]


def test_every_family_is_prefixed_sparkload_and_typed_as_prometheus_expects():
    found = families(started())
    assert {name: found[name].type for name in FAMILIES} == FAMILIES
    assert set(found) - set(FAMILIES) <= {f"{name}_created" for name in FAMILIES}


def test_counters_end_in_total_and_durations_are_in_seconds():
    metrics = started()
    metrics.took([record(), record(status="error", error_kind="timeout")])
    names = {s.name for f in families(metrics).values() for s in f.samples}
    counters = {"sparkload_requests_completed", "sparkload_requests_failed"}
    assert {f"{name}_total" for name in counters | {"sparkload_output_tokens"}} <= names
    assert {n for n in names if "_ms" in n or "millisecond" in n} == set()


def test_ttft_and_ttfo_buckets_run_from_5_ms_to_60_s():
    metrics = started()
    for name in ("sparkload_ttft_seconds", "sparkload_ttfo_seconds"):
        bounds = [s.labels["le"] for s in samples(metrics, f"{name}_bucket")]
        assert (bounds[0], bounds[-2], bounds[-1]) == ("0.005", "60.0", "+Inf")


def test_latency_buckets_start_at_5_ms_and_reach_past_a_minute():
    bounds = [
        s.labels["le"] for s in samples(started(), "sparkload_request_latency_seconds_bucket")
    ]
    assert bounds[0] == "0.005" and "60.0" in bounds and float(bounds[-2]) >= 300


def test_itl_buckets_run_from_1_ms_to_1_s():
    bounds = [s.labels["le"] for s in samples(started(), "sparkload_itl_seconds_bucket")]
    assert (bounds[0], bounds[-2], bounds[-1]) == ("0.001", "1.0", "+Inf")
    assert len(bounds) >= 15  # fine enough to read a p90 of 20-100 ms decode steps


def test_each_declared_histogram_is_served_with_its_buckets_and_observes_its_field():
    declared = [m for m in REQUEST_METRICS if m.histogram is not None]
    metrics = started()
    metrics.took([record(**{m.field: 0.25 for m in declared})])
    for metric in declared:
        assert metric.histogram is not None
        name = metric.histogram.name
        bounds = [float(s.labels["le"]) for s in samples(metrics, f"{name}_bucket")]
        assert bounds == [*metric.histogram.buckets, float("inf")]
        assert value(metrics, f"{name}_sum", level="4") == 0.25


def test_a_measured_record_is_observed_in_each_histogram_under_its_level_and_variant():
    metrics = started()
    metrics.took([record(ttft=0.3, ttfo=0.4, itl=0.02, latency=3.0)])
    labels = {**RUN, "level": "4"}
    for name, seconds, bound in (
        ("sparkload_ttft_seconds", 0.3, "0.3"),
        ("sparkload_ttfo_seconds", 0.4, "0.5"),
        ("sparkload_itl_seconds", 0.02, "0.02"),
        ("sparkload_request_latency_seconds", 3.0, "3.0"),
    ):
        assert value(metrics, f"{name}_sum", **labels) == pytest.approx(seconds)
        assert value(metrics, f"{name}_count", **labels) == 1
        buckets = {s.labels["le"]: s.value for s in samples(metrics, f"{name}_bucket")}
        bounds = list(buckets)
        below = bounds[bounds.index(bound) - 1]
        assert (buckets[below], buckets[bound]) == (0, 1), name


def test_a_record_without_a_ttfo_is_observed_in_the_others_only():
    metrics = started()
    metrics.took([record(ttfo=None)])
    assert value(metrics, "sparkload_ttfo_seconds_count", level="4") == 0
    assert value(metrics, "sparkload_ttft_seconds_count", level="4") == 1


def test_warmup_records_are_left_out_as_in_the_live_table():
    metrics = started()
    metrics.took([record(phase="warmup")])
    assert value(metrics, "sparkload_ttft_seconds_count", level="4") == 0
    assert value(metrics, "sparkload_requests_completed_total", level="4") == 0


def test_completed_requests_and_their_output_tokens_are_counted_per_level():
    metrics = started(0, LevelTally(0, 1, 10), LevelTally(1, 2, 20))
    metrics.took([record(0, 1, output_tokens=100), record(1, 2, output_tokens=50), record(1, 2)])
    assert value(metrics, "sparkload_requests_completed_total", level="1") == 1
    assert value(metrics, "sparkload_requests_completed_total", level="2") == 2
    assert value(metrics, "sparkload_output_tokens_total", level="2") == 178


def test_failures_are_counted_by_kind_and_observed_in_no_histogram():
    metrics = started()
    failed = {"status": "error", "ttft": None, "latency": 0.1}
    metrics.took(
        [
            record(error_kind="timeout", **failed),
            record(error_kind="http_500", **failed),
            record(error_kind="http_500", **failed),
        ]
    )
    assert value(metrics, "sparkload_requests_failed_total", kind="http_500") == 2
    assert value(metrics, "sparkload_requests_failed_total", kind="timeout") == 1
    assert value(metrics, "sparkload_request_latency_seconds_count", level="4") == 0
    assert value(metrics, "sparkload_requests_completed_total", level="4") == 0


def test_every_histogram_and_counter_series_of_a_level_exists_at_zero_from_its_start():
    metrics = started()
    for name in ("sparkload_ttft_seconds_count", "sparkload_requests_completed_total"):
        assert value(metrics, name, **RUN, level="4") == 0


def test_the_level_gauges_say_which_level_is_under_way_and_its_name():
    first, second = LevelTally(0, 1, 10), LevelTally(1, 8, 80)
    metrics = started(0, first, second)
    assert value(metrics, "sparkload_level_index", **RUN) == 1
    assert value(metrics, "sparkload_level_concurrency", **RUN) == 8
    assert [s.labels for s in samples(metrics, "sparkload_level_info")] == [
        {**RUN, "level": "8", "level_index": "1"}
    ]


def test_an_open_loop_level_is_named_by_its_rate_and_gauges_the_offered_rate():
    metrics = started(0, LevelTally(0, 64, None, arrival_rate=2.5))
    assert value(metrics, "sparkload_level_info", level="2.5/s") == 1
    assert value(metrics, "sparkload_level_offered_requests_per_second") == 2.5
    metrics.took([record(level=64)])
    assert value(metrics, "sparkload_requests_completed_total", level="2.5/s") == 1


def test_a_closed_loop_level_has_no_offered_rate():
    assert samples(started(), "sparkload_level_offered_requests_per_second") == []


def test_no_level_gauge_is_served_before_the_first_level():
    metrics = RunMetrics()
    metrics.run_began("x", "", lambda: 0)
    assert samples(metrics, "sparkload_level_index") == []
    assert value(metrics, "sparkload_run_active", label="x", variant="") == 1


def test_no_sample_is_served_before_the_first_run_begins():
    assert [f.samples for f in families(RunMetrics()).values() if f.samples] == []


def test_in_flight_is_read_from_the_collector_at_each_scrape():
    count = [3]
    metrics = RunMetrics()
    metrics.run_began("x", "", lambda: count[0])
    assert value(metrics, "sparkload_requests_in_flight") == 3
    count[0] = 7
    assert value(metrics, "sparkload_requests_in_flight") == 7


def test_a_closed_run_is_not_active_and_has_nothing_in_flight_or_under_way():
    metrics = started(5)
    metrics.took([record()])
    metrics.run_closed()
    assert value(metrics, "sparkload_run_active") == 0
    assert value(metrics, "sparkload_requests_in_flight") == 0
    assert samples(metrics, "sparkload_level_info") == []
    assert value(metrics, "sparkload_requests_completed_total", level="4") == 1


def test_output_tokens_per_second_is_the_live_tables_total_tok_s_of_each_level():
    tally = LevelTally(0, 4, 40)
    metrics = started(0, tally)
    for tps in (20.0, 30.0):
        tally.add(record(tps=tps))
    assert value(metrics, "sparkload_output_tokens_per_second", level="4") == pytest.approx(100.0)
    assert tally.row()["total_tps"] == pytest.approx(100.0)


def test_a_new_run_starts_every_series_afresh_under_its_own_label():
    metrics = started()
    metrics.took([record()])
    metrics.run_closed()
    metrics.run_began("second", "v2", lambda: 0)
    metrics.level_began(LevelTally(0, 2, 20))
    labels = {s.labels["label"] for s in samples(metrics, "sparkload_ttft_seconds_count")}
    assert labels == {"second"}
    assert value(metrics, "sparkload_ttft_seconds_count", level="2") == 0


def test_the_metrics_live_in_their_own_registry_not_the_processs_global_one():
    started().took([record()])
    assert "sparkload_" not in generate_latest(REGISTRY).decode()


def test_the_server_serves_the_registry_as_prometheus_text():
    metrics = started()
    metrics.took([record()])
    server = MetricsServer("127.0.0.1", 0, metrics.registry)
    try:
        answer = requests.get(f"http://127.0.0.1:{server.port}/metrics", timeout=5)
    finally:
        server.stop()
    assert answer.status_code == 200 and answer.headers["Content-Type"].startswith("text/plain")
    parsed = {f.name for f in text_string_to_metric_families(answer.text)}
    assert set(FAMILIES) <= parsed


def test_a_port_already_taken_is_one_clear_config_error():
    first = MetricsServer("127.0.0.1", 0, RunMetrics().registry)
    try:
        with pytest.raises(ConfigError) as raised:
            MetricsServer("127.0.0.1", first.port, RunMetrics().registry)
    finally:
        first.stop()
    assert str(raised.value).startswith(f"--prometheus-port {first.port}: cannot listen on ")
    assert "\n" not in str(raised.value)
