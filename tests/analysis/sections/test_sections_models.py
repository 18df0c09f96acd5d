"""Requests by model: a run that spread its requests over models (a base and its LoRA adapters)
gets each model's shares and figures per level, in the report, its CSV and summary.json; a run
of one model gets no such section."""

from __future__ import annotations

import csv
import json

from analysis.cli import main
from tests.analysis_synthetic import make_record, markdown_table, write_run

TITLE = "Requests by model per label and concurrency"


def _records(models: dict[str, tuple[int, float, int]], level: int = 4) -> list[dict]:
    """``count`` measured requests of each model with its TTFT (s) and output tokens."""
    records = []
    for model, (count, ttft, tokens) in models.items():
        for i in range(count):
            record = make_record(
                level,
                0,
                ttft=ttft,
                itl=0.02,
                tps=50.0,
                latency=ttft + 0.02 * tokens,
                start_time=1000.0 + i,
                output_tokens=tokens,
                user=i % level,
            )
            records.append({**record, "model": model})
    return records


def _report(tmp_path, run) -> tuple[str, str]:
    out = tmp_path / "out"
    assert main([str(run), "--out", str(out), "--no-charts", "--quiet"]) == 0
    return (out / "report.md").read_text(), str(out)


def test_each_model_has_its_share_of_requests_and_tokens_and_its_ttft(tmp_path):
    records = _records({"tenant-a": (70, 0.2, 30), "tenant-b": (30, 0.5, 10)})
    run = write_run(tmp_path / "results", "mix", records)
    rows = markdown_table(_report(tmp_path, run)[0], TITLE)
    head = rows[0]
    at = {row[head.index("Model")]: row for row in rows[1:]}
    assert at["tenant-a"][head.index("Requests")] == "70"
    assert at["tenant-a"][head.index("Share of requests")] == "0.700"
    assert at["tenant-b"][head.index("Share of output tokens")] == f"{300 / 2400:.3f}"
    assert at["tenant-b"][head.index("TTFT ms p90")] == "500.00"


def test_a_failed_request_counts_in_the_shares_not_in_the_figures(tmp_path):
    records = _records({"tenant-a": (3, 0.2, 10), "tenant-b": (1, 0.5, 10)})
    failed = make_record(4, 0, ttft=None, itl=None, tps=None, latency=None, start_time=2000.0)
    records.append({**failed, "model": "tenant-b", "status": "error", "error_kind": "http_500"})
    run = write_run(tmp_path / "results", "mix", records)
    rows = markdown_table(_report(tmp_path, run)[0], TITLE)
    head = rows[0]
    tenant_b = next(row for row in rows[1:] if row[head.index("Model")] == "tenant-b")
    assert tenant_b[head.index("Requests")] == "2"
    assert tenant_b[head.index("Failures")] == "1"
    assert tenant_b[head.index("Share of requests")] == "0.400"
    assert tenant_b[head.index("TTFT ms mean")] == "500.00"


def test_the_models_are_in_summary_json_and_a_csv_of_their_own(tmp_path):
    records = _records({"tenant-a": (7, 0.2, 30), "tenant-b": (3, 0.5, 10)})
    run = write_run(tmp_path / "results", "mix", records)
    _, out = _report(tmp_path, run)
    entries = json.loads((tmp_path / "out" / "summary.json").read_text())["models"]
    assert [(e["Model"], e["Requests"]) for e in entries] == [("tenant-a", 7), ("tenant-b", 3)]
    (table,) = (tmp_path / "out" / "tables").glob("*_models.csv")
    with table.open() as handle:
        assert [row["Model"] for row in csv.DictReader(handle)] == ["tenant-a", "tenant-b"]


def test_a_run_of_one_model_has_no_section_and_no_entry(tmp_path):
    run = write_run(tmp_path / "results", "one", _records({"base": (10, 0.2, 30)}))
    report, _ = _report(tmp_path, run)
    assert "By model" not in report
    assert "models" not in json.loads((tmp_path / "out" / "summary.json").read_text())
