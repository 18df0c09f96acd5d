"""Server-side figures from /metrics snapshots at level boundaries."""

from __future__ import annotations

import json

import numpy as np
import pytest

from analysis.cli import main
from analysis.reading import server_metrics
from analysis.reading.load import load
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
    row = server_metrics.per_level(load([run_with_metrics])).iloc[0]
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


def test_the_gauges_at_a_levels_end_are_not_taken_for_the_levels(run_with_metrics):
    row = server_metrics.per_level(load([run_with_metrics])).iloc[0]
    assert np.isnan(row["running"]) and np.isnan(row["kv_cache_usage_pct"])
    assert row["gauge_samples"] == 0


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


# ----- gauges and rates over the measured requests' window -------------------------------------
# Two users, one request each, both sent at T0 and back at T0 + 6.4 (real seconds): the window.
T0 = 1000.0


def gauges(running: float, kv: float) -> list[dict]:
    return [_sample("vllm:num_requests_running", running), _sample("vllm:kv_cache_usage_perc", kv)]


def tokens(count: float) -> list[dict]:
    return [_sample("vllm:generation_tokens_total", count)]


def snap(when: str, time: float, samples: list[dict]) -> dict:
    return {"level_index": 0, "concurrency": 2, "when": when, "time": time, "samples": samples}


def level_run(tmp_path, snapshots: list[dict], time_scale: float = 1.0):
    records = closed_loop_level(2, 0, T0, ttft=0.2, itl=0.05, tps=20, latency=6.4, per_user=1)
    run = write_run(tmp_path / "results", "x", records, time_scale=time_scale)
    (run / "server_metrics.jsonl").write_text("".join(json.dumps(s) + "\n" for s in snapshots))
    return run


def test_gauges_are_read_from_the_samples_inside_the_measured_requests_window(tmp_path):
    run = level_run(
        tmp_path,
        [
            snap("start", T0 - 5, tokens(0)),
            snap("during", T0 - 3, gauges(1, 0.01)),  # the warm-up
            snap("measure", T0 - 1, tokens(128)),
            *(snap("during", T0 + dt, gauges(2, kv)) for dt, kv in ((1, 0.2), (3, 0.3), (5, 0.4))),
            snap("during", T0 + 7, gauges(0, 0.0)),  # after the last answer
            snap("end", T0 + 8, tokens(384)),
        ],
    )
    row = server_metrics.per_level(load([run])).iloc[0]
    assert (row["running"], row["running_max"]) == (2.0, 2.0)
    assert row["kv_cache_usage_pct"] == pytest.approx(0.3)
    assert row["gauge_samples"] == 3


def test_a_level_with_fewer_than_three_samples_in_its_window_has_no_gauges(tmp_path):
    run = level_run(
        tmp_path,
        [
            snap("measure", T0 - 1, tokens(0)),
            snap("during", T0 + 1, gauges(2, 0.2)),
            snap("during", T0 + 3, gauges(2, 0.3)),
            snap("during", T0 + 7, gauges(0, 0.0)),
            snap("end", T0 + 8, tokens(256)),
        ],
    )
    row = server_metrics.per_level(load([run])).iloc[0]
    assert np.isnan(row["running"]) and row["gauge_samples"] == 2
    out = tmp_path / "report"
    assert main([str(run), "--out", str(out), "--no-charts", "--quiet"]) == 0
    report = (out / "report.md").read_text()
    table = report[report.index("**Server figures per level**") :]
    row_line = next(line for line in table.splitlines() if line.startswith("| x | 2 |"))
    assert "| too few samples |" in row_line


def test_generation_rate_divides_by_the_requests_window_the_snapshots_bracket(tmp_path):
    # 256 tokens in 6.4 s of requests, snapshots 9 s apart: 40 tok/s, not 28.4
    run = level_run(
        tmp_path, [snap("measure", T0 - 1, tokens(0)), snap("end", T0 + 8, tokens(256))]
    )
    assert server_metrics.per_level(load([run])).iloc[0]["gen_tok_s"] == pytest.approx(40.0)


def test_the_generation_rate_of_a_simulated_run_is_in_the_simulators_time(tmp_path):
    run = level_run(
        tmp_path,
        [snap("measure", T0 - 1, tokens(0)), snap("end", T0 + 8, tokens(256))],
        time_scale=10.0,
    )
    assert server_metrics.per_level(load([run])).iloc[0]["gen_tok_s"] == pytest.approx(4.0)
