"""Server-side figures from /metrics snapshots at level boundaries."""

from __future__ import annotations

import json

import pytest

from analysis import server_metrics
from analysis.cli import main
from analysis.load import load
from tests.analysis_synthetic import closed_loop_level, write_run


def _sample(name, value, **labels):
    return {"name": name, "labels": labels, "value": value}


START = [
    _sample("vllm:generation_tokens_total", 1000, engine="0"),
    _sample("vllm:generation_tokens_total", 0, engine="1"),
    _sample("vllm:spec_decode_num_drafts_total", 0),
    _sample("vllm:spec_decode_num_draft_tokens_total", 0),
    _sample("vllm:spec_decode_num_accepted_tokens_total", 0),
    *(
        _sample("vllm:spec_decode_num_accepted_tokens_per_pos_total", 0, position=str(p))
        for p in range(3)
    ),
    _sample("vllm:prefix_cache_queries_total", 0),
    _sample("vllm:prefix_cache_hits_total", 0),
    _sample("vllm:time_to_first_token_seconds_sum", 1.0),
    _sample("vllm:time_to_first_token_seconds_count", 5),
    _sample("vllm:inter_token_latency_seconds_sum", 0.0),
    _sample("vllm:inter_token_latency_seconds_count", 0),
    _sample("vllm:time_to_first_token_seconds_bucket", 5, le="0.5"),
]
END = [
    _sample("vllm:generation_tokens_total", 1780, engine="0"),
    _sample("vllm:generation_tokens_total", 500, engine="1"),
    _sample("vllm:spec_decode_num_drafts_total", 100),
    _sample("vllm:spec_decode_num_draft_tokens_total", 300),
    _sample("vllm:spec_decode_num_accepted_tokens_total", 210),
    *(
        _sample("vllm:spec_decode_num_accepted_tokens_per_pos_total", v, position=str(p))
        for p, v in enumerate([90, 70, 50])
    ),
    _sample("vllm:prefix_cache_queries_total", 1000),
    _sample("vllm:prefix_cache_hits_total", 800),
    _sample("vllm:time_to_first_token_seconds_sum", 3.0),
    _sample("vllm:time_to_first_token_seconds_count", 15),
    _sample("vllm:inter_token_latency_seconds_sum", 5.0),
    _sample("vllm:inter_token_latency_seconds_count", 100),
    _sample("vllm:num_requests_running", 2),
    _sample("vllm:kv_cache_usage_perc", 0.25),
]


@pytest.fixture
def run_with_metrics(tmp_path):
    run = write_run(
        tmp_path / "results",
        "x",
        closed_loop_level(2, 0, 1000.0, ttft=0.2, itl=0.05, tps=20, latency=6.4),
    )
    lines = [
        {"level_index": 0, "concurrency": 2, "when": "start", "time": 1000.0, "samples": START},
        {"level_index": 0, "concurrency": 2, "when": "end", "time": 1010.0, "samples": END},
    ]
    (run / "server_metrics.jsonl").write_text(
        "".join(json.dumps(line) + "\n" for line in lines) + '{"level_in'
    )
    return run


def test_counter_deltas_give_the_speculative_decoding_figures(run_with_metrics):
    row = server_metrics.per_level(load([run_with_metrics]).runs).iloc[0]
    assert (row["label"], row["concurrency"]) == ("x", 2)
    assert row["gen_tok_s"] == pytest.approx(
        128.0
    )  # (1780 + 500 − 1000) tokens / 10 s, both engines
    assert row["acceptance_rate"] == pytest.approx(0.7)  # 210 / 300
    assert row["tokens_per_pass"] == pytest.approx(3.1)  # 1 + 210 / 100
    assert [row["accept_pos0"], row["accept_pos1"], row["accept_pos2"]] == pytest.approx(
        [0.9, 0.7, 0.5]
    )
    assert row["prefix_hit_rate"] == pytest.approx(0.8)
    assert row["ttft_ms_mean"] == pytest.approx(200.0)  # Δsum 2 s / Δcount 10
    assert row["itl_ms_mean"] == pytest.approx(50.0)
    assert (row["running"], row["kv_cache_usage_pct"]) == (2, 0.25)


def test_report_has_a_server_section_or_one_line_without_metrics(run_with_metrics, tmp_path):
    assert (
        main([str(run_with_metrics), "--out", str(tmp_path / "a"), "--no-charts", "--quiet"]) == 0
    )
    assert "**Server figures per level**" in (tmp_path / "a" / "report.md").read_text()
    (run_with_metrics / "server_metrics.jsonl").unlink()
    assert (
        main([str(run_with_metrics), "--out", str(tmp_path / "b"), "--no-charts", "--quiet"]) == 0
    )
    assert (
        "No server metrics (no server_metrics.jsonl)." in (tmp_path / "b" / "report.md").read_text()
    )
