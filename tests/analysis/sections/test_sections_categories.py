"""Requests by category: the report names every category a dataset line gave, per level, and
where two labels differ in drafting only, the speed-up of drafting per category with its
interval."""

from __future__ import annotations

from analysis.cli import main
from tests.analysis_synthetic import make_record, markdown_table, write_run

SPEEDUP = "off → on: speed-up per category"


def _records(tps: dict[str, float], level: int = 2, per_category: int = 12) -> list[dict]:
    """``per_category`` measured requests of each category, their TPS spread ±10 % around it."""
    records = []
    for category, mean in tps.items():
        for i in range(per_category):
            value = mean * (0.9 + 0.2 * i / (per_category - 1))
            records.append(
                make_record(
                    level,
                    0,
                    ttft=0.2,
                    itl=1 / value,
                    tps=value,
                    latency=128 / value,
                    start_time=1000.0 + i,
                    user=i % level,
                    category=category,
                )
            )
    return records


def _simulated(spec: str) -> dict:
    return {
        "manifest_fields": {
            "simulator": {
                "profile": "qwen3.8-fp8",
                "spec": spec,
                "quantization": "qwen3.8-fp8",
                "max_num_batched_tokens": 2048,
            }
        }
    }


def _report(tmp_path, runs) -> str:
    out = tmp_path / "out"
    assert main([str(r) for r in runs] + ["--out", str(out), "--no-charts", "--quiet"]) == 0
    return (out / "report.md").read_text()


def test_the_report_names_every_category_per_level(tmp_path):
    run = write_run(tmp_path / "results", "sim", _records({"coding": 30.0, "creative": 12.0}))
    rows = markdown_table(_report(tmp_path, [run]), "sim: requests by category per level")
    assert [row[:3] for row in rows[1:]] == [["2", "coding", "12"], ["2", "creative", "12"]]
    assert rows[1][rows[0].index("TPS mean")] == "30.0"


def test_records_without_categories_have_no_category_section(tmp_path):
    records = [{k: v for k, v in r.items() if k != "category"} for r in _records({"x": 9.0})]
    run = write_run(tmp_path / "results", "sim", records)
    assert "By category" not in _report(tmp_path, [run])


def test_drafting_s_speed_up_is_given_per_category_with_its_interval(tmp_path):
    root = tmp_path / "results"
    off = write_run(
        root, "off", _records({"coding": 10.0, "creative": 10.0}), **_simulated("none"), stamp="1"
    )
    on = write_run(
        root, "on", _records({"coding": 25.0, "creative": 11.0}), **_simulated("mtp:3"), stamp="2"
    )
    rows = markdown_table(_report(tmp_path, [off, on]), SPEEDUP)
    header = rows[0]
    by_category = {row[1]: dict(zip(header, row, strict=True)) for row in rows[1:]}
    assert by_category["coding"]["Speed-up"] == "2.50x"
    assert by_category["creative"]["Speed-up"] == "1.10x"
    low, high = (float(by_category["coding"][k].rstrip("x")) for k in ("low", "high"))
    assert low < 2.5 < high and low > 1.0


def test_too_few_requests_give_a_speed_up_without_an_interval(tmp_path):
    root = tmp_path / "results"
    off = write_run(
        root, "off", _records({"coding": 10.0}, per_category=3), **_simulated("none"), stamp="1"
    )
    on = write_run(
        root, "on", _records({"coding": 20.0}, per_category=3), **_simulated("mtp:3"), stamp="2"
    )
    row = markdown_table(_report(tmp_path, [off, on]), SPEEDUP)[1]
    assert row[6] == "2.00x" and row[7:] == ["—", "—"]  # the report's mark of none
