"""What was never measured stays undefined in the report: the ITL of a reply that came as one
chunk (even in records written when it was stored as 0), and the checks of a level with no
answered request."""

from __future__ import annotations

import pandas as pd
import pytest

from analysis.cli import main
from sparkload.records import CHECK_NO_DATA
from tests.analysis_synthetic import closed_loop_level, make_record, write_run


def report(tmp_path, run) -> tuple[pd.DataFrame, str]:
    out = tmp_path / "out"
    assert main([str(run), "--out", str(out), "--no-charts", "--quiet"]) == 0
    return pd.read_csv(out / "summary.csv"), (out / "report.md").read_text()


def test_an_older_records_itl_of_0_for_a_reply_in_one_chunk_is_no_gap_of_0(tmp_path):
    records = closed_loop_level(1, 0, 1000.0, ttft=0.2, itl=0.05, tps=20, latency=6.4, per_user=3)
    # as written before ITL was left undefined: 64 tokens, one chunk, no time between them
    old = make_record(
        1, 0, ttft=0.2, itl=0.0, tps=320.0, latency=0.2, start_time=1100.0, output_tokens=64
    )
    old["chunks"] = 1
    summary, _ = report(tmp_path, write_run(tmp_path / "r", "x", [*records, old]))
    row = summary.iloc[0]
    assert (row["itl_ms_mean"], row["itl_ms_p50"], row["itl_n"]) == (
        pytest.approx(50.0),
        pytest.approx(50.0),
        3,
    )


def test_a_level_where_every_request_failed_has_no_data_for_its_checks(tmp_path):
    failed = [
        make_record(
            2,
            0,
            ttft=None,
            itl=None,
            tps=None,
            latency=None,
            start_time=1000.0 + i,
            status="error",
            error_kind="http_500",
            output_tokens=None,
        )  # fmt: skip
        for i in range(4)
    ]
    _, text = report(tmp_path, write_run(tmp_path / "r", "x", failed))
    (row,) = [line for line in text.splitlines() if line.startswith("| 2 | 0 | 4 |")]
    assert row.endswith(f"| {CHECK_NO_DATA} | {CHECK_NO_DATA} |")
