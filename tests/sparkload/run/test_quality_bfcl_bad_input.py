"""A bad BFCL file is one line naming the file and line, exit 2, before anything is contacted:
for ``sparkload quality --dataset`` and for ``run --quality-probe``."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from sparkload.records import EXIT_BAD_INPUT
from sparkload.run.quality import main
from tests.conftest import run_locust
from tests.servers import Script, scripted
from tests.sparkload.quality.bfcl_files import WEATHER

ITEM = {
    "id": "simple_0",
    "question": [[{"role": "user", "content": "Weather in Paris?"}]],
    "function": [WEATHER],
}


def wrong_name(folder: Path) -> tuple[Path, str]:
    path = folder / "BFCL_v3_simple.json"
    row = {**ITEM, "id": "simple_1", "ground_truth": [{"get_forecast": {"location": ["Paris"]}}]}
    path.write_text(json.dumps({**ITEM, "ground_truth": []}) + "\n" + json.dumps(row) + "\n")
    return path, (
        f"{path} line 2: the answer calls 'get_forecast', which is not among the item's "
        "functions (get_weather)"
    )


def missing_id(folder: Path) -> tuple[Path, str]:
    path = folder / "BFCL_v3_simple.json"
    path.write_text(json.dumps(ITEM) + "\n")
    answers = folder / "possible_answer" / path.name
    answers.parent.mkdir()
    answers.write_text(json.dumps({"id": "simple_7", "ground_truth": []}) + "\n")
    return path, f"{path} line 1: id 'simple_0' is not in the answer file {answers}"


def unparseable(folder: Path) -> tuple[Path, str]:
    path = folder / "BFCL_v3_simple.json"
    path.write_text(json.dumps({**ITEM, "ground_truth": []}) + "\n" + '{"id": "simple_1",\n')
    return path, f"{path} line 2: not JSON"


BAD = [wrong_name, missing_id, unparseable]


@pytest.mark.parametrize("bad", BAD)
def test_sparkload_quality_refuses_it_before_any_request(tmp_path, capsys, bad):
    path, said = bad(tmp_path)
    with scripted(Script()) as server:
        code = main(
            ["-H", server.url, "--dataset", str(path), "--results-dir", str(tmp_path / "r")]
        )
    err = [line for line in capsys.readouterr().err.splitlines() if line.strip()]
    assert code == EXIT_BAD_INPUT
    assert len(err) == 1 and err[0].startswith(f"sparkload quality: error: --dataset: {said}")
    assert server.lookups == [] and server.requests == []
    assert not (tmp_path / "r").exists()


def test_answers_without_a_bfcl_dataset_are_refused(tmp_path, capsys):
    gsm8k = tmp_path / "g.jsonl"
    gsm8k.write_text(json.dumps({"question": "q", "answer": "#### 1"}) + "\n")
    answers = tmp_path / "a.jsonl"
    answers.write_text("")
    code = main(
        ["--dataset", str(gsm8k), "--answers", str(answers), "--results-dir", str(tmp_path)]
    )
    err = capsys.readouterr().err.strip()
    assert code == EXIT_BAD_INPUT
    assert err == "sparkload quality: error: --answers: no BFCL --dataset to take the answers of"


@pytest.mark.e2e  # starts Locust
@pytest.mark.parametrize(
    ("args", "said"),
    [
        (["--quality-answers", "a.jsonl"], "--quality-answers: give --quality-probe FILE"),
        (
            ["--quality-probe", "arithmetic", "--quality-answers", "a.jsonl"],
            "--quality-answers: the arithmetic probe takes no answer file",
        ),
    ],
)
def test_run_refuses_an_answer_file_with_no_bfcl_probe(tmp_path, args, said):
    run = run_locust(["--headless", "--ladder", "1", *args], tmp_path / "results", timeout=60)
    assert run.returncode == EXIT_BAD_INPUT, run.output
    (error,) = [line for line in run.output.splitlines() if "error" in line.lower()]
    assert said in error and run.run_dir is None


@pytest.mark.e2e  # starts Locust
def test_run_with_it_as_its_quality_probe_refuses_it_before_the_load(tmp_path):
    path, said = wrong_name(tmp_path)
    with scripted(Script()) as server:
        run = run_locust(
            ["--headless", "-H", server.url, "--ladder", "1", "--quality-probe", str(path)],
            tmp_path / "results",
            timeout=60,
        )
    assert run.returncode == EXIT_BAD_INPUT, run.output
    assert "Traceback" not in run.output
    (error,) = [line for line in run.output.splitlines() if "error" in line.lower()]
    assert f"--quality-probe: {said}" in error
    assert server.requests == [] and run.run_dir is None
