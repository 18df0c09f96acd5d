"""The report's per-endpoint breakdown for a target served by several endpoints (one per Spark)."""

from __future__ import annotations

import csv

import pytest

from analysis.cli import main
from tests.analysis_synthetic import make_record, markdown_table, write_run

FAST, SLOW = "http://spark-1:8000", "http://spark-2:8000"
TITLE = "Per endpoint and concurrency (measured requests)"


def served_by(endpoint: str, level: int, tps: float, user: int, status: str = "ok") -> dict:
    record = make_record(
        level,
        level.bit_length() - 1,
        ttft=0.2,
        itl=1 / tps,
        tps=tps,
        latency=128 / tps,
        start_time=1000.0 + user,
        user=user,
        status=status,
        error_kind=None if status == "ok" else "timeout",
    )
    record["endpoint"] = endpoint
    return record


@pytest.fixture
def replicas_report(tmp_path):
    """Two replicas: at C=2 each serves one user; the second is slower and fails once."""
    records = [
        served_by(FAST, 1, 20.0, 0),
        served_by(FAST, 1, 20.0, 0),
        served_by(FAST, 2, 20.0, 0),
        served_by(SLOW, 2, 10.0, 1),
        served_by(SLOW, 2, 10.0, 1, "error"),
    ]
    replicas = write_run(tmp_path / "runs", "replicas", records, variant="nvfp4", nodes=2)
    single = write_run(tmp_path / "runs", "single", [served_by(FAST, 1, 20.0, 0)], variant="fp8")
    out = tmp_path / "report"
    assert main([str(replicas), str(single), "--out", str(out), "--no-charts", "--quiet"]) == 0
    return out


def test_each_endpoint_of_a_label_gets_its_own_row_per_concurrency(replicas_report):
    rows = markdown_table((replicas_report / "report.md").read_text(), TITLE)
    header, body = rows[0], rows[1:]
    cells = [dict(zip(header, row, strict=False)) for row in body]
    assert [
        (c["Concurrency"], c["Endpoint"], c["n"], c["Failures"], c["TPS mean"]) for c in cells
    ] == [
        ("1", FAST, "2", "0", "20.00"),
        ("2", FAST, "1", "0", "20.00"),
        ("2", SLOW, "1", "1", "10.00"),
    ]


def test_labels_served_by_one_endpoint_are_left_out(replicas_report):
    rows = markdown_table((replicas_report / "report.md").read_text(), TITLE)
    assert {row[0] for row in rows[1:]} == {"replicas"}


def test_the_breakdown_is_also_written_as_csv(replicas_report):
    (table,) = (replicas_report / "tables").glob("*_endpoints.csv")
    rows = list(csv.DictReader(table.open()))
    assert [(r["Endpoint"], r["n"]) for r in rows] == [(FAST, "2"), (FAST, "1"), (SLOW, "1")]


def test_a_report_without_several_endpoints_says_so(tmp_path):
    run = write_run(tmp_path / "runs", "single", [served_by(FAST, 1, 20.0, 0)], variant="fp8")
    assert main([str(run), "--out", str(tmp_path / "report"), "--no-charts", "--quiet"]) == 0
    assert (
        "Every label was served by one endpoint" in (tmp_path / "report" / "report.md").read_text()
    )
