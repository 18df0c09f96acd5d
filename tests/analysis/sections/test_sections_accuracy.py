"""The report's accuracy section: the table of every run's probes with their intervals, the
wrong items, and the sample size that would tell the two closest variants apart; nothing at
all for runs without quality.json."""

from __future__ import annotations

from analysis.cli import main
from tests.analysis.fidelity.test_fidelity import GREEDY
from tests.analysis.figures.test_accuracy import quality_run
from tests.analysis.sections.test_sections_fidelity import records as kept_records
from tests.analysis_synthetic import closed_loop_level, write_run
from tests.report_files import section_number


def report(tmp_path, *runs) -> str:
    out = tmp_path / "out"
    assert main([str(r) for r in runs] + ["--out", str(out), "--no-charts", "--quiet"]) == 0
    return (out / "report.md").read_text()


def section(text: str) -> str:
    return text[text.index(f"## {section_number(text, 'Accuracy')}. Accuracy") :]


def test_one_run_s_table_interval_and_wrong_items(tmp_path):
    text = section(report(tmp_path, quality_run(tmp_path / "r", "fp8", 35, 50)))
    assert "| Label | Probe | n | Correct | Accuracy (%) | 95 % interval (%) |" in text
    assert "| fp8 | gsm8k.jsonl | 50 | 35 | 70.0 | 56.2–80.9 | 0 | 0 |" in text
    assert "Grading of `gsm8k.jsonl`: final number." in text
    assert "`fp8` · `gsm8k.jsonl`: wrong: 36, 37, 38" in text
    assert "One label per probe" in text


def test_two_variants_the_items_needed_and_whether_they_differ(tmp_path):
    runs = [
        quality_run(tmp_path / "a", "fp8", 45, 50),
        quality_run(tmp_path / "b", "nvfp4", 35, 50),
    ]
    text = section(report(tmp_path, *runs))
    assert (
        "**gsm8k.jsonl**: telling `nvfp4` (70.0 %) from `fp8` (90.0 %), the two closest, apart "
        "takes about 62 items per variant (two-sided two-proportion z-test at α = 0.05 with "
        "power 0.8; Fleiss, Levin & Paik 2003, ch. 4); these runs graded 50 and 50: the "
        "difference is significant at α = 0.05 (p = 0.0124)."
    ) in text


def test_close_variants_are_not_told_apart_by_few_items(tmp_path):
    runs = [quality_run(tmp_path / "a", "fp8", 36, 50), quality_run(tmp_path / "b", "awq", 35, 50)]
    text = section(report(tmp_path, *runs))
    assert "takes about 8,080 items per variant" in text
    assert "the difference is not significant at α = 0.05 (p = 0.826)." in text


def test_equal_variants(tmp_path):
    runs = [quality_run(tmp_path / "a", "fp8", 35, 50), quality_run(tmp_path / "b", "awq", 35, 50)]
    assert "scored the same (70.0 %)" in section(report(tmp_path, *runs))


def test_a_label_run_twice_names_each_run(tmp_path):
    runs = [quality_run(tmp_path / "a", "fp8", 35, 50), quality_run(tmp_path / "b", "fp8", 30, 50)]
    text = section(report(tmp_path, *runs))
    assert "| Run | Probe |" in text
    assert f"| fp8 ({runs[0].name}) | gsm8k.jsonl |" in text


def test_a_report_without_quality_json_has_no_accuracy_section(tmp_path):
    run = write_run(
        tmp_path,
        "plain",
        closed_loop_level(2, 0, 1000.0, ttft=0.1, itl=0.01, tps=50, latency=1.0, per_user=3),
    )
    assert "Accuracy" not in report(tmp_path, run)


def beside_the_load(run, levels: list[tuple[int, int, int, int]]):
    """``run``'s quality.json with per-level tallies: (index, C, correct, n) each."""
    import json

    from sparkload.records import QUALITY_FILE, QualityEntry, QualityLevel, QualityResult
    from sparkload.records import wilson_interval as interval

    entry = QualityEntry.from_dict(json.loads((run / QUALITY_FILE).read_text()))
    entry.levels = [
        QualityLevel(
            index,
            c,
            [QualityResult("arithmetic", n=n, correct=k, accuracy=k / n, low=lo, high=hi)],
            requests=10 * c,
        )
        for index, c, k, n in levels
        for lo, hi in [interval(k, n)]
    ]
    (run / QUALITY_FILE).write_text(json.dumps(entry.to_dict()))
    return run


def test_a_probe_beside_the_load_shows_accuracy_per_level(tmp_path):
    run = beside_the_load(quality_run(tmp_path / "a", "fp8", 12, 16), [(0, 1, 7, 8), (1, 4, 5, 8)])
    text = section(report(tmp_path, run))
    assert "| Label | Probe | C | Probe items / level requests | n | Correct |" in text
    assert "| fp8 | arithmetic | 1 | 8 / 10 | 8 | 7 | 87.5 | 52.9–97.8 |" in text
    assert "| fp8 | arithmetic | 4 | 8 / 40 | 8 | 5 | 62.5 | 30.6–86.3 |" in text


def test_two_labels_show_speed_beside_accuracy(tmp_path):
    runs = [
        quality_run(tmp_path / "a", "fp8", 45, 50),
        quality_run(tmp_path / "b", "nvfp4", 35, 50),
    ]
    text = section(report(tmp_path, *runs))
    assert "| Label | Probe | Output tok/s (fastest level) | at C | Capacity (C) |" in text
    # the synthetic levels' Σ output tokens / wall time; no --slo and no search: no capacity
    assert "| fp8 | gsm8k.jsonl | 512.0 | 4 | — | — | 50 | 90.0 | 78.6–95.7 |" in text
    assert "| nvfp4 | gsm8k.jsonl | 512.0 | 4 | — | — | 50 | 70.0 | 56.2–80.9 |" in text


def test_a_label_that_kept_its_outputs_shows_its_fastest_level_s_exact_share(tmp_path):
    runs = [
        quality_run(
            tmp_path / "a", "fp8", 45, 50, records=kept_records(True), manifest_fields=GREEDY
        ),
        quality_run(tmp_path / "b", "nvfp4", 35, 50, records=kept_records(False)),
    ]
    text = section(report(tmp_path, *runs))
    assert "| 95 % interval (%) | Exact vs own lowest level (%) |" in text
    # C=4 is the fastest level of both; one reply in four differs there from fp8's C=1
    assert "| 78.6–95.7 | 75.0 (" in text
    assert "| 56.2–80.9 | — |" in text
