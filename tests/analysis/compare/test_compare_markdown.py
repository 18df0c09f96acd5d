"""The comparison's Markdown: the verdict first, one row per level and figure, what only one run
had, numbers as the report rounds them."""

from __future__ import annotations

import pytest

from analysis.compare.compare import NOISE, WORSE, Cell, Comparison, LevelComparison
from analysis.compare.compare_markdown import number, render
from analysis.compare.run_settings import SettingDifference


def cell(figure: str = "ttft_p90_ms", verdict: str = NOISE, **fields) -> Cell:
    values = {
        "title": "TTFT p90", "unit": "ms", "baseline": 100.0, "run": 101.0, "change": 1.0,
        "change_unit": "%", "ci_low": -2.0, "ci_high": 4.0, "tolerance": "+10%",
    }  # fmt: skip
    return Cell(figure=figure, verdict=verdict, **{**values, **fields})


def comparison(*levels: LevelComparison, **fields) -> Comparison:
    return Comparison("base", "run", 0.9, 1000, 0, "linear", list(levels), **fields)


def level(name: str = "C=1", *cells: Cell, labels: tuple[str, str] = ("sim", "sim")):
    return LevelComparison(name, *labels, 40, 40, 0, 0, list(cells or (cell(),)))


def rows(text: str) -> list[str]:
    """The table's body rows."""
    return [line for line in text.splitlines() if line.startswith("| ") and "| level |" not in line]


@pytest.mark.parametrize(
    ("value", "shown"),
    [(0.24061, "0.2406"), (101.26, "101.3"), (20.004, "20.00"), (12345.6, "12,346"), (0, "0")],
)
def test_numbers_keep_four_significant_digits_without_an_exponent(value, shown):
    assert number(value) == shown


def test_a_missing_number_is_a_dash():
    assert number(None) == "—"


def test_no_worse_cell_heads_the_table_with_no_regression():
    text = render(comparison(level()))
    assert text.startswith("## sparkload compare: no regression\n")
    assert "1 common level(s), 1 cells: 0 worse, 0 better, 1 within noise." in text


def test_a_cell_is_one_row_with_change_interval_tolerance_and_verdict():
    (row,) = rows(render(comparison(level())))
    assert (
        row
        == "| C=1 | TTFT p90 (ms) | 100.0 | 101.0 | +1.0% | -2.0 … +4.0% | +10% | within noise |"
    )


def test_a_worse_cell_is_bold_and_named_in_the_verdict_line():
    worse = cell(verdict=WORSE, run=150.0, change=50.0, ci_low=40.0, ci_high=60.0)
    text = render(comparison(level("C=4", worse)))
    assert text.startswith("## sparkload compare: REGRESSION\n")
    assert "Worse: C=4 TTFT p90 (+50.0%)." in text
    assert rows(text)[0].endswith("| **worse** |")


def test_the_failure_ratio_reads_in_points():
    failures = cell(
        "failure_ratio", title="Failure ratio", unit="%", baseline=0.0, run=2.0, change=2.0,
        change_unit="pp", ci_low=0.5, ci_high=3.5, tolerance="+1%",
    )  # fmt: skip
    (row,) = rows(render(comparison(level("C=1", failures))))
    assert "| +2.0 pp | +0.5 … +3.5 pp | +1 pp |" in row


def test_a_cell_without_values_shows_dashes():
    empty = cell(run=None, change=None, ci_low=None, ci_high=None, verdict="n/a")
    (row,) = rows(render(comparison(level("C=1", empty))))
    assert row.endswith("| 100.0 | — | — | — | +10% | n/a |")


def test_levels_only_one_run_has_and_notes_are_listed_under_the_table():
    text = render(
        comparison(
            level(), only_in_baseline=["C=32"], only_in_run=["C=8"], notes=["run x did not finish"]
        )
    )
    assert text.endswith(
        "- only in baseline: C=32\n- only in run: C=8\n- note: run x did not finish\n"
    )


def test_several_label_pairs_name_the_label_in_each_row():
    text = render(comparison(level(labels=("fp8", "fp8")), level(labels=("nvfp4", "nvfp4"))))
    assert [row.split(" | ")[0] for row in rows(text)] == ["| fp8 C=1", "| nvfp4 C=1"]


def test_one_pair_of_differently_named_labels_is_said_once():
    text = render(comparison(level(labels=("v0.8", "v0.9"))))
    assert "Label 'v0.9' compared with the baseline's 'v0.8'." in text
    assert rows(text)[0].startswith("| C=1 |")


def test_a_cell_s_note_follows_its_verdict():
    few = cell(note="fewer than 20 requests")
    assert rows(render(comparison(level("C=1", few))))[0].endswith(
        "| within noise (fewer than 20 requests) |"
    )


def test_settings_compared_anyway_are_listed_under_the_verdict_line():
    differ = [SettingDifference("workload.max_tokens", "16", "32")]
    lines = render(comparison(level(), settings_differ=differ)).splitlines()
    start = lines.index("Settings that differ (compared anyway, --allow-different-settings): "
                        "the changes below are not the server's alone.")  # fmt: skip
    assert lines[start + 2] == "- workload.max_tokens 16 vs 32"
    assert start < lines.index(
        "| level | figure | baseline | run | change | interval | tolerance | verdict |"
    )


def test_runs_of_the_same_settings_list_none():
    assert "Settings that differ" not in render(comparison(level()))


def test_a_cell_without_an_interval_says_why_in_its_row():
    few = cell(
        ci_low=None, ci_high=None, note="too few requests for an interval: 3 and 3, 5 needed"
    )
    (row,) = rows(render(comparison(level("C=1", few))))
    assert row.endswith(
        "| — | +10% | within noise (too few requests for an interval: 3 and 3, 5 needed) |"
    )
