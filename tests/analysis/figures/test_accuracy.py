"""Accuracy probes' results read from run directories, and the statistics that compare two
variants: the sample size against documented values, the two-proportion test against R's."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from analysis.figures import accuracy
from analysis.reading.load import load
from sparkload.records import QUALITY_FILE, QualityEntry, QualityResult, wilson_interval
from tests.analysis_synthetic import closed_loop_level, write_run


@pytest.mark.parametrize(
    ("p1", "p2", "needed"),
    [
        (0.08, 0.06, 2554),  # JMP's Two Sample Proportions calculator, its documented example
        (0.06, 0.08, 2554),  # symmetric
        (0.40, 0.50, 388),  # by hand: (1.95996·0.70356 + 0.84162·0.7)² / 0.01 = 387.3
        (0.80, 0.95, 76),
    ],
)
def test_the_sample_size_to_tell_two_rates_apart(p1, p2, needed):
    assert accuracy.samples_to_distinguish(p1, p2) == needed


def test_equal_rates_cannot_be_told_apart_and_more_power_needs_more_items():
    assert accuracy.samples_to_distinguish(0.7, 0.7) is None
    usual = accuracy.samples_to_distinguish(0.7, 0.75)
    assert usual is not None and accuracy.samples_to_distinguish(0.7, 0.75, power=0.9) > usual
    stricter = accuracy.samples_to_distinguish(0.7, 0.75, alpha=0.01)
    assert stricter is not None and stricter > usual


def test_the_two_proportion_test_is_r_s_prop_test_without_correction():
    # prop.test(c(15, 25), c(50, 50), correct = FALSE): X-squared = 4.1667 (z²), p = 0.04123
    assert accuracy.two_proportion_p(15, 50, 25, 50) == pytest.approx(0.04123, abs=5e-6)
    assert accuracy.two_proportion_p(25, 50, 15, 50) == pytest.approx(0.04123, abs=5e-6)
    assert accuracy.two_proportion_p(35, 50, 35, 50) == pytest.approx(1.0)
    assert accuracy.two_proportion_p(0, 50, 0, 40) is None  # nothing varies: nothing to test
    assert accuracy.two_proportion_p(1, 0, 1, 10) is None


def quality_run(
    root: Path,
    label: str,
    correct: int,
    n: int,
    probe: str = "gsm8k.jsonl",
    records: list[dict] | None = None,
    manifest_fields: dict | None = None,
) -> Path:
    """A run directory with records (one level at C=4 unless given) and a quality.json of one
    probe."""
    run = write_run(
        root,
        label,
        records
        or closed_loop_level(4, 0, 1000.0, ttft=0.1, itl=0.01, tps=50, latency=1.0, per_user=2),
        manifest_fields={
            "mode": "quality",
            "warmup_requests_per_level": 0,
            **(manifest_fields or {}),
        },
    )
    low, high = wilson_interval(correct, n)
    entry = QualityEntry(
        complete=True,
        results=[
            QualityResult(
                name=probe,
                kind="gsm8k",
                grading="final number",
                planned=n,
                n=n,
                correct=correct,
                accuracy=correct / n,
                low=low,
                high=high,
                wrong_ids=[str(i) for i in range(correct + 1, n + 1)],
            )
        ],
    )
    (run / QUALITY_FILE).write_text(json.dumps(entry.to_dict()))
    return run


def test_results_are_one_row_per_run_and_probe(tmp_path):
    runs = [
        quality_run(tmp_path / "a", "fp8", 35, 50),
        quality_run(tmp_path / "b", "nvfp4", 30, 50),
    ]
    frame = accuracy.results(load(runs))
    assert list(frame["label"]) == ["fp8", "nvfp4"]
    assert list(frame["accuracy"]) == [0.7, 0.6]
    assert frame.iloc[0]["wrong_ids"] == [str(i) for i in range(36, 51)]
    assert frame.iloc[0]["low"] == wilson_interval(35, 50)[0]


def test_runs_without_quality_json_give_an_empty_frame_and_summary(tmp_path):
    run = write_run(
        tmp_path,
        "plain",
        closed_loop_level(1, 0, 1000.0, ttft=0.1, itl=0.01, tps=50, latency=1.0, per_user=2),
    )
    dataset = load([run])
    assert accuracy.results(dataset).empty
    assert list(accuracy.results(dataset).columns) == list(accuracy.COLUMNS)
    assert accuracy.summary_entries(dataset) == {}


def test_an_unreadable_quality_json_is_a_note(tmp_path):
    run = quality_run(tmp_path, "fp8", 1, 2)
    (run / QUALITY_FILE).write_text("{not json")
    found, notes = accuracy.entries(load([run]))
    assert found == [] and notes == [f"`{run.name}`: unreadable quality.json (JSONDecodeError)"]


def test_the_closest_pair_is_the_two_labels_nearest_in_accuracy(tmp_path):
    runs = [
        quality_run(tmp_path / "a", "fp8", 45, 50),
        quality_run(tmp_path / "b", "awq", 30, 50),
        quality_run(tmp_path / "c", "nvfp4", 42, 50),
    ]
    (pair,) = accuracy.closest_pairs(accuracy.results(load(runs)))
    assert (pair.probe, pair.first["label"], pair.second["label"]) == (
        "gsm8k.jsonl",
        "nvfp4",
        "fp8",
    )
    assert pair.needed == accuracy.samples_to_distinguish(0.84, 0.9)
    assert pair.p_value == accuracy.two_proportion_p(42, 50, 45, 50)


def test_one_label_per_probe_has_no_pair(tmp_path):
    runs = [
        quality_run(tmp_path / "a", "fp8", 45, 50),
        quality_run(tmp_path / "b", "fp8", 40, 50, probe="arithmetic"),
    ]
    assert accuracy.closest_pairs(accuracy.results(load(runs))) == []
