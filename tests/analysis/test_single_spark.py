"""The single-Spark notes' section: which run is which, and each table's cells."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from analysis import report
from analysis.figures.metrics import Settings
from analysis.outputs import markdown
from analysis.reading.load import load
from analysis.single_spark import setups
from tests.analysis_synthetic import closed_loop_level, make_record, write_run

TOKENS = 128  # output tokens of every synthetic request
SECTION = "Single-Spark notes"


def notes_run(
    root: Path,
    label: str,
    tps: dict[int, float],
    *,
    build: str,
    spec: str = "dspark:7",
    budget: str = "default",
    workload: str = "edit",
    identical: bool = False,
    prefix_caching: str = "on",
    stamp: str = "20260101T000000Z",
    accepted: tuple[int, int, int] | None = None,
    kv: tuple[int, int] | None = None,
) -> Path:
    """A run whose every request at level C streams at ``tps[C]`` (so aggregate = C × tps[C]);
    ``accepted`` = (drafts, draft tokens, accepted tokens) at its first level, ``kv`` = the
    server's (num_gpu_blocks, block_size)."""
    records, t0 = [], 1_700_000_000.0
    for index, (c, speed) in enumerate(sorted(tps.items())):
        latency = TOKENS / speed
        records += closed_loop_level(
            c, index, t0, ttft=0.1, itl=0.01, tps=speed, latency=latency, per_user=2
        )
        t0 += 2 * latency + 5
    run = write_run(
        root,
        label,
        records,
        variant=f"qwen3.8-{build}",
        stamp=stamp,
        manifest_fields={
            "metadata": {
                "build": build,
                "spec": spec,
                "budget": budget,
                "prefix_caching": prefix_caching,
            },
            "workload": {"name": workload, "identical_prompts": identical},
        },
    )
    if accepted is not None or kv is not None:
        write_counters(run, accepted or (0, 0, 0), kv)
    return run


def write_counters(run: Path, accepted: tuple[int, int, int], kv: tuple[int, int] | None) -> None:
    names = (
        "vllm:spec_decode_num_drafts_total",
        "vllm:spec_decode_num_draft_tokens_total",
        "vllm:spec_decode_num_accepted_tokens_total",
    )
    start = [{"name": n, "labels": {}, "value": 0} for n in names]
    if kv is not None:
        info = {"num_gpu_blocks": str(kv[0]), "block_size": str(kv[1]), "cache_dtype": "auto"}
        start.append({"name": "vllm:cache_config_info", "labels": info, "value": 1.0})
    end = [{"name": n, "labels": {}, "value": v} for n, v in zip(names, accepted, strict=True)]
    lines = [
        {"level_index": 0, "concurrency": 1, "when": "start", "time": 0.0, "samples": start},
        {"level_index": 0, "concurrency": 1, "when": "end", "time": 10.0, "samples": end},
    ]
    (run / "server_metrics.jsonl").write_text("".join(json.dumps(x) + "\n" for x in lines))


def prefill_run(root: Path, label: str, build: str, speeds: dict[int, list[float]]) -> Path:
    """A prefill probe: per prompt size, one measured request per run at each given tok/s."""
    records = []
    for index, (size, values) in enumerate(sorted(speeds.items())):
        for i, speed in enumerate(values):
            seconds = size / speed
            records.append(
                make_record(
                    1,
                    index,
                    ttft=seconds,
                    itl=None,
                    tps=1 / seconds,
                    latency=seconds,
                    start_time=1_700_000_000.0 + index * 1000 + i * 300,
                    output_tokens=1,
                    prompt_tokens=size,
                    extra={"target_tokens": size, "prefill_s": seconds},
                )
            )
    return write_run(
        root,
        label,
        records,
        manifest_fields={
            "metadata": {"build": build, "spec": "dspark:7", "budget": "16384"},
            "workload": {"name": "prefill"},
        },
    )


def build_report(runs: list[Path]):
    return report.build(load(runs), Settings(bootstrap_resamples=0))


def table(built, key_suffix: str) -> list[list[str]]:
    """A table of the report as Markdown rows (header first), found by its key's end."""
    found = [t for t in built.tables if t.key.endswith(key_suffix)]
    assert len(found) == 1, [t.key for t in built.tables]
    return [
        [cell.strip() for cell in line.strip("|").split("|")]
        for line in markdown.table(found[0]).splitlines()
        if line.startswith("|") and not line.startswith("|---")
    ]


def column(rows: list[list[str]], name: str) -> list[str]:
    return [row[rows[0].index(name)] for row in rows[1:]]


def section_text(built) -> str:
    return markdown.render(built, with_images=False).split(f". {SECTION}", 1)[1]


# ----- quantization gain -------------------------------------------------------------------------
@pytest.fixture(scope="module")
def quantization(tmp_path_factory):
    root = tmp_path_factory.mktemp("quantization")
    runs = [
        notes_run(root, "fp8-fresh", {1: 20.0}, build="fp8", workload="fresh"),
        notes_run(root, "fp8-edit", {1: 45.02}, build="fp8", accepted=(100, 700, 690)),
        notes_run(root, "fp8-edit", {1: 47.10}, build="fp8", stamp="20260101T000001Z"),
        notes_run(root, "nvfp4-fresh", {1: 29.23}, build="nvfp4", workload="fresh"),
        notes_run(root, "nvfp4-edit", {1: 58.62}, build="nvfp4", accepted=(100, 700, 691)),
        notes_run(root, "nvfp4-edit", {1: 59.05}, build="nvfp4", stamp="20260101T000001Z"),
    ]
    return build_report(runs)


def test_a_repeated_label_shows_each_run_as_a_over_b(quantization):
    rows = table(quantization, "notes_quantization_gain")
    assert column(rows, "Weights") == ["FP8", "NVFP4"]
    assert column(rows, "Edit-heavy tok/s") == ["45.02 / 47.10", "58.62 / 59.05"]


def test_a_single_run_shows_its_single_stream_tps(quantization):
    rows = table(quantization, "notes_quantization_gain")
    assert column(rows, "Fresh gen tok/s") == ["20.00", "29.23"]


def test_gain_is_the_mean_over_runs_against_fp8(quantization):
    rows = table(quantization, "notes_quantization_gain")
    assert column(rows, "Fresh × vs FP8") == ["1.00×", "1.46×"]
    assert column(rows, "Edit × vs FP8") == ["1.00×", f"{(58.62 + 59.05) / (45.02 + 47.10):.2f}×"]


def test_acceptance_and_tokens_per_pass_come_from_the_spec_decode_counters(quantization):
    rows = table(quantization, "notes_quantization_gain")
    assert column(rows, "Accept (edit)") == ["98.6%", "98.7%"]  # 690 / 700, 691 / 700
    assert column(rows, "Mean tok/pass (edit)") == ["7.90", "7.91"]  # 1 + 690 / 100, 1 + 691 / 100
    assert column(rows, "Accept (fresh)") == ["—", "—"]  # no counters for the fresh runs


def test_kv_tokens_are_left_out_when_the_server_reports_no_cache_config(quantization):
    assert "KV tokens" not in table(quantization, "notes_quantization_gain")[0]


def test_kv_tokens_are_blocks_times_block_size_when_reported(tmp_path):
    built = build_report(
        [
            notes_run(tmp_path, "fp8-edit", {1: 45.0}, build="fp8", kv=(39_744, 16)),
            notes_run(tmp_path, "nvfp4-edit", {1: 59.0}, build="nvfp4"),
        ]
    )
    assert column(table(built, "notes_quantization_gain"), "KV tokens") == ["635,904", "—"]


def test_tables_without_their_runs_are_left_out_with_one_line(quantization):
    text = section_text(quantization)
    assert "Left out: needs prefill probes" in text
    assert "Left out: needs single-stream runs of one build at two DSpark depths" in text
    assert not any(t.key.endswith("notes_prefill") for t in quantization.tables)


def test_the_section_is_absent_for_runs_without_the_notes_setup(report_runs):
    built = build_report(report_runs)
    assert not any(SECTION in s.title for s in built.sections)


def test_the_section_follows_the_open_loop_one():
    numbers = report.section_numbers()
    assert numbers["single_spark"] == numbers["open_loop"] + 1


# ----- which run is which ------------------------------------------------------------------------
def test_a_simulator_run_files_by_its_qwen38_profile_without_metadata(tmp_path):
    run = write_run(
        tmp_path,
        "sim",
        closed_loop_level(1, 0, 0.0, ttft=0.1, itl=0.01, tps=60, latency=2.0),
        manifest_fields={
            "simulator": {
                "profile": "qwen3.8-int4",
                "spec": None,
                "max_num_batched_tokens": 16384,
                "prefix_caching": False,
            },
            "workload": {"name": "fresh"},
        },
    )
    assert setups.setup_of(load([run]).runs[0].manifest) == setups.Setup(
        "int4", "dspark:7", "16384", False, "fresh", False
    )


def test_metadata_wins_over_the_simulator_and_names_are_normalised(tmp_path):
    run = write_run(
        tmp_path,
        "real",
        closed_loop_level(1, 0, 0.0, ttft=0.1, itl=0.01, tps=60, latency=2.0),
        manifest_fields={
            "metadata": {"build": "MixedInt4-AutoRound", "spec": "DSpark:14", "budget": "16,384"},
            "simulator": {"profile": "qwen3.8-fp8", "spec": "none"},
        },
    )
    setup = setups.setup_of(load([run]).runs[0].manifest)
    assert (setup.build, setup.spec, setup.budget) == ("int4", "dspark:14", "16384")


def test_a_run_of_another_model_has_no_setup(tmp_path):
    run = write_run(
        tmp_path,
        "other",
        closed_loop_level(1, 0, 0.0, ttft=0.1, itl=0.01, tps=60, latency=2.0),
        manifest_fields={"simulator": {"profile": "nvfp4-mtp"}},
    )
    assert setups.setup_of(load([run]).runs[0].manifest) is None


# ----- draft depth, budget control, concurrency --------------------------------------------------
@pytest.fixture(scope="module")
def fleet(tmp_path_factory):
    root = tmp_path_factory.mktemp("fleet")
    runs = [
        notes_run(root, "k7-edit", {1: 59.05}, build="nvfp4", accepted=(100, 700, 691)),
        notes_run(root, "k7-fresh", {1: 29.23}, build="nvfp4", workload="fresh"),
        notes_run(
            root,
            "k14-edit",
            {1: 75.01},
            build="nvfp4",
            spec="dspark:14",
            budget="16384",
            accepted=(100, 1400, 962),
        ),
        notes_run(root, "k7-wide-edit", {1: 61.89}, build="nvfp4", budget="16384"),
        notes_run(root, "k7-fleet", {1: 59.79, 4: 41.92, 8: 30.75}, build="nvfp4"),
        notes_run(root, "k7-same", {1: 59.79, 4: 45.82, 8: 34.67}, build="nvfp4", identical=True),
        notes_run(
            root, "k7-wide", {1: 61.9, 4: 40.34, 8: 28.66, 16: 16.03}, build="nvfp4", budget="16384"
        ),
        notes_run(
            root,
            "k14-wide",
            {1: 75.0, 4: 39.385, 8: 27.3325},
            build="nvfp4",
            spec="dspark:14",
            budget="16384",
        ),
        notes_run(
            root,
            "int4-wide",
            {1: 64.35, 4: 36.32, 8: 25.62, 16: 13.96},
            build="int4",
            budget="16384",
        ),
        notes_run(
            root, "fp8-wide", {1: 46.91, 4: 33.55, 8: 26.09, 16: 16.0}, build="fp8", budget="16384"
        ),
    ]
    return build_report(runs)


def test_draft_depth_rows_are_the_dspark_depths_of_one_build(fleet):
    rows = table(fleet, "notes_draft_depth_nvfp4")
    assert [(r[0], r[1]) for r in rows[1:]] == [("7", "default"), ("7", "16384"), ("14", "16384")]
    assert column(rows, "Edit-heavy tok/s") == ["59.05", "61.89", "75.01"]
    assert column(rows, "Fresh gen tok/s") == ["29.23", "—", "—"]
    assert column(rows, "Accept (edit)") == ["98.7%", "—", "68.7%"]
    assert column(rows, "Mean tok/pass (edit)") == ["7.91", "—", "10.62"]


def test_budget_control_holds_single_stream_and_the_common_levels(fleet):
    rows = table(fleet, "notes_budget_control_nvfp4")
    assert rows[0] == ["Config", "Batch budget", "Single stream", "c4", "c8"]
    assert rows[1:] == [
        ["k=7", "default", "59.05", "167.68", "246.00"],
        ["k=7", "16384", "61.89", "161.36", "229.28"],
        ["k=14", "16384", "75.01", "157.54", "218.66"],
    ]


def test_like_for_like_compares_at_one_budget_and_at_one_depth(fleet):
    rows = table(fleet, "notes_budget_like_for_like_nvfp4")
    assert rows[1] == ["k=14 vs k=7 at 16384", "+21.2%", "-2.4%", "-4.6%"]
    assert rows[2] == ["16384 vs default at k=7", "+4.8%", "-3.8%", "-6.8%"]


def test_the_concurrency_curve_gives_aggregate_and_per_stream_of_each_4bit_build(fleet):
    rows = table(fleet, "notes_concurrency_dspark7_16384")
    assert rows[0] == [
        "Concurrency",
        "MixedInt4 aggregate",
        "MixedInt4 per stream",
        "NVFP4 aggregate",
        "NVFP4 per stream",
    ]
    assert rows[4] == ["c16", "223.36", "13.96", "256.48", "16.03"]


def test_distinct_vs_identical_prompts_at_the_default_budget(fleet):
    rows = table(fleet, "notes_distinct_identical_nvfp4_dspark7_default")
    assert rows[3] == ["c8", "246.00", "30.75", "277.36", "34.67", "+12.7%"]


def test_fp8_vs_4bit_gives_the_advantage_per_level(fleet):
    rows = table(fleet, "notes_fp8_vs_4bit_dspark7_16384")
    assert column(rows, "NVFP4 advantage") == ["+32.0%", "+20.2%", "+9.9%", "+0.2%"]


def test_the_speed_up_ladder_needs_a_stock_run(fleet):
    assert "Left out: needs a single-stream edit run of FP8 without speculation" in section_text(
        fleet
    )


# ----- prefill and the speed-up ladder -----------------------------------------------------------
def test_prefill_by_size_with_agreement_and_the_builds_compared(tmp_path):
    built = build_report(
        [
            prefill_run(tmp_path, "int4-prefill", "int4", {10260: [930.0, 931.0]}),
            prefill_run(tmp_path, "nvfp4-prefill", "nvfp4", {10260: [1527.0, 1527.6]}),
        ]
    )
    rows = table(built, "notes_prefill")
    assert rows[1][:5] == ["~10K", "10,260", "930.5", "930.0 / 931.0", "0.11%"]
    assert column(rows, "NVFP4 vs MixedInt4") == ["+64.1%"]


def test_the_speed_up_ladder_is_relative_to_stock_fp8(tmp_path):
    built = build_report(
        [
            notes_run(tmp_path, "stock", {1: 7.88}, build="fp8", spec="none", prefix_caching="off"),
            notes_run(tmp_path, "mtp3", {1: 21.3}, build="fp8", spec="mtp:3"),
            notes_run(tmp_path, "k14", {1: 75.0}, build="nvfp4", spec="dspark:14", budget="16384"),
        ]
    )
    rows = table(built, "notes_speed_up_ladder")
    assert rows[1:] == [
        ["FP8, no speculation, no prefix caching", "7.88", "1.0×"],
        ["FP8, MTP k=3", "21.30", "2.7×"],
        ["NVFP4, DSpark k=14, budget 16384", "75.00", "9.5×"],
    ]


# ----- the other sections, on a notes-shaped matrix ----------------------------------------------
def test_distinct_and_identical_runs_pair_only_at_one_output_length(tmp_path):
    runs = [
        notes_run(tmp_path, "single", {1: 59.0}, build="nvfp4"),
        notes_run(tmp_path, "fleet", {1: 59.0, 4: 42.0}, build="nvfp4"),
        notes_run(tmp_path, "same", {1: 59.0, 4: 46.0}, build="nvfp4", identical=True),
    ]
    for run, tokens in zip(runs, (3000, 1500, 1500), strict=True):
        manifest = json.loads((run / "manifest.json").read_text())
        manifest["workload"]["max_tokens"] = tokens
        (run / "manifest.json").write_text(json.dumps(manifest))
    titles = [t.title for t in build_report(runs).tables if t.title.startswith("Distinct (")]
    assert titles == ["Distinct (fleet) vs identical (same) prompts"]


def test_pairwise_differences_stay_within_one_workload(tmp_path):
    built = build_report(
        [
            notes_run(tmp_path, "a-edit", {1: 59.0}, build="nvfp4"),
            notes_run(tmp_path, "b-edit", {1: 45.0}, build="fp8"),
            notes_run(tmp_path, "c-fresh", {1: 29.0}, build="fp8", workload="fresh"),
        ]
    )
    titles = [t.title for t in built.tables if t.title.startswith("TPS (tok/s): ")]
    assert titles == ["TPS (tok/s): a-edit vs b-edit"]


def test_a_real_runs_setting_missing_from_its_metadata_stays_unknown(tmp_path):
    run = write_run(
        tmp_path,
        "real",
        closed_loop_level(1, 0, 0.0, ttft=0.1, itl=0.01, tps=60, latency=2.0),
        manifest_fields={"metadata": {"build": "nvfp4"}},
    )
    setup = setups.setup_of(load([run]).runs[0].manifest)
    assert (setup.spec, setup.budget) == ("?", "?")
