"""Issue 48, item 12: a structured reply that does not parse is named by its kind. A server whose
grammar lets a raw newline into a JSON string (vLLM's did) sends replies no parser reads: each
record says ``control_character``, and the report counts the parse errors by kind."""

from __future__ import annotations

import pytest

from analysis.figures.metrics import Settings, summarize
from analysis.reading.load import load
from tests.conftest import run_locust
from tests.sparkload.workloads.agent_servers import ToolScript, tool_server

pytestmark = pytest.mark.e2e  # starts Locust

RAW_NEWLINE = '{"city": "Oslo\nNorway", "people": 3}'  # JSON wants "\\n" there


def test_replies_with_a_raw_control_character_are_parse_errors_of_that_kind(tmp_path):
    with tool_server(ToolScript(text=RAW_NEWLINE)) as server:
        run = run_locust(
            ["--headless", "-H", server.url, "--no-server-metrics", "--ladder", "1",
             "--requests-per-user", "3", "--max-tokens", "64", "--response-format",
             "json_object"],
            tmp_path / "results",
        )  # fmt: skip
    assert run.returncode == 0, run.output
    measured = [r for r in run.records if r["phase"] == "measure"]
    assert [(r["structured"], r["structured_error"]) for r in measured] == [
        ("parse_error", "control_character")
    ] * 3
    level = summarize(load([run.run_dir]), Settings(bootstrap_resamples=0)).iloc[0]
    assert level["parse_error_kinds"] == "control_character 3"
