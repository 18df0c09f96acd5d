"""run --quality-probe end to end against the built-in simulator at --sim-accuracy 0.5 (the
simulator's setting, not a claim about a model): each level's items graded at its
concurrency, per level and pooled in quality.json, and the report's per-level table."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from sparkload.records import PROBE_GRADE, QUALITY_FILE
from sparkload.records.requests_files import read_records
from tests.conftest import run_locust

pytestmark = pytest.mark.e2e  # starts Locust and the simulator


def test_each_level_grades_its_own_items_at_its_concurrency(tmp_path):
    run = run_locust(
        [
            "--headless",
            "--ladder",
            "1,4",
            "--requests-per-user",
            "5",
            "--max-tokens",
            "16",
            "--quality-probe",
            "arithmetic",
            "--quality-items",
            "4",
            "--sim-accuracy",
            "0.5",
            "--sim-profile",
            "fixed",
            "--sim-time-scale",
            "20",
        ],
        tmp_path / "results",
        timeout=60,
    )
    assert run.returncode == 0 and run.run_dir is not None, run.output
    entry = json.loads((run.run_dir / QUALITY_FILE).read_text())
    levels = [
        (level["concurrency"], level["requests"], level["results"][0]["n"])
        for level in entry["levels"]
    ]
    assert levels == [(1, 5, 4), (4, 20, 4)]
    # consecutive items at P 0.5: exactly half of every four right (sim/accuracy.py)
    assert [level["results"][0]["correct"] for level in entry["levels"]] == [2, 2]
    pooled = entry["results"][0]
    assert (pooled["n"], pooled["correct"], entry["complete"]) == (8, 4, True)
    assert "quality probe C=4: arithmetic: 2/4 correct, 50.0 %" in run.output
    assert "quality probe, pooled: arithmetic: 4/8 correct, 50.0 %" in run.output
    records = read_records(run.run_dir)
    probed = [r for r in records if PROBE_GRADE in (r.get("extra") or {})]
    assert sorted(r["extra"][PROBE_GRADE]["item"] for r in probed) == [
        f"arithmetic-{i}" for i in (1, 2, 3, 4, 5, 6, 7, 8)
    ]
    done = subprocess.run(
        [sys.executable, "-m", "analysis", str(run.run_dir), "--out", str(tmp_path / "r")]
        + ["--no-charts", "--quiet"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    text = (tmp_path / "r" / "report.md").read_text()
    assert "| arithmetic | 4 | 4 / 20 | 4 | 2 | 50.0 | 15.0–85.0 |" in text
