"""Structured output end to end (issue 27, must-show 2 and 5): with a JSON schema file and the
built-in simulator breaking 10 % of its replies on purpose, the level's validity over 200
requests is between 85 % and 95 %, parse and schema failures counted apart, and a bound of 99 %
fails the run (exit 4); a bad schema file is one line and exit 2, before any load."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from sparkload.records import EXIT_BAD_INPUT, EXIT_CHECK_FAILED
from tests.conftest import ROOT, run_locust

pytestmark = pytest.mark.e2e  # starts Locust and the simulator

SCHEMA = {
    "type": "object",
    "properties": {
        "city": {"type": "string", "minLength": 2},
        "kind": {"type": "string", "enum": ["town", "village"]},
        "people": {"type": "integer", "minimum": 1},
    },
    "required": ["city", "kind", "people"],
    "additionalProperties": False,
}


def test_a_tenth_broken_on_purpose_reads_as_85_to_95_percent_valid_and_fails_a_99_bound(
    tmp_path,
):
    schema = tmp_path / "place.json"
    schema.write_text(json.dumps(SCHEMA))
    run = run_locust(
        [
            "--headless",
            "--sim-profile",
            "fixed",
            "--sim-schema-error-rate",
            "0.1",
            "--ladder",
            "8",
            "--requests-per-user",
            "25",
            "--max-tokens",
            "32",
            "--response-format",
            f"json_schema:{schema}",
            "--check",
            "schema_valid_ratio>=0.99",
        ],
        tmp_path / "results",
        timeout=180,
    )
    assert run.returncode == EXIT_CHECK_FAILED, run.output
    assert "schema_valid_ratio" in run.output
    sent = run.manifest["request"]["response_format"]  # as sent: the schema reproducible
    assert sent["json_schema"] == {"name": "place", "schema": SCHEMA, "strict": True}
    verdicts = [r.get("structured") for r in run.records if r["phase"] == "measure"]
    assert len(verdicts) == 200
    valid, parse, broken = (verdicts.count(k) for k in ("valid", "parse_error", "schema_error"))
    assert 170 <= valid <= 190 and parse > 0 and broken > 0 and valid + parse + broken == 200
    out = tmp_path / "report"
    subprocess.run(
        [sys.executable, "-m", "analysis", str(run.run_dir), "--out", str(out), "--no-charts"],
        cwd=ROOT,
        check=True,
        capture_output=True,
    )
    level = json.loads((out / "summary.json").read_text())["levels"][0]
    assert 0.85 <= level["schema_valid_ratio"] <= 0.95
    assert (level["structured_parse_error"], level["structured_schema_error"]) == (parse, broken)


def test_a_schema_file_the_library_rejects_is_one_line_and_exit_2_before_the_load(tmp_path):
    schema = tmp_path / "bad.json"
    schema.write_text('{"type": "objekt"}')
    run = run_locust(
        ["--headless", "--sim-profile", "fixed", "--response-format", f"json_schema:{schema}"],
        tmp_path / "results",
    )
    assert run.returncode == EXIT_BAD_INPUT, run.output
    assert f"--response-format: {schema}: not a valid JSON Schema at type" in run.output
    assert run.run_dir is None
