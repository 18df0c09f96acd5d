"""Energy and node telemetry per level and node: the arithmetic, the choice of method, and what
reaches the report and summary.json."""

from __future__ import annotations

import json

import numpy as np
import pytest

from analysis.cli import main as analysis_main
from analysis.reading import server_metrics, telemetry
from analysis.reading.load import load
from tests.analysis_synthetic import closed_loop_level, write_run
from tests.report_files import table_path

T0 = 1000.0
ENERGY = "DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION_total"
POWER = "DCGM_FI_DEV_POWER_USAGE"


def sample(name: str, value: float, **labels: str) -> dict:
    return {"name": name, "labels": labels, "value": value}


def snap(when: str, time: float, samples: list[dict], node: str = "api", **extra) -> dict:
    entry = {"level_index": 0, "concurrency": 2, "when": when, "time": time, "node": node}
    if node == "api":
        entry["endpoint"] = "http://127.0.0.1:8000/v1"
    return {**entry, **extra, "samples": samples}


def run_dir(tmp_path, snapshots: list[dict], time_scale: float = 1.0, per_user: int = 10):
    """A C=2 level, 2 x ``per_user`` measured requests of 128 tokens, with these snapshots."""
    records = closed_loop_level(
        2, 0, T0, ttft=0.2, itl=0.05, tps=20, latency=6.4, per_user=per_user
    )
    run = write_run(tmp_path / "results", "x", records, time_scale=time_scale)
    lines = "".join(json.dumps(s) + "\n" for s in snapshots)
    (run / "server_metrics.jsonl").write_text(lines)
    return run


def nodes_of(run) -> dict[str, dict]:
    frame = telemetry.per_node(load([run]))
    return {row["node"]: row for row in frame.to_dict("records")}


# ----- arithmetic ------------------------------------------------------------------------------
def test_a_counter_gives_the_sum_of_its_gpus_deltas():
    start = {(("gpu", "0"),): 100.0, (("gpu", "1"),): 50.0}
    end = {(("gpu", "0"),): 160.0, (("gpu", "1"),): 90.0}
    assert telemetry.counter_joules(start, end) == 100.0


def test_a_counter_that_went_down_is_not_used():
    assert telemetry.counter_joules({(): 500.0}, {(): 20.0}) is None


def test_constant_power_integrates_to_watts_times_seconds():
    assert telemetry.trapezoid_joules([0, 4, 10], [60, 60, 60]) == pytest.approx(600.0)


def test_power_is_taken_as_linear_between_samples():
    assert telemetry.trapezoid_joules([0, 10], [20, 80]) == pytest.approx(500.0)


def test_joules_per_token_and_tokens_per_joule_are_inverse():
    assert telemetry.per_token(600.0, 300.0) == (2.0, 0.5)


def test_no_tokens_give_no_joules_per_token():
    j_per_token, tokens_per_j = telemetry.per_token(600.0, 0.0)
    assert np.isnan(j_per_token) and tokens_per_j == 0.0


def test_the_idle_edges_come_off_a_curve_at_the_idle_draw():
    # bounds at 0 and 10 s, requests from 1 s to 9 s: 2 s of edges at 25 W
    curve, edges = telemetry.trimmed([(0.0, 0.0), (5.0, 300.0), (10.0, 600.0)], (1.0, 9.0), 25.0)
    assert curve == [(1.0, 25.0), (5.0, 300.0), (9.0, 575.0)]
    assert edges == 2.0


def test_requests_outside_the_bounds_leave_the_curve_as_measured():
    curve = [(0.0, 0.0), (10.0, 600.0)]
    assert telemetry.trimmed(curve, (-1.0, 9.0), 25.0) == (curve, 0.0)


def test_the_peak_is_the_highest_mean_power_between_two_readings():
    assert telemetry.peak_watts([(0.0, 0.0), (2.0, 100.0), (3.0, 190.0), (6.0, 340.0)]) == 90.0


def test_the_peak_is_never_below_the_mean_over_the_same_curve():
    curve = [(0.0, 0.0), (4.0, 238.0), (4.5, 290.0), (9.0, 560.0)]
    assert telemetry.peak_watts(curve) >= (curve[-1][1] - curve[0][1]) / (curve[-1][0] - 0.0)


def test_cpu_busy_is_the_share_of_cpu_seconds_not_idle():
    start = {(("cpu", "0"), ("mode", "idle")): 100.0, (("cpu", "0"), ("mode", "user")): 10.0}
    end = {(("cpu", "0"), ("mode", "idle")): 106.0, (("cpu", "0"), ("mode", "user")): 14.0}
    assert telemetry.cpu_busy_pct(start, end) == pytest.approx(40.0)


# ----- a run -----------------------------------------------------------------------------------
def test_an_energy_counter_in_mj_gives_joules_watts_and_joules_per_token(tmp_path):
    run = run_dir(
        tmp_path,
        [
            snap("start", T0 - 5, [sample(ENERGY, 0.0), sample(POWER, 25.0)]),
            snap("measure", T0, [sample(ENERGY, 125_000.0), sample(POWER, 25.0)]),
            snap("end", T0 + 10, [sample(ENERGY, 725_000.0), sample(POWER, 25.0)]),
        ],
    )
    row = nodes_of(run)["api"]
    assert row["joules"] == pytest.approx(600.0)  # (725 000 − 125 000) mJ, from "measure"
    assert row["seconds"] == pytest.approx(10.0)
    assert row["mean_w"] == pytest.approx(60.0)
    assert row["output_tokens"] == 2 * 10 * 128
    assert row["j_per_output_token"] == pytest.approx(600.0 / 2560)
    assert row["energy_method"] == "counter DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION"


def test_the_idle_edges_around_the_requests_come_off_the_levels_energy(tmp_path):
    run = run_dir(
        tmp_path,
        [
            snap("measure", T0 - 1, [sample(ENERGY, 0.0), sample(POWER, 26.0)]),
            snap("end", T0 + 9, [sample(ENERGY, 600_000.0), sample(POWER, 25.0)]),
        ],
        per_user=1,  # each user one request of 6.4 s, both sent at T0: 3.6 s of idle edges
    )
    row = nodes_of(run)["api"]
    assert row["seconds"] == pytest.approx(6.4)
    assert row["joules"] == pytest.approx(600.0 - 25.0 * 3.6)
    assert row["mean_w"] == pytest.approx((600.0 - 25.0 * 3.6) / 6.4)
    assert row["energy_method"].endswith("less 3.60 s of idle edges at 25.0 W")


def test_levels_that_share_a_concurrency_divide_by_their_own_tokens(tmp_path):
    records = [
        *closed_loop_level(1, 0, T0, ttft=0.2, itl=0.05, tps=20, latency=6.4, per_user=2),
        *closed_loop_level(1, 1, T0 + 20, ttft=0.2, itl=0.05, tps=20, latency=6.4, per_user=2),
    ]
    run = write_run(tmp_path / "results", "x", records)
    lines = [
        {
            **snap(when, T0 + 20 * index + dt, [sample(ENERGY, e)]),
            "level_index": index,
            "concurrency": 1,
        }
        for index in (0, 1)
        for when, dt, e in (("measure", 0, 0.0), ("end", 12.8, 256_000.0))
    ]
    (run / "server_metrics.jsonl").write_text("".join(json.dumps(s) + "\n" for s in lines))
    row = nodes_of(run)["api"]
    assert row["output_tokens"] == 2 * 2 * 128  # two levels of two requests, not counted twice
    assert row["j_per_output_token"] == pytest.approx(512.0 / 512)


def test_a_simulator_runs_windows_are_in_simulated_seconds(tmp_path):
    snapshots = [
        snap("measure", T0, [sample(ENERGY, 0.0)]),
        snap("end", T0 + 1, [sample(ENERGY, 600_000.0)]),  # energy counted in simulated time
    ]
    row = nodes_of(run_dir(tmp_path, snapshots, time_scale=10.0))["api"]
    assert (row["seconds"], row["mean_w"]) == pytest.approx((10.0, 60.0))


def test_a_node_on_another_server_than_the_simulator_counts_in_real_time(tmp_path):
    snapshots = [
        snap(when, T0 + dt, [sample(ENERGY, e)], node=node)
        for node in ("api", "spark-9")
        for when, dt, e in (("measure", 0, 0.0), ("end", 1, 600_000.0))
    ]
    run = run_dir(tmp_path, snapshots, time_scale=10.0)
    manifest = json.loads((run / "manifest.json").read_text())
    manifest["scrape"] = {
        "api": "http://127.0.0.1:8000/metrics",
        "spark-9": "http://spark-9:9401/metrics",
    }
    (run / "manifest.json").write_text(json.dumps(manifest))
    nodes = nodes_of(run)
    assert (nodes["api"]["seconds"], nodes["api"]["mean_w"]) == pytest.approx((10.0, 60.0))
    assert (nodes["spark-9"]["seconds"], nodes["spark-9"]["mean_w"]) == pytest.approx((1.0, 600.0))


# One request per user, both sent at T0 and back at T0 + 6.4: the requests' window, between a
# "measure" bound at T0 - 1 and an "end" bound at T0 + 8.
def one_request_each(tmp_path, snapshots: list[dict]):
    return run_dir(tmp_path, snapshots, per_user=1)


def test_without_a_counter_the_power_samples_inside_the_window_give_the_mean(tmp_path):
    run = one_request_each(
        tmp_path,
        [
            snap("measure", T0 - 1, [sample(POWER, 25.0)]),
            snap("during", T0 + 1, [sample(POWER, 60.0)]),
            snap("during", T0 + 3, [sample(POWER, 80.0)]),
            snap("during", T0 + 5, [sample(POWER, 60.0)]),
            snap("end", T0 + 8, [sample(POWER, 25.0)]),
        ],
    )
    row = nodes_of(run)["api"]
    assert row["mean_w"] == pytest.approx(70.0)  # two trapezoids of 2 s: (60 + 80) / 2
    assert (row["seconds"], row["joules"]) == pytest.approx((6.4, 70.0 * 6.4))
    assert row["power_max_w"] == 80.0
    assert row["energy_method"] == "power DCGM_FI_DEV_POWER_USAGE, trapezoid mean of 3 samples"


def test_samples_outside_the_measured_requests_window_are_left_out(tmp_path):
    run = one_request_each(
        tmp_path,
        [
            snap("start", T0 - 10, [sample(POWER, 25.0)]),
            snap("during", T0 - 5, [sample(POWER, 140.0)]),  # the warm-up's prefill
            snap("measure", T0 - 1, [sample(POWER, 25.0)]),
            snap("during", T0 - 0.5, [sample(POWER, 25.0)]),  # before the first send
            *(snap("during", T0 + dt, [sample(POWER, 50.0)]) for dt in (1, 3, 5)),
            snap("during", T0 + 7, [sample(POWER, 25.0)]),  # after the last answer: idle
            snap("end", T0 + 8, [sample(POWER, 25.0)]),
        ],
    )
    row = nodes_of(run)["api"]
    assert row["samples"] == 3
    assert (row["mean_w"], row["power_max_w"]) == pytest.approx((50.0, 50.0))


def energy_and_power(joules: float, watts: float) -> list[dict]:
    return [sample(ENERGY, joules * 1e3), sample(POWER, watts)]


def test_the_peak_power_comes_from_the_energy_counter_and_never_falls_below_the_mean(tmp_path):
    # 50 W from T0 to T0 + 3, then 80 W to the last end, idle 25 W outside: the power gauge's
    # instants all caught the 50 W part, the counter saw both
    curve = {T0 + 1: 25 + 50, T0 + 2.5: 25 + 125, T0 + 6: 25 + 150 + 240}
    run = one_request_each(
        tmp_path,
        [
            snap("measure", T0 - 1, energy_and_power(0.0, 25.0)),
            *(snap("during", t, energy_and_power(j, 50.0)) for t, j in curve.items()),
            snap("end", T0 + 8, energy_and_power(25 + 150 + 272 + 40, 25.0)),
        ],
    )
    row = nodes_of(run)["api"]
    assert (row["seconds"], row["joules"]) == pytest.approx((6.4, 150 + 272))
    assert row["mean_w"] == pytest.approx(422 / 6.4)  # 65.9
    assert row["power_max_w"] == pytest.approx(80.0)  # from T0 + 6 to the last end
    assert row["power_max_w"] >= row["mean_w"]


def test_a_level_with_too_few_samples_in_its_window_has_no_peak_power(tmp_path):
    run = one_request_each(
        tmp_path,
        [
            snap("measure", T0 - 1, energy_and_power(0.0, 25.0)),
            snap("during", T0 + 3, energy_and_power(25 + 180, 60.0)),
            snap("during", T0 + 5, energy_and_power(25 + 300, 60.0)),
            snap("end", T0 + 8, energy_and_power(25 + 384 + 40, 25.0)),
        ],
    )
    row = nodes_of(run)["api"]
    assert row["mean_w"] == pytest.approx(60.0)  # the counter's, over the requests' window
    assert np.isnan(row["power_max_w"]) and row["samples"] == 2


def test_the_report_says_too_few_samples_in_place_of_a_sampled_figure(tmp_path):
    run = one_request_each(
        tmp_path,
        [
            snap("measure", T0 - 1, energy_and_power(0.0, 25.0)),
            snap("during", T0 + 3, energy_and_power(25 + 180, 60.0)),
            snap("end", T0 + 8, energy_and_power(25 + 384 + 40, 25.0)),
        ],
    )
    out = tmp_path / "report"
    assert analysis_main([str(run), "--out", str(out), "--no-charts", "--quiet"]) == 0
    report = (out / "report.md").read_text()
    table = report[report.index("**Per level and node**") :]
    row = next(line for line in table.splitlines() if line.startswith("| x | 2 | api |"))
    assert "| too few samples |" in row


def test_one_gpu_seen_through_the_target_and_a_scrape_node_counts_once_under_the_node(tmp_path):
    head = {"UUID": "GPU-1"}
    snapshots = [
        snap(when, t, [sample(ENERGY, e, **head)], node=node)
        for node in ("api", "spark-1")
        for when, t, e in (("measure", T0, 0.0), ("end", T0 + 10, 600_000.0))
    ]
    nodes = nodes_of(run_dir(tmp_path, snapshots))
    assert list(nodes) == ["spark-1"]
    assert nodes["spark-1"]["joules"] == pytest.approx(600.0)


def test_the_cluster_adds_up_its_nodes(tmp_path):
    snapshots = [
        snap(when, t, [sample(ENERGY, e * share, UUID=node)], node=node)
        for node, share in (("spark-1", 1.0), ("spark-2", 0.5))
        for when, t, e in (("measure", T0, 0.0), ("end", T0 + 10, 600_000.0))
    ]
    levels = telemetry.per_level(telemetry.per_node(load([run_dir(tmp_path, snapshots)])))
    row = levels.iloc[0]
    assert row["nodes"] == "spark-1, spark-2"
    assert (row["joules"], row["mean_w"]) == pytest.approx((900.0, 90.0))
    assert row["j_per_output_token"] == pytest.approx(900.0 / 2560)
    assert row["output_tokens_per_j"] == pytest.approx(2560 / 900.0)


def exporter(clock: float, util: float, temperature: float = 70.0) -> list[dict]:
    return [
        sample("sparkload_gpu_power_watts", 100.0, gpu="0"),
        sample("sparkload_gpu_sm_clock_mhz", clock, gpu="0"),
        sample("sparkload_gpu_sm_clock_max_mhz", 3003.0, gpu="0"),
        sample("sparkload_gpu_utilization_percent", util, gpu="0"),
        sample("sparkload_gpu_temperature_celsius", temperature, gpu="0"),
    ]


def test_a_clock_below_90_percent_of_its_maximum_while_busy_is_throttling(tmp_path):
    run = run_dir(
        tmp_path,
        [
            snap("measure", T0, exporter(600.0, 0.0), node="spark-2"),
            *(
                snap("during", T0 + dt, exporter(2405.0, 87.0, temperature=91.0), node="spark-2")
                for dt in (3, 5, 7)
            ),
            snap("end", T0 + 10, exporter(600.0, 0.0), node="spark-2"),
        ],
    )
    row = nodes_of(run)["spark-2"]
    assert row["throttle"] == "SM clock down to 2405 MHz of 3003 (80%) while busy, up to 91 °C"
    assert (row["sm_clock_min_mhz"], row["temperature_max_c"]) == (2405.0, 91.0)


def test_a_low_clock_of_an_idle_gpu_is_not_throttling(tmp_path):
    run = run_dir(
        tmp_path,
        [
            snap("measure", T0, exporter(600.0, 0.0), node="spark-2"),
            snap("during", T0 + 5, exporter(600.0, 3.0), node="spark-2"),
            snap("during", T0 + 6, exporter(2950.0, 90.0), node="spark-2"),
            snap("during", T0 + 7, exporter(2950.0, 90.0), node="spark-2"),
            snap("end", T0 + 10, exporter(600.0, 0.0), node="spark-2"),
        ],
    )
    assert nodes_of(run)["spark-2"]["throttle"] == ""


def test_node_exporter_cpu_and_memory_are_read_from_its_counters(tmp_path):
    def host(idle: float, user: float, available: float) -> list[dict]:
        return [
            sample("node_cpu_seconds_total", idle, cpu="0", mode="idle"),
            sample("node_cpu_seconds_total", user, cpu="0", mode="user"),
            sample("node_memory_MemTotal_bytes", 128e9),
            sample("node_memory_MemAvailable_bytes", available),
        ]

    run = run_dir(
        tmp_path,
        [
            snap("measure", T0, host(100.0, 10.0, 100e9), node="spark-1"),
            snap("end", T0 + 10, host(102.5, 17.5, 90e9), node="spark-1"),
        ],
    )
    row = nodes_of(run)["spark-1"]
    assert row["cpu_busy_pct"] == pytest.approx(75.0)
    assert row["memory_used_max_gb"] == pytest.approx(38.0)
    assert np.isnan(row["joules"])  # no power series: no energy, said so by an empty method


def test_a_scrape_nodes_vllm_counters_stay_out_of_the_servers_figures(tmp_path):
    def tokens(value: float) -> list[dict]:
        return [sample("vllm:generation_tokens_total", value)]

    run = run_dir(
        tmp_path,
        [
            snap("measure", T0, tokens(0.0)),
            snap("end", T0 + 10, tokens(1000.0)),
            snap("measure", T0, tokens(0.0), node="spark-1"),
            snap("end", T0 + 10, tokens(1000.0), node="spark-1"),
        ],
    )
    assert server_metrics.per_level(load([run])).iloc[0]["gen_tok_s"] == pytest.approx(100.0)


def test_summary_json_and_the_report_carry_energy_per_level_and_node(tmp_path):
    run = run_dir(
        tmp_path,
        [
            snap("measure", T0, [sample(ENERGY, 0.0)]),
            snap("end", T0 + 10, [sample(ENERGY, 600_000.0)]),
        ],
    )
    out = tmp_path / "report"
    assert analysis_main([str(run), "--out", str(out), "--no-charts", "--quiet"]) == 0
    summary = json.loads((out / "summary.json").read_text())
    assert summary["energy"][0]["mean_w"] == pytest.approx(60.0)
    assert summary["nodes"][0]["node"] == "api"
    report = (out / "report.md").read_text()
    assert "Energy and node telemetry" in report and "**Energy per level**" in report
    assert table_path(out, "energy_per_level").is_file()
