"""Records built from the report's base tables reproduce its derived tables (its 3.1 to 7.1).

The report derived sections 4.3, 5.5 and 6.1 from unrounded measurements, while its base table
(report_means.csv) is rounded to 2 decimals. Three printed values cannot be reached from the
rounded base and differ by one unit in the last digit; they are listed in KNOWN_ROUNDING with
the arithmetic, and every other cell must match exactly.
"""

from __future__ import annotations

import csv

import pandas as pd
import pytest

from analysis.cli import main
from tests.analysis_synthetic import (
    DATA,
    REPORT_ORDER,
    make_record,
    markdown_table,
    write_run,
)

# The report's printed tables (rows: concurrency 1, 2, 4, 8, 16; columns: REPORT_ORDER).
SYSTEM_RPS = {  # section 5.5, C / mean latency
    "FP8": ["0.06", "0.13", "0.25", "0.47", "0.85"],
    "FP8-MTP": ["0.15", "0.31", "0.58", "1.04", "1.72"],
    "AWQ-MTP": ["0.20", "0.40", "0.70", "1.25", "1.86"],
    "NVFP4": ["0.08", "0.15", "0.30", "0.56", "1.00"],
    "NVFP4-MTP": ["0.16", "0.34", "0.61", "1.14", "1.80"],
}
TOTAL_TPS = {  # section 6.1, mean TPS × C
    "FP8": ["8.1", "16.3", "31.6", "60.6", "108.2"],
    "FP8-MTP": ["19.5", "39.7", "74.2", "133.0", "221.4"],
    "AWQ-MTP": ["25.5", "50.8", "92.3", "160.7", "239.8"],
    "NVFP4": ["9.9", "19.6", "37.9", "72.2", "128.0"],
    "NVFP4-MTP": ["21.0", "43.4", "79.8", "146.2", "231.5"],
}
SATURATION = {  # section 6.2, TPS(C) / TPS(1)
    "FP8": ["100%", "100%", "97%", "93%", "83%"],
    "FP8-MTP": ["100%", "102%", "95%", "85%", "71%"],
    "AWQ-MTP": ["100%", "100%", "91%", "79%", "59%"],
    "NVFP4": ["100%", "99%", "96%", "92%", "81%"],
    "NVFP4-MTP": ["100%", "103%", "95%", "87%", "69%"],
}
MTP_RATIO = {  # section 4.3, TPS(X-MTP) / TPS(X)
    "FP8": ["2.40x", "2.44x", "2.35x", "2.19x", "2.05x"],
    "NVFP4": ["2.13x", "2.21x", "2.10x", "2.02x", "1.81x"],
}
LEVELS = [1, 2, 4, 8, 16]

# (table, column, C) → the value the rounded base table gives, and why.
KNOWN_ROUNDING = {
    (
        "system_rps",
        "FP8-MTP",
        8,
    ): "1.03",  # 8 / 7.73 = 1.0349; the report's unrounded latency gave 1.04
    (
        "total_tps",
        "AWQ-MTP",
        1,
    ): "25.4",  # 25.45 × 1 is 25.4499… in binary; the unrounded TPS was ≥ 25.45
    ("mtp_ratio", "FP8", 8): "2.20x",  # 16.62 / 7.57 = 2.1955; the unrounded TPS gave 2.19
}


def expected(table: str, printed: dict[str, list[str]]) -> dict[tuple[str, int], str]:
    return {
        (column, c): KNOWN_ROUNDING.get((table, column, c), value)
        for column, values in printed.items()
        for c, value in zip(LEVELS, values, strict=False)
    }


def test_known_rounding_cases_really_differ_from_the_printed_report():
    printed = {"system_rps": SYSTEM_RPS, "total_tps": TOTAL_TPS, "mtp_ratio": MTP_RATIO}
    for (table, column, c), value in KNOWN_ROUNDING.items():
        assert printed[table][column][LEVELS.index(c)] != value


@pytest.fixture(scope="module")
def report_md(report_tables) -> str:
    return (report_tables / "report.md").read_text()


@pytest.fixture(scope="module")
def summary(report_tables) -> pd.DataFrame:
    return pd.read_csv(report_tables / "summary.csv")


def test_system_rps_table_of_section_5_5(report_md):
    rows = markdown_table(report_md, "System-wide RPS (C / mean latency)")
    assert rows[0][:6] == ["Label", "C=1", "C=2", "C=4", "C=8", "C=16"]
    got = {
        (row[0], c): value for row in rows[1:] for c, value in zip(LEVELS, row[1:6], strict=False)
    }
    assert got == expected("system_rps", SYSTEM_RPS)


def test_tps_times_concurrency_table_of_section_6_1(report_md):
    rows = markdown_table(report_md, "TPS × concurrency (tok/s)")
    header = rows[0]
    got = {
        (column, int(row[0])): value
        for row in rows[1:]
        for column, value in zip(header[1:], row[1:], strict=False)
    }
    assert got == expected("total_tps", TOTAL_TPS)


def test_saturation_index_table_of_section_6_2(report_md):
    rows = markdown_table(report_md, "Saturation index")
    header = rows[0]
    got = {
        (column, int(row[0])): value
        for row in rows[1:]
        for column, value in zip(header[1:], row[1:], strict=False)
    }
    assert got == expected("saturation", SATURATION)


def test_mtp_ratio_table_of_section_4_3(report_md):
    rows = markdown_table(
        report_md, "MTP speed-up ratio (TPS with MTP / TPS without) per concurrency"
    )
    assert rows[0] == ["Concurrency", "FP8 MTP ratio", "NVFP4 MTP ratio"]
    got = {
        (column.split()[0], int(row[0])): value
        for row in rows[1:]
        for column, value in zip(rows[0][1:], row[1:], strict=False)
    }
    assert got == expected("mtp_ratio", MTP_RATIO)


@pytest.mark.parametrize(
    "column, printed, pattern, table",
    [
        ("system_rps", SYSTEM_RPS, "{:.2f}", "system_rps"),
        ("total_tps", TOTAL_TPS, "{:.1f}", "total_tps"),
        ("saturation_pct", SATURATION, "{:.0f}%", "saturation"),
    ],
)
def test_summary_csv_carries_the_same_derived_values(summary, column, printed, pattern, table):
    got = {
        (row.label, row.concurrency): pattern.format(getattr(row, column))
        for row in summary.itertuples()
    }
    assert got == expected(table, printed)


def test_summary_csv_starts_with_the_contract_columns(summary):
    assert list(summary.columns[:25]) == [
        "label",
        "variant",
        "tp",
        "nodes",
        "concurrency",
        "n",
        "failures",
        "ttft_ms_mean",
        "ttft_ms_p50",
        "ttft_ms_p90",
        "itl_ms_mean",
        "itl_ms_p50",
        "itl_ms_p90",
        "tps_mean",
        "tps_p50",
        "tps_p90",
        "latency_s_mean",
        "latency_s_p50",
        "latency_s_p90",
        "throughput_rps",
        "system_rps",
        "measured_rps",
        "total_tps",
        "measured_total_tps",
        "saturation_pct",
    ]
    assert list(dict.fromkeys(summary["label"])) == REPORT_ORDER


def test_per_stream_rps_is_one_over_mean_latency_as_in_section_2(summary):
    fp8 = summary[summary["label"] == "FP8"].set_index("concurrency")
    assert fp8.loc[16, "throughput_rps"] == pytest.approx(1 / 18.93)
    assert round(fp8.loc[16, "throughput_rps"], 2) == 0.05


def test_nvfp4_over_fp8_differences_of_section_3_1(report_md):
    rows = markdown_table(report_md, "TPS (tok/s): FP8 vs NVFP4")
    assert [row[3] for row in rows[1:]] == ["+21.3%", "+20.4%", "+20.2%", "+19.3%", "+18.3%"]
    rows = markdown_table(report_md, "ITL (ms): FP8 vs NVFP4")
    assert [row[3] for row in rows[1:]] == ["-17.6%", "-17.2%", "-16.9%", "-16.3%", "-15.1%"]


def test_p90_over_p50_tables_of_section_7(tmp_path):
    """Levels whose upper 40 % of requests sit at ratio × the rest give p50 = base, p90 = ratio ×
    base, so section 7 must print report_p90_p50.csv back."""
    ratios: dict[str, dict[tuple[str, int], float]] = {}
    with (DATA / "report_p90_p50.csv").open() as handle:
        for row in csv.DictReader(handle):
            key = (row["variant"], int(row["concurrency"]))
            ratios.setdefault(row["metric"], {})[key] = float(row["p90_over_p50"])
    runs = []
    for i, variant in enumerate(REPORT_ORDER):
        records = []
        for index, c in enumerate([1, 4, 8, 16]):
            n = 10 * c
            for k in range(n):
                high = k >= 0.6 * n
                r = {m: ratios[m][(variant, c)] if high else 1.0 for m in ("ttft", "itl", "tps")}
                records.append(
                    make_record(
                        c,
                        index,
                        ttft=0.3 * r["ttft"],
                        itl=0.05 * r["itl"],
                        tps=20 * r["tps"],
                        latency=6.4,
                        start_time=1000.0 + k,
                    )
                )
        runs.append(write_run(tmp_path / "results", variant, records, stamp=f"2026010{i}"))
    out = tmp_path / "out"
    assert main([str(r) for r in runs] + ["--out", str(out), "--no-charts", "--quiet"]) == 0
    report = (out / "report.md").read_text()
    for metric, title in (("itl", "ITL p90/p50"), ("ttft", "TTFT p90/p50"), ("tps", "TPS p90/p50")):
        rows = markdown_table(report, title)
        got = {
            (row[0], int(c[2:])): v
            for row in rows[1:]
            for c, v in zip(rows[0][1:], row[1:], strict=False)
        }
        assert got == {key: f"{value:.2f}" for key, value in ratios[metric].items()}
