"""Per-request derived metrics: the reports' definitions, in one place."""

import pytest

from sparkload.records import (
    Manifest,
    RequestRecord,
    on_master_clock,
    scale_to_simulated_time,
    summarize_gaps,
    telemetry_family,
)


def record(**fields) -> RequestRecord:
    base = dict(
        request_id="r",
        level=1,
        level_index=0,
        phase="measure",
        worker="local",
        user=0,
        endpoint="http://127.0.0.1:1",
        model="m",
        prompt_index=0,
        max_tokens=128,
        start_time=0.0,
    )
    return RequestRecord(**{**base, **fields})


def test_itl_divides_decode_time_by_output_tokens_minus_one_not_by_chunks():
    r = record(
        ttft=0.3, t_last_token=0.3 + 127 * 0.04, latency=5.5, output_tokens=128, chunks=50
    ).derive()
    assert r.itl == pytest.approx(0.04)


def test_tps_is_output_tokens_over_end_to_end_latency():
    r = record(ttft=0.3, t_last_token=5.0, latency=6.4, output_tokens=128).derive()
    assert r.tps == pytest.approx(20.0)
    assert r.decode_tps == pytest.approx(127 / 4.7)


def test_itl_is_undefined_for_a_single_token_never_zero():
    r = record(ttft=0.3, t_last_token=0.3, latency=0.35, output_tokens=1).derive()
    assert r.itl is None
    assert r.tps == pytest.approx(1 / 0.35)


def test_failed_requests_get_no_derived_metrics():
    r = record(status="error", error_kind="http_500", latency=0.01, output_tokens=0).derive()
    assert (r.itl, r.tps, r.decode_tps) == (None, None, None)


def test_gap_summary_interpolates_percentiles_linearly():
    gaps = summarize_gaps([0.01 * i for i in range(1, 11)])  # 0.01 .. 0.10
    assert gaps.mean == pytest.approx(0.055)
    assert gaps.p50 == pytest.approx(0.055)
    assert gaps.p90 == pytest.approx(0.091)
    assert gaps.max == pytest.approx(0.10)


def test_gap_summary_of_no_gaps_is_empty():
    assert summarize_gaps([]).mean is None


def test_to_dict_leaves_out_the_full_gap_list_unless_kept():
    assert "chunk_gaps" not in record().to_dict()
    assert record(chunk_gaps=[0.1]).to_dict()["chunk_gaps"] == [0.1]


def test_to_dict_keeps_a_category_only_where_the_request_had_one():
    assert "category" not in record().to_dict()
    assert record(category="coding").to_dict()["category"] == "coding"


def test_simulated_time_multiplies_durations_and_divides_rates():
    scaled = scale_to_simulated_time({"ttft": 0.1, "latency": 2.0, "tps": 50.0, "level": 4}, 10)
    assert scaled == {
        "ttft": pytest.approx(1.0),
        "latency": pytest.approx(20.0),
        "tps": pytest.approx(5.0),
        "level": 4,
    }


def test_the_longest_burst_counts_chunks_whose_gaps_are_far_below_the_mean():
    # mean gap 6.25 ms: the three gaps of 0 and 0.1 ms join four chunks, the 10 ms ones none
    assert summarize_gaps([0.01, 0.0, 0.0001, 0.0, 0.01, 0.01, 0.01, 0.01]).burst == 4


def test_a_stream_read_in_one_piece_is_one_burst_of_every_chunk():
    assert summarize_gaps([0.0] * 9).burst == 10


def test_evenly_spaced_chunks_are_bursts_of_one():
    assert summarize_gaps([0.01] * 9).burst == 1


def test_a_manifest_from_before_slices_capacity_and_saturation_loads_with_none():
    level = {"index": 0, "concurrency": 1, "expected": 10, "started_at": ""}
    manifest = Manifest.from_dict({"label": "x", "levels": [level]})
    assert (manifest.slice_duration, manifest.capacity) == (None, None)
    assert manifest.levels[0].saturation is None


def test_the_capacity_search_and_saturation_survive_a_round_trip():
    probe = {"value": 12, "level_index": 0, "level": "C=12", "meets": False}
    capacity = {
        "bounds": "ttft_p90_ms<=800",
        "over": "concurrency",
        "capacity": 11,
        "probes": [{**probe, "figures": {"ttft_p90_ms<=800": 900.0}, "breaches": ["slow"]}],
        "limit": {**probe, "figures": {}, "breaches": []},
        "complete": True,
    }
    level = {"index": 0, "concurrency": 12, "expected": None, "started_at": "", "saturation": "x"}
    data = Manifest.from_dict({"label": "x", "capacity": capacity, "levels": [level]}).to_dict()
    assert data["capacity"] == capacity and data["levels"][0]["saturation"] == "x"


def test_a_workers_record_on_the_masters_clock_moves_only_its_wall_clock_fields():
    record = {"start_time": 102.5, "scheduled_time": None, "ttft": 0.25, "latency": 1.5}
    moved = on_master_clock(record, 2.0)
    assert moved == {
        "start_time": 100.5,
        "scheduled_time": None,
        "ttft": 0.25,
        "latency": 1.5,
        "clock_offset": 2.0,
    }
    assert record["start_time"] == 102.5 and "clock_offset" not in record  # a copy


@pytest.mark.parametrize(
    ("sample", "name"),
    [
        ("DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION", "DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION"),
        ("sparkload_gpu_energy_joules_total", "sparkload_gpu_energy_joules"),
        ("sparkload_gpu_energy_joules_created", "sparkload_gpu_energy_joules"),
        ("node_hwmon_power_average_watt", "node_hwmon_power_average_watt"),
    ],
)
def test_a_sample_belongs_to_its_family_whatever_its_counter_suffix(sample, name):
    family = telemetry_family(sample)
    assert family is not None and family.name == name


@pytest.mark.parametrize("sample", ["vllm:num_requests_running", "total", "_created", ""])
def test_a_sample_of_no_known_family_has_none(sample):
    assert telemetry_family(sample) is None


def test_a_manifests_workers_are_read_back_as_worker_entries_and_other_items_dropped():
    manifest = Manifest.from_dict(
        {
            "label": "run",
            "workers": [
                {"node": "host-a_1", "index": 0, "hostname": "host-a", "clock_offset": 2.0},
                "not a worker",
            ],
        }
    )
    (worker,) = manifest.workers
    assert (worker.node, worker.index, worker.hostname, worker.clock_offset) == (
        "host-a_1",
        0,
        "host-a",
        2.0,
    )
    assert worker.clock_flags == []
