"""Reading a Prometheus exposition into snapshot samples, and what analysis makes of them."""

from __future__ import annotations

import json

import pytest

from analysis.reading import server_metrics
from analysis.reading.load import load
from sparkload.run.scrape import (
    GAUGES,
    NoMetrics,
    Source,
    fetch_samples,
    metrics_url,
    parse_samples,
    snapshot,
)

EXPOSITION = """\
# HELP python_gc_objects_collected_total Objects collected during gc
# TYPE python_gc_objects_collected_total counter
python_gc_objects_collected_total{generation="0"} 1234.0
# HELP vllm:num_requests_running Number of requests in model execution batches.
# TYPE vllm:num_requests_running gauge
vllm:num_requests_running{engine="0",model_name="m"} 3.0
vllm:num_requests_running{engine="1",model_name="m"} 1.0
# HELP vllm:generation_tokens_total Number of generation tokens processed.
# TYPE vllm:generation_tokens_total counter
vllm:generation_tokens_total{engine="0",model_name="m"} 700.0
vllm:generation_tokens_total{engine="1",model_name="m"} 300.0
vllm:generation_tokens_created{engine="0",model_name="m"} 1.7960004465e+09
vllm:generation_tokens_created{engine="1",model_name="m"} 1.7960004465e+09
# HELP vllm:spec_decode_num_accepted_tokens_per_pos_total Accepted tokens per draft position.
# TYPE vllm:spec_decode_num_accepted_tokens_per_pos_total counter
vllm:spec_decode_num_accepted_tokens_per_pos_total{engine="0",model_name="m",position="0"} 80.0
vllm:spec_decode_num_accepted_tokens_per_pos_total{engine="0",model_name="m",position="1"} 55.0
# HELP vllm:inter_token_latency_seconds Histogram of inter-token latency in seconds.
# TYPE vllm:inter_token_latency_seconds histogram
vllm:inter_token_latency_seconds_bucket{engine="0",le="0.05",model_name="m"} 0.0
vllm:inter_token_latency_seconds_bucket{engine="0",le="+Inf",model_name="m"} 1.0
vllm:inter_token_latency_seconds_count{engine="0",model_name="m"} 1.0
vllm:inter_token_latency_seconds_sum{engine="0",model_name="m"} 0.06
vllm:inter_token_latency_seconds_created{engine="0",model_name="m"} 1.7960004465e+09
"""


API = Source("api", "http://a/metrics", "http://a")


def names(samples):
    return {s["name"] for s in samples}


def test_only_vllm_samples_are_kept():
    assert "python_gc_objects_collected_total" not in names(parse_samples(EXPOSITION))


def test_created_timestamps_are_dropped():
    assert not [n for n in names(parse_samples(EXPOSITION)) if n.endswith("_created")]


def test_counter_samples_keep_the_total_suffix_and_their_labels():
    samples = parse_samples(EXPOSITION)
    tokens = [s for s in samples if s["name"] == "vllm:generation_tokens_total"]
    assert sorted((s["labels"]["engine"], s["value"]) for s in tokens) == [
        ("0", 700.0),
        ("1", 300.0),
    ]


def test_histogram_parts_are_separate_samples():
    found = names(parse_samples(EXPOSITION))
    assert {
        "vllm:inter_token_latency_seconds_sum",
        "vllm:inter_token_latency_seconds_count",
        "vllm:inter_token_latency_seconds_bucket",
    } <= found


def test_per_position_counters_keep_their_position_label():
    samples = parse_samples(EXPOSITION)
    positions = {
        s["labels"]["position"]: s["value"]
        for s in samples
        if s["name"] == "vllm:spec_decode_num_accepted_tokens_per_pos_total"
    }
    assert positions == {"0": 80.0, "1": 55.0}


def test_a_gauge_filter_keeps_only_the_named_gauges():
    samples = parse_samples(EXPOSITION, GAUGES)
    assert names(samples) == {"vllm:num_requests_running"}
    assert sum(s["value"] for s in samples) == 4.0


def test_a_page_that_is_not_prometheus_text_has_no_samples():
    assert parse_samples("<html><body>Not here</body></html>\n") == []


def test_a_broken_line_of_a_kept_family_raises_value_error():
    with pytest.raises(ValueError):
        parse_samples('vllm:num_requests_running{engine="0" 3.0\n')


def test_metrics_sit_at_the_server_root_whatever_the_api_path():
    assert metrics_url("http://spark-1:8000/v1") == "http://spark-1:8000/metrics"
    assert metrics_url("https://gw.example/openai/v1") == "https://gw.example/metrics"


def test_a_refused_connection_is_no_metrics_not_an_error():
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]  # closed again: nothing listens there
    with pytest.raises(NoMetrics):
        fetch_samples(f"http://127.0.0.1:{port}/metrics", timeout=1.0)


def test_analysis_sums_counters_over_engines_between_two_snapshots(tmp_path):
    start = parse_samples(EXPOSITION)
    end = parse_samples(EXPOSITION.replace(" 700.0", " 900.0").replace(" 300.0", " 350.0"))
    run = tmp_path / "run"
    run.mkdir()
    (run / "manifest.json").write_text(
        json.dumps({"label": "x", "status": "complete", "time_scale": 1})
    )
    (run / "requests.jsonl").write_text(
        json.dumps(
            {
                "level": 2,
                "level_index": 0,
                "phase": "measure",
                "status": "ok",
                "latency": 1.0,
                "start_time": 0.0,
                "output_tokens": 10,
                "tps": 10.0,
                "ttft": 0.1,
            }
        )
        + "\n"
    )
    lines = [
        snapshot(API, 0, 2, "start", start, now=100.0),
        snapshot(API, 0, 2, "end", end, now=110.0),
    ]
    (run / "server_metrics.jsonl").write_text("".join(json.dumps(line) + "\n" for line in lines))
    row = server_metrics.per_level(load([run])).iloc[0]
    assert row["gen_tok_s"] == pytest.approx((200 + 50) / 10)  # both engines' deltas over 10 s
