"""``sparkload quality`` refuses bad input with one line and exit code 2 before any request: a
bad dataset, options it cannot use, a results directory it cannot write, a target that does not
answer."""

from __future__ import annotations

import json

import pytest

from sparkload.records import EXIT_BAD_INPUT
from sparkload.run.quality import main
from tests.conftest import free_port
from tests.servers import Script, scripted


def error_line(capsys) -> str:
    err = capsys.readouterr().err
    lines = [line for line in err.splitlines() if line.strip()]
    assert len(lines) == 1, err
    assert lines[0].startswith("sparkload quality: error: ")
    return lines[0]


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ('{"question": "q", "answer": "#### 1"}\n{not json\n', r"bad.jsonl line 2: not JSON"),
        ('{"question": "q", "answer": "72"}\n', r"bad.jsonl line 1: answer has no '#### N'"),
        ('{"question": "q"}\n', r"bad.jsonl line 1: not an item sparkload grades"),
        ("", r"bad.jsonl: no items in it"),
    ],
)
def test_a_bad_dataset_sends_nothing(tmp_path, capsys, text, said):
    path = tmp_path / "bad.jsonl"
    path.write_text(text)
    with scripted(Script()) as server:
        code = main(["-H", server.url, "--dataset", str(path), "--results-dir", str(tmp_path)])
    assert code == EXIT_BAD_INPUT
    assert said.split(":")[-1].strip() in error_line(capsys)
    assert server.lookups == [] and server.requests == []  # not even looked up
    assert [p.name for p in tmp_path.iterdir()] == ["bad.jsonl"]  # no run directory


@pytest.mark.parametrize(
    ("args", "said"),
    [
        ([], "give --dataset FILE or --probe NAME"),
        (["--probe", "arithmetic,trivia"], "--probe: trivia: choose from arithmetic, retrieval"),
        (["--probe", "arithmetic", "--concurrency", "0"], "--concurrency: give 1 to 64"),
        (["--probe", "arithmetic", "--limit", "0"], "--limit: give 1 or more items"),
        (["--probe", "arithmetic", "--max-tokens", "0"], "--max-tokens: give 1 or more"),
        (["--probe", "arithmetic", "--steps", "30"], "--steps: give 1 to 20"),
        (["--probe", "retrieval", "--depth", "2"], "--depth: give a share of the context"),
        (["--probe", "retrieval", "--context-tokens", "8"], "--context-tokens: give 32 or more"),
        (["--probe", "arithmetic", "--request-timeout", "0"], "--request-timeout: must be more"),
        (["--probe", "arithmetic", "--extra-body", "{"], "--extra-body"),
        (["--probe", "arithmetic", "--header", "no colon"], "--header: give 'Name: value'"),
        (["--dataset", "/nowhere/x.jsonl"], "--dataset: no such file: /nowhere/x.jsonl"),
    ],
)
def test_options_it_cannot_use_are_one_line(tmp_path, capsys, args, said):
    assert main([*args, "--results-dir", str(tmp_path / "results")]) == EXIT_BAD_INPUT
    assert said in error_line(capsys)
    assert not (tmp_path / "results").exists()


def test_a_usage_error_is_argparse_s_line_and_exit_2(capsys):
    assert main(["--probe", "arithmetic", "--limit", "many"]) == EXIT_BAD_INPUT
    assert "invalid int value: 'many'" in capsys.readouterr().err


def test_a_results_directory_it_cannot_write(tmp_path, capsys):
    blocker = tmp_path / "file"
    blocker.write_text("")
    code = main(["--probe", "arithmetic", "--results-dir", str(blocker / "results")])
    assert code == EXIT_BAD_INPUT
    assert "is not a directory" in error_line(capsys)


def test_an_unreachable_host_is_named_and_nothing_is_written(tmp_path, capsys):
    url = f"http://127.0.0.1:{free_port()}"
    dataset = tmp_path / "g.jsonl"
    dataset.write_text(json.dumps({"question": "q", "answer": "#### 1"}) + "\n")
    code = main(["-H", url, "--dataset", str(dataset), "--results-dir", str(tmp_path / "r")])
    assert code == EXIT_BAD_INPUT
    assert f"cannot reach {url}: connection failed (is the server running?)" in error_line(capsys)
    assert not (tmp_path / "r").exists()


def test_a_mix_of_models_is_refused_before_the_lookup(tmp_path, capsys):
    with scripted(Script(models=("a", "b"))) as server:
        args = ["-H", server.url, "--probe", "arithmetic", "--model", "a:0.5,b:0.5"]
        code = main([*args, "--results-dir", str(tmp_path / "r")])
    assert code == EXIT_BAD_INPUT
    assert "--model: sparkload quality probes one model, not a mix" in error_line(capsys)
    assert server.lookups == [] and server.requests == []
    assert not (tmp_path / "r").exists()
