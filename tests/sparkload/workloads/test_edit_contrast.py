"""Edit workload, distinct vs identical prompts, and two runs of one label: the report's tables."""

from __future__ import annotations

import csv

import pytest

from analysis.cli import main as analysis_main
from tests.conftest import run_locust
from tests.report_files import table_path

pytestmark = pytest.mark.e2e  # starts Locust, simulator or server processes

EDIT = [
    "--headless",
    "--workload",
    "edit",
    "--ladder",
    "1,2",
    "--requests-per-user",
    "2",
    "--max-tokens",
    "64",
    "--sim-profile",
    "awq-mtp",
    "--sim-time-scale",
    "20",
]


@pytest.fixture(scope="module")
def report(tmp_path_factory):
    results = tmp_path_factory.mktemp("results")
    runs = [
        run_locust([*EDIT, "--label", "edit-distinct"], results / "a"),
        run_locust([*EDIT, "--label", "edit-distinct"], results / "b"),
        run_locust([*EDIT, "--label", "edit-identical", "--identical-prompts"], results / "c"),
    ]
    for run in runs:
        assert run.returncode == 0, run.output
    out = results / "report"
    assert (
        analysis_main(
            [*(str(r.run_dir) for r in runs), "--out", str(out), "--no-charts", "--quiet"]
        )
        == 0
    )
    return runs, out


def table(out, key):
    with open(table_path(out, key), newline="") as handle:
        return list(csv.DictReader(handle))


def test_edit_requests_pin_the_asked_length_and_get_it(report):
    runs, _ = report
    assert {(r["max_tokens"], r["output_tokens"]) for r in runs[0].records} == {(64, 64)}


def test_distinct_edit_prompts_are_never_served_from_the_cache(report):
    runs, _ = report
    assert {r["cached_tokens"] or 0 for r in runs[0].records} == {0}


def test_identical_edit_prompts_are_served_from_the_cache_after_the_first(report):
    runs, _ = report
    cached = [r["cached_tokens"] for r in sorted(runs[2].records, key=lambda r: r["start_time"])]
    assert cached[0] == 0 and all(c > 0 for c in cached[1:])


def test_report_md_shows_distinct_and_identical_figures_side_by_side(report):
    _, out = report
    text = (out / "report.md").read_text()
    assert "**Distinct (edit-distinct) vs identical (edit-identical) prompts**" in text
    header = next(
        line for line in text.splitlines() if line.startswith("| Concurrency | Aggregate, distinct")
    )
    assert (
        "Aggregate, identical" in header
        and "Per stream, distinct" in header
        and "Per stream, identical" in header
    )


def test_the_contrast_table_has_both_figures_for_every_level(report):
    _, out = report
    rows = table(out, "edit-distinct_vs_edit-identical")
    assert [row["Concurrency"] for row in rows] == ["1", "2"]
    for row in rows:
        assert float(row["Aggregate, distinct"]) > 0 and float(row["Aggregate, identical"]) > 0
        assert float(row["Cached prompt, distinct"]) == 0 < float(row["Cached prompt, identical"])


def test_aggregate_and_per_stream_throughput_are_side_by_side_for_every_level(report):
    _, out = report
    rows = table(out, "edit-identical_aggregate_per_stream")
    assert [row["Concurrency"] for row in rows] == ["1", "2"]
    assert all(
        float(row["Aggregate tok/s"]) > 0 and float(row["Per-stream tok/s"]) > 0 for row in rows
    )


def test_two_runs_of_one_label_get_an_agreement_table_in_percent(report):
    _, out = report
    rows = table(out, "edit-distinct_agreement")
    assert {row["Metric"] for row in rows} == {
        "Aggregate tok/s",
        "Per-stream tok/s",
        "TTFT ms",
        "ITL ms",
    }
    assert all(float(row["Agreement (spread %)"]) >= 0 for row in rows)
    assert all(float(row["Run 1"]) > 0 and float(row["Run 2"]) > 0 for row in rows)
