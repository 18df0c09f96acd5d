"""benchmarks/sim_calibration.py, which checks the profiles against the report: its verdict."""

import csv
import re
import shutil
from pathlib import Path

import pytest

from benchmarks import sim_calibration

pytestmark = pytest.mark.e2e  # starts simulator processes


def report_with_ttft_times(folder: Path, factor: float) -> Path:
    """The report's tables with every mean TTFT multiplied by ``factor``."""
    source = sim_calibration.REPORT_DIR
    shutil.copy(source / "report_p90_p50.csv", folder / "report_p90_p50.csv")
    with (source / "report_means.csv").open() as file:
        rows = list(csv.DictReader(file))
    for row in rows:
        row["ttft_ms"] = f"{float(row['ttft_ms']) * factor:.2f}"
    with (folder / "report_means.csv").open("w", newline="") as file:
        writer = csv.DictWriter(file, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    return folder


def test_a_cell_outside_its_bound_makes_the_benchmark_exit_1(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(sim_calibration, "REPORT_DIR", report_with_ttft_times(tmp_path, 3.0))
    assert sim_calibration.main(["--profiles", "fp8", "--time-scale", "50"]) == 1
    misses = re.search(r"(\d+) cell\(s\) outside their bound", capsys.readouterr().out)
    assert misses and int(misses[1]) >= 5  # fp8's five TTFT cells at least
