"""``sparkload quality`` and ``run --quality-probe`` on a BFCL file, end to end, against a
scripted server that streams tool calls as vLLM does (``tool_calls`` deltas, the arguments in
pieces): 30 of 40 right, the 10 wrong counted by why, per category, in quality.json and the
report."""

from __future__ import annotations

import json

import pytest

from sparkload.records import EXIT_OK, QUALITY_FILE, wilson_interval
from tests.conftest import run_locust
from tests.sparkload.quality import bfcl_files
from tests.sparkload.run.test_quality_runs import quality, report, run_dir
from tests.sparkload.workloads.agent_servers import ToolScript, tool_server

pytestmark = pytest.mark.e2e  # starts sparkload quality and sparkload run as processes

SCRIPT = ToolScript(calls_for=bfcl_files.calls_for, fragment=5, gap=0.0)


def test_a_bfcl_file_against_a_server_that_gets_30_of_40_right(tmp_path):
    dataset = bfcl_files.write(tmp_path)
    with tool_server(SCRIPT) as server:
        done = quality(
            "-H",
            server.url,
            "--dataset",
            str(dataset),
            "--concurrency",
            "4",
            "--results-dir",
            str(tmp_path / "results"),
        )
    assert done.returncode == EXIT_OK, done.stdout + done.stderr
    run = run_dir(tmp_path / "results")
    (result,) = json.loads((run / QUALITY_FILE).read_text())["results"]
    assert (result["kind"], result["planned"], result["n"], result["correct"]) == (
        "bfcl",
        40,
        40,
        30,
    )
    assert result["accuracy"] == 0.75
    assert (result["low"], result["high"]) == pytest.approx(wilson_interval(30, 40))
    assert sorted(result["wrong_ids"]) == sorted(bfcl_files.WRONG)
    assert {k: v for k, v in result["failures"].items() if v} == bfcl_files.BUCKETS
    assert set(result["failures"]) >= {"no_call", "extra_argument"}  # every reason named
    categories = {c["name"]: (c["n"], c["correct"]) for c in result["categories"]}
    assert categories == bfcl_files.CATEGORIES
    simple = next(c for c in result["categories"] if c["name"] == "simple")
    assert (simple["low"], simple["high"]) == pytest.approx(wilson_interval(17, 20))
    assert "30/40 correct, 75.0 %" in done.stdout
    assert "(3 wrong function, 2 missing argument, 3 wrong value" in done.stdout

    # each request carried the item's tools, normalized for a grammar backend, and chose auto
    bodies = {b["messages"][-1]["content"].split("]")[0][1:]: b for b in server.bodies}
    assert len(bodies) == 40 and {b["tool_choice"] for b in bodies.values()} == {"auto"}
    (hypot,) = bodies["simple_1"]["tools"]
    assert hypot["function"]["name"] == "math_hypot"
    assert hypot["function"]["parameters"]["type"] == "object"
    assert {p["type"] for p in hypot["function"]["parameters"]["properties"].values()} == {"number"}
    flight = bodies["multiple_0"]["tools"][1]["function"]["parameters"]["properties"]
    assert flight["passengers"] == {"type": "array", "items": {}}

    text = report(run, tmp_path / "report")
    assert "| quality | BFCL_v3_mixed.json | 40 | 30 | 75.0 |" in text
    assert "| BFCL_v3_mixed.json | multiple | 8 | 4 | 50.0 |" in text
    assert "wrong function 3, missing argument 2, wrong value 3, called when it should not 2" in (
        text
    )


def test_kept_outputs_name_why_each_wrong_item_was_wrong(tmp_path):
    dataset = bfcl_files.write(tmp_path)
    answers = tmp_path / "answers.jsonl"  # given, not found beside the file
    (tmp_path / "possible_answer" / dataset.name).rename(answers)
    with tool_server(SCRIPT) as server:
        done = quality(
            "-H",
            server.url,
            "--dataset",
            str(dataset),
            "--answers",
            str(answers),
            "--keep-outputs",
            "--results-dir",
            str(tmp_path / "results"),
        )
    assert done.returncode == EXIT_OK, done.stderr
    (result,) = json.loads((run_dir(tmp_path / "results") / QUALITY_FILE).read_text())["results"]
    items = {item["id"]: item for item in result["items"]}
    assert items["simple_1"]["failure"] == "missing_argument"
    assert items["simple_1"]["extracted"] == 'math.hypot({"x": 3})'
    assert items["irrelevance_0"]["failure"] == "unwanted_call"
    assert items["irrelevance_2"]["expected"] == "no call" and items["irrelevance_2"]["correct"]
    assert "failure" not in items["simple_0"]


def test_a_bfcl_probe_beside_the_load_grades_its_items_per_level(tmp_path):
    dataset = bfcl_files.write(tmp_path)
    answers = tmp_path / "answers.jsonl"
    (tmp_path / "possible_answer" / dataset.name).rename(answers)
    with tool_server(SCRIPT) as server:
        run = run_locust(
            [
                "--headless",
                "-H",
                server.url,
                "--ladder",
                "4",
                "--requests-per-user",
                "10",
                "--quality-probe",
                str(dataset),
                "--quality-items",
                "40",
                "--quality-answers",
                str(answers),
                "--max-tokens",
                "16",
            ],
            tmp_path / "results",
            timeout=60,
        )
    assert run.returncode == 0 and run.run_dir is not None, run.output
    entry = json.loads((run.run_dir / QUALITY_FILE).read_text())
    (pooled,) = entry["results"]
    assert (pooled["n"], pooled["correct"], pooled["accuracy"]) == (40, 30, 0.75)
    assert {k: v for k, v in pooled["failures"].items() if v} == bfcl_files.BUCKETS
    (level,) = entry["levels"]
    assert level["concurrency"] == 4 and level["results"][0]["failures"] == pooled["failures"]
