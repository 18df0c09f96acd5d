"""A run held to a baseline: each cell's verdict, how labels and levels are paired, and the
comparison of synthetic runs (the same server, a slower one, failures, missing levels)."""

from __future__ import annotations

import math

import pytest

from analysis.compare.compare import (
    BETTER,
    NO_DATA,
    NOISE,
    WORSE,
    Comparison,
    compare,
    load_pair,
    match_levels,
    pair_labels,
    verdict,
)
from analysis.compare.tolerances import Tolerance, defaults
from analysis.errors import InputError
from analysis.figures.metrics import Settings, summarize
from analysis.reading import load
from tests.analysis_synthetic import arrival_manifest, compare_run, open_loop_level, write_run

HIGHER, LOWER = Tolerance(10, "+"), Tolerance(10, "-")
SETTINGS = Settings(bootstrap_resamples=400)


# verdicts


def test_a_rise_beyond_the_tolerance_whose_interval_excludes_no_change_is_worse():
    assert verdict(25.0, 15.0, 35.0, HIGHER) == WORSE


def test_a_rise_beyond_the_tolerance_whose_interval_holds_no_change_is_within_noise():
    assert verdict(25.0, -5.0, 60.0, HIGHER) == NOISE


def test_a_certain_rise_within_the_tolerance_is_within_noise():
    assert verdict(8.0, 6.0, 10.0, HIGHER) == NOISE


def test_a_fall_beyond_the_tolerance_of_a_higher_is_worse_figure_is_better():
    assert verdict(-25.0, -35.0, -15.0, HIGHER) == BETTER


def test_a_lower_is_worse_figure_is_worse_when_it_falls_beyond_its_tolerance():
    assert verdict(-25.0, -35.0, -15.0, LOWER) == WORSE
    assert verdict(25.0, 15.0, 35.0, LOWER) == BETTER


def test_a_significant_fall_of_a_lower_is_worse_figure_within_its_tolerance_is_within_noise():
    assert verdict(-8.0, -9.0, -7.0, LOWER) == NOISE


def test_an_interval_that_could_not_be_drawn_is_never_worse():
    assert verdict(50.0, math.nan, math.nan, HIGHER) == NOISE


def test_a_change_that_has_no_value_is_not_applicable():
    assert verdict(math.nan, math.nan, math.nan, HIGHER) == NO_DATA


def test_a_zero_tolerance_makes_every_certain_rise_worse():
    assert verdict(0.5, 0.1, 0.9, Tolerance(0, "+")) == WORSE


# pairing


def test_one_label_on_each_side_is_paired_whatever_their_names():
    assert pair_labels(["v0.8"], ["v0.9"]) == ([("v0.8", "v0.9")], [], [])


def test_several_labels_are_paired_by_name_and_the_rest_listed():
    pairs, only_base, only_run = pair_labels(["fp8", "nvfp4"], ["nvfp4", "awq"])
    assert (pairs, only_base, only_run) == ([("nvfp4", "nvfp4")], ["fp8"], ["awq"])


def test_levels_are_matched_by_name_in_the_baseline_s_order():
    assert match_levels(["C=1", "C=4", "C=32"], ["C=4", "C=1", "C=8"]) == (
        ["C=1", "C=4"],
        ["C=32"],
        ["C=8"],
    )


# synthetic runs


def compared(base, run, spec: dict | None = None) -> Comparison:
    return compare(*load_pair(base, run), spec or defaults(), SETTINGS, (str(base), str(run)))


def verdicts(result: Comparison) -> dict[tuple[str, str], str]:
    return {(lvl.level, c.figure): c.verdict for lvl in result.levels for c in lvl.cells}


def test_two_runs_of_the_same_server_are_within_noise_in_every_cell(tmp_path):
    base = compare_run(tmp_path / "a", seed=1)
    run = compare_run(tmp_path / "b", seed=2)
    found = verdicts(compared(base, run))
    assert len(found) == 2 * 11 and set(found.values()) == {NOISE}


def test_a_doubled_ttft_is_worse_in_every_ttft_cell_and_leaves_the_itl_within_noise(tmp_path):
    base = compare_run(tmp_path / "a", seed=1)
    run = compare_run(tmp_path / "b", ttft=0.2, seed=2)
    found = verdicts(compared(base, run))
    ttft = {key: v for key, v in found.items() if key[1].startswith("ttft_")}
    assert len(ttft) == 6 and set(ttft.values()) == {WORSE}
    assert {v for key, v in found.items() if key[1].startswith("itl_")} == {NOISE}


def test_a_halved_ttft_is_better(tmp_path):
    base = compare_run(tmp_path / "a", ttft=0.2, seed=1)
    run = compare_run(tmp_path / "b", ttft=0.1, seed=2)
    assert verdicts(compared(base, run))[("C=1", "ttft_p90_ms")] == BETTER


def test_a_wider_tolerance_lets_the_same_change_pass(tmp_path):
    base = compare_run(tmp_path / "a", seed=1)
    run = compare_run(tmp_path / "b", ttft=0.12, seed=2)  # +20 %
    limits = defaults()
    assert verdicts(compared(base, run, limits))[("C=1", "ttft_mean_ms")] == WORSE
    limits["ttft_mean_ms"] = Tolerance(30, "+")
    assert verdicts(compared(base, run, limits))[("C=1", "ttft_mean_ms")] == NOISE


def test_the_cells_hold_the_report_s_values(tmp_path):
    base = compare_run(tmp_path / "a", seed=1)
    run = compare_run(tmp_path / "b", ttft=0.15, seed=2)
    result = compared(base, run)
    summary = summarize(load.load([run]), Settings(bootstrap_resamples=0))
    row = summary[summary["concurrency"] == 2].iloc[0]
    cells = {c.figure: c for c in result.levels[1].cells}
    assert result.levels[1].level == "C=2"
    assert cells["ttft_p90_ms"].run == row["ttft_ms_p90"]
    assert cells["output_tok_s"].run == row["measured_total_tps"]
    base_p90 = cells["ttft_p90_ms"].baseline
    assert cells["ttft_p90_ms"].change == pytest.approx((row["ttft_ms_p90"] / base_p90 - 1) * 100)


def test_failures_make_the_failure_ratio_worse_by_points(tmp_path):
    base = compare_run(tmp_path / "a", seed=1)
    run = compare_run(tmp_path / "b", failures=10, seed=2)  # 10 of 50
    cell = next(c for c in compared(base, run).levels[0].cells if c.figure == "failure_ratio")
    assert (cell.baseline, cell.run, cell.change, cell.change_unit) == (0.0, 20.0, 20.0, "pp")
    assert cell.verdict == WORSE


def test_the_intervals_depend_on_the_seed_alone(tmp_path):
    base = compare_run(tmp_path / "a", seed=1)
    run = compare_run(tmp_path / "b", seed=2)
    assert compared(base, run) == compared(base, run)


def test_levels_only_one_run_has_are_listed_and_not_compared(tmp_path):
    base = compare_run(tmp_path / "a", levels=(1, 2, 32), seed=1)
    run = compare_run(tmp_path / "b", levels=(1, 2, 8), seed=2)
    result = compared(base, run)
    assert [level.level for level in result.levels] == ["C=1", "C=2"]
    assert (result.only_in_baseline, result.only_in_run) == (["C=32"], ["C=8"])


def test_runs_with_no_level_in_common_are_bad_input(tmp_path):
    base = compare_run(tmp_path / "a", levels=(1,), seed=1)
    run = compare_run(tmp_path / "b", levels=(4,), seed=2)
    with pytest.raises(InputError, match="no common levels: the baseline has sim C=1, the run"):
        compared(base, run)


def test_a_missing_directory_is_bad_input_naming_its_side(tmp_path):
    base = compare_run(tmp_path / "a", seed=1)
    with pytest.raises(InputError, match="^run: no such directory"):
        load_pair(base, tmp_path / "nowhere")


def test_a_directory_without_runs_is_bad_input_naming_its_side(tmp_path):
    (tmp_path / "empty").mkdir()
    run = compare_run(tmp_path / "b", seed=2)
    with pytest.raises(InputError, match="^baseline: .*no requests.parquet, requests.jsonl"):
        load_pair(tmp_path / "empty", run)


def test_a_p90_of_fewer_than_20_requests_is_never_judged_and_says_why(tmp_path):
    base = compare_run(tmp_path / "a", levels=(1,), per_level=15, seed=1)
    run = compare_run(tmp_path / "b", levels=(1,), per_level=15, ttft=0.2, seed=2)
    cells = {c.figure: c for c in compared(base, run).levels[0].cells}
    assert cells["ttft_p90_ms"].verdict == NOISE
    assert cells["ttft_p90_ms"].note == "fewer than 20 requests"
    assert cells["ttft_p50_ms"].verdict == WORSE and cells["ttft_p50_ms"].note == ""


def test_a_level_whose_every_request_failed_has_no_ttft_to_judge(tmp_path):
    base = compare_run(tmp_path / "a", levels=(1,), seed=1)
    run = compare_run(tmp_path / "b", levels=(1,), per_level=0, failures=5, seed=2)
    cells = {c.figure: c for c in compared(base, run).levels[0].cells}
    assert cells["ttft_mean_ms"].verdict == NO_DATA and cells["ttft_mean_ms"].run is None
    assert cells["failure_ratio"].verdict == WORSE and cells["failure_ratio"].run == 100.0


def test_open_loop_levels_are_matched_by_their_offered_rate(tmp_path):
    def open_run(root, ttft: float, rates: list[float]):
        records = []
        for index, rate in enumerate(rates):
            records += open_loop_level(
                8, index, 1_700_000_000.0 + 100 * index, interval=1 / rate, count=30,
                latency=ttft + 0.3, ttft=ttft,
            )  # fmt: skip
        return write_run(root, "sim", records, manifest_fields=arrival_manifest(rates, 8))

    base = open_run(tmp_path / "a", 0.2, [2.0, 4.0])
    run = open_run(tmp_path / "b", 0.2, [2.0, 8.0])
    result = compared(base, run)
    assert [level.level for level in result.levels] == ["offered 2 req/s"]
    assert (result.only_in_baseline, result.only_in_run) == (
        ["offered 4 req/s"],
        ["offered 8 req/s"],
    )


def test_folders_of_several_labels_are_compared_label_by_label(tmp_path):
    for side, slow in (("a", 0.1), ("b", 0.2)):
        compare_run(tmp_path / side, "fp8", seed=1, stamp="20260101T000000Z")
        compare_run(tmp_path / side, "nvfp4", ttft=slow, seed=2, stamp="20260101T000001Z")
    compare_run(tmp_path / "a", "awq", seed=3, stamp="20260101T000002Z")
    result = compared(tmp_path / "a", tmp_path / "b")
    found = {
        (lvl.baseline_label, lvl.level, c.figure): c.verdict
        for lvl in result.levels
        for c in lvl.cells
    }
    assert found[("fp8", "C=1", "ttft_mean_ms")] == NOISE
    assert found[("nvfp4", "C=1", "ttft_mean_ms")] == WORSE
    assert result.only_in_baseline == ["label awq"]


# request and workload settings


def max_tokens(value: int) -> dict:
    return {"workload": {"name": "chat", "max_tokens": value}, "sampling": {"max_tokens": value}}


def test_runs_whose_max_tokens_differ_are_bad_input_naming_the_setting(tmp_path):
    base = compare_run(tmp_path / "a", seed=1, manifest_fields=max_tokens(32))
    run = compare_run(tmp_path / "b", seed=2, manifest_fields=max_tokens(128))
    with pytest.raises(InputError, match=r"settings differ \(workload.max_tokens 32 vs 128; "):
        compared(base, run)


def test_runs_whose_settings_differ_are_compared_when_allowed_with_each_difference_listed(
    tmp_path,
):
    base = compare_run(tmp_path / "a", seed=1, manifest_fields=max_tokens(32))
    run = compare_run(tmp_path / "b", seed=2, manifest_fields=max_tokens(128))
    result = compare(*load_pair(base, run), defaults(), SETTINGS, allow_different_settings=True)
    assert [str(d) for d in result.settings_differ] == [
        "workload.max_tokens 32 vs 128",
        "sampling.max_tokens 32 vs 128",
    ]
    assert set(verdicts(result).values()) == {NOISE}


def test_runs_of_the_same_settings_list_no_difference(tmp_path):
    base = compare_run(tmp_path / "a", seed=1, manifest_fields=max_tokens(32))
    run = compare_run(tmp_path / "b", seed=2, manifest_fields=max_tokens(32))
    assert compared(base, run).settings_differ == []


# a thinking model's TTFO and answered share


def test_plain_runs_have_no_ttfo_or_answered_share_cells(tmp_path):
    found = verdicts(compared(compare_run(tmp_path / "a", seed=1), compare_run(tmp_path / "b")))
    assert not any(figure.startswith(("ttfo_", "answered_")) for _, figure in found)


def test_requests_that_reasoned_to_max_tokens_make_the_answered_share_worse(tmp_path):
    base = compare_run(tmp_path / "a", levels=(1,), reasoning=4, seed=1)
    run = compare_run(tmp_path / "b", levels=(1,), reasoning=4, no_answer=31, seed=2)
    cells = {c.figure: c for c in compared(base, run).levels[0].cells}
    share = cells["answered_share"]
    assert (share.baseline, share.run, share.change_unit) == (100.0, 22.5, "pp")  # 9 of 40
    assert share.verdict == WORSE


def test_a_run_where_no_request_answered_has_no_ttfo_and_a_worse_answered_share(tmp_path):
    base = compare_run(tmp_path / "a", levels=(1,), seed=1)
    run = compare_run(tmp_path / "b", levels=(1,), reasoning=4, no_answer=40, seed=2)
    cells = {c.figure: c for c in compared(base, run).levels[0].cells}
    assert cells["ttfo_mean_ms"].verdict == NO_DATA and cells["ttfo_mean_ms"].run is None
    assert cells["answered_share"].verdict == WORSE and cells["answered_share"].run == 0.0


def test_a_longer_reasoning_makes_the_ttfo_worse_and_leaves_the_ttft_within_noise(tmp_path):
    base = compare_run(tmp_path / "a", levels=(1,), reasoning=4, seed=1)
    run = compare_run(tmp_path / "b", levels=(1,), reasoning=12, seed=2)
    found = verdicts(compared(base, run))
    assert {found[("C=1", f"ttfo_{s}_ms")] for s in ("mean", "p50", "p90")} == {WORSE}
    assert found[("C=1", "ttft_mean_ms")] == NOISE
    assert found[("C=1", "answered_share")] == NOISE


def test_a_plain_baseline_s_ttfo_is_its_ttft(tmp_path):
    base = compare_run(tmp_path / "a", levels=(1,), seed=1)
    run = compare_run(tmp_path / "b", levels=(1,), reasoning=4, seed=2)
    cells = {c.figure: c for c in compared(base, run).levels[0].cells}
    assert cells["ttfo_mean_ms"].baseline == pytest.approx(cells["ttft_mean_ms"].baseline)


# too few requests for an interval


def test_a_level_of_3_requests_has_no_interval_and_says_so(tmp_path):
    base = compare_run(tmp_path / "a", levels=(1,), per_level=3, seed=1)
    run = compare_run(tmp_path / "b", levels=(1,), per_level=3, ttft=0.3, seed=2)
    cells = {c.figure: c for c in compared(base, run).levels[0].cells}
    mean = cells["ttft_mean_ms"]
    assert mean.change == pytest.approx(200, rel=0.2) and mean.ci_low is None
    assert (mean.verdict, mean.note) == (
        NOISE,
        "too few requests for an interval: 3 and 3, 5 needed",
    )
    assert cells["failure_ratio"].ci_low == 0.0 and cells["failure_ratio"].note == ""


def test_a_run_without_a_manifest_is_compared_with_a_note_that_its_settings_are_unknown(tmp_path):
    base = compare_run(tmp_path / "a", seed=1, manifest_fields=max_tokens(32))
    run = compare_run(tmp_path / "b", seed=2)
    (run / "manifest.json").unlink()
    result = compared(base, run)
    assert result.settings_differ == []
    assert f"run: {run.name} has no manifest.json: its settings are unknown" in result.notes


def test_folders_of_several_labels_name_the_label_of_each_difference(tmp_path):
    for side, limit in (("a", 32), ("b", 64)):
        compare_run(tmp_path / side, "fp8", seed=1, stamp="20260101T000000Z")
        compare_run(
            tmp_path / side, "nvfp4", seed=2, stamp="20260101T000001Z",
            manifest_fields={"sampling": {"max_tokens": limit}},
        )  # fmt: skip
    with pytest.raises(InputError, match=r"\(nvfp4: sampling.max_tokens 32 vs 64\)"):
        compared(tmp_path / "a", tmp_path / "b")
