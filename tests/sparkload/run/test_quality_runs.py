"""``sparkload quality`` end to end: against a scripted server whose every reply ends in the
same number (so a dataset decides the share it gets right), against the built-in simulator
(filler text: accuracy 0, and the run still completes and reports), stopped mid-way, and with
every request failing."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from sparkload.records import (
    EXIT_INTERRUPTED,
    EXIT_OK,
    EXIT_REQUESTS_FAILED,
    QUALITY_FILE,
    wilson_interval,
)
from sparkload.records.requests_files import read_records
from tests.report_files import section_number
from tests.servers import NGINX_502, Script, scripted

pytestmark = pytest.mark.e2e  # starts sparkload quality (and the simulator) as processes

SECRET = "sk-quality-test-secret"
# The scripted server streams " t0 t1 ... t41": the reply's last number is 41 (Script.tokens - 1).
SCRIPT = Script(tokens=42, gap=0.0005, prefill=0.001)
WRONG = {4, 9, 10, 13, 17, 21, 22, 26, 30, 33, 38, 41, 44, 47, 50}  # lines whose answer is not 41


def gsm8k_file(path: Path, lines: int = 50, wrong: set[int] = WRONG) -> Path:
    rows = [
        {
            "question": f"Question {line}: how many marbles are left?",
            "answer": f"Some working.\n#### {41 + 59 * (line in wrong)}",
        }
        for line in range(1, lines + 1)
    ]
    path.write_text("".join(json.dumps(row) + "\n" for row in rows))
    return path


def quality(*args: str, env: dict | None = None) -> subprocess.CompletedProcess:
    clean = {k: v for k, v in os.environ.items() if k != "OPENAI_API_KEY"}
    return subprocess.run(
        [sys.executable, "-m", "sparkload.cli", "quality", *args],
        capture_output=True,
        text=True,
        timeout=120,
        env={**clean, **(env or {})},
        stdin=subprocess.DEVNULL,
    )


def run_dir(results: Path) -> Path:
    (found,) = sorted(results.glob("*/manifest.json"))
    return found.parent


def report(run: Path, out: Path) -> str:
    done = subprocess.run(
        [sys.executable, "-m", "analysis", str(run), "--out", str(out), "--no-charts", "--quiet"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    return (out / "report.md").read_text()


def test_a_gsm8k_file_against_a_server_that_answers_35_of_50_right(tmp_path):
    dataset = gsm8k_file(tmp_path / "heldout.jsonl")
    with scripted(SCRIPT) as server:
        done = quality(
            "-H",
            server.url,
            "--dataset",
            str(dataset),
            "--concurrency",
            "4",
            "--max-tokens",
            "64",
            "--results-dir",
            str(tmp_path / "results"),
            env={"OPENAI_API_KEY": SECRET},
        )
    assert done.returncode == EXIT_OK, done.stdout + done.stderr
    run = run_dir(tmp_path / "results")
    (result,) = json.loads((run / QUALITY_FILE).read_text())["results"]
    assert (result["name"], result["kind"], result["planned"]) == ("heldout.jsonl", "gsm8k", 50)
    assert (result["n"], result["correct"], result["accuracy"]) == (50, 35, 0.7)
    assert (result["low"], result["high"]) == pytest.approx(wilson_interval(35, 50))
    assert (round(result["low"], 4), round(result["high"], 4)) == (0.5625, 0.809)
    assert result["wrong_ids"] == [str(line) for line in sorted(WRONG)]
    assert (result["failed"], result["failed_ids"], result["truncated"]) == (0, [], 0)
    assert "items" not in result  # outputs only with --keep-outputs
    assert "heldout.jsonl: 35/50 correct, 70.0 % (95 % Wilson interval 56.2-80.9 %)" in done.stdout

    # every item once, greedy with a fixed seed, the question and not the worked answer
    bodies = [json.loads(body) for _, body in server.requests]
    assert len(bodies) == 50
    assert {(b["temperature"], b["seed"], b["max_tokens"], b["stream"]) for b in bodies} == {
        (0.0, 0, 64, True)
    }
    asked = sorted(b["messages"][0]["content"].split(":")[0] for b in bodies)
    assert asked == sorted(f"Question {line}" for line in range(1, 51))
    assert not any("Some working" in b["messages"][0]["content"] for b in bodies)

    # the key went to the server and nowhere else
    assert all(f"Bearer {SECRET}" in head for head, _ in server.requests)
    for file in filter(Path.is_file, run.rglob("*")):  # the records' parts are compressed:
        assert SECRET.encode() not in file.read_bytes(), file.name
    assert SECRET not in json.dumps(read_records(run))

    manifest = json.loads((run / "manifest.json").read_text())
    assert (manifest["mode"], manifest["status"]) == ("quality", "complete")
    assert manifest["ladder"] == [4]
    assert manifest["levels"][0]["received"] == manifest["levels"][0]["expected"] == 50
    records = read_records(run)
    assert len(records) == 50 and {r["status"] for r in records} == {"ok"}
    assert {r["extra"]["probe"] for r in records} == {"heldout.jsonl"}

    text = report(run, tmp_path / "report")
    assert "| quality | heldout.jsonl | 50 | 35 | 70.0 | 56.2–80.9 | 0 | 0 |" in text
    assert "wrong: 4, 9, 10, 13" in text


def test_kept_outputs_hold_each_item_s_reply_and_what_was_read(tmp_path):
    dataset = gsm8k_file(tmp_path / "g.jsonl", lines=4, wrong={2})
    with scripted(SCRIPT) as server:
        done = quality(
            "-H",
            server.url,
            "--dataset",
            str(dataset),
            "--keep-outputs",
            "--api-key",
            SECRET,
            "--results-dir",
            str(tmp_path / "results"),
        )
    assert done.returncode == EXIT_OK, done.stderr
    run = run_dir(tmp_path / "results")
    assert all(f"Bearer {SECRET}" in head for head, _ in server.requests)
    for file in filter(Path.is_file, run.rglob("*")):  # kept outputs or not, the key is nowhere
        assert SECRET.encode() not in file.read_bytes(), file.name
    assert SECRET not in json.dumps(read_records(run))
    assert "--api-key" in json.loads((run / "manifest.json").read_text())["command"]
    (result,) = json.loads((run / QUALITY_FILE).read_text())["results"]
    assert [(i["id"], i["expected"], i["extracted"], i["correct"]) for i in result["items"]] == [
        ("1", "41", "41", True),
        ("2", "100", "41", False),
        ("3", "41", "41", True),
        ("4", "41", "41", True),
    ]
    assert result["items"][0]["reply"].endswith(" t40 t41")


def test_the_built_in_simulator_answers_filler_and_the_run_still_completes(tmp_path):
    done = quality(
        "--probe",
        "arithmetic,retrieval",
        "--limit",
        "6",
        "--max-tokens",
        "32",
        "--context-tokens",
        "400",
        "--results-dir",
        str(tmp_path / "results"),
    )
    assert done.returncode == EXIT_OK, done.stdout + done.stderr
    assert "no --host: started the built-in simulator" in done.stderr
    run = run_dir(tmp_path / "results")
    entry = json.loads((run / QUALITY_FILE).read_text())
    assert entry["complete"] is True
    assert [(r["name"], r["n"], r["correct"], r["accuracy"]) for r in entry["results"]] == [
        ("arithmetic", 6, 0, 0.0),
        ("retrieval", 6, 0, 0.0),
    ]
    assert entry["results"][1]["parameters"]["token_count"] == "server:/tokenize"
    assert entry["results"][0]["low"] == 0.0
    manifest = json.loads((run / "manifest.json").read_text())
    assert manifest["simulator"]["profile"] and manifest["time_scale"] == 10
    text = report(run, tmp_path / "report")
    assert section_number(text, "Accuracy")
    assert "| arithmetic | 6 | 0 | 0.0 | 0.0–39.0 |" in text


def test_stopped_mid_way_it_keeps_what_was_graded(tmp_path):
    dataset = gsm8k_file(tmp_path / "g.jsonl", lines=30)
    results = tmp_path / "results"
    with scripted(Script(tokens=42, gap=0.03, prefill=0.01)) as server:  # about 1.3 s a reply
        process = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "sparkload.cli",
                "quality",
                "-H",
                server.url,
                "--dataset",
                str(dataset),
                "--concurrency",
                "1",
                "--results-dir",
                str(results),
            ],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            stdin=subprocess.DEVNULL,
        )
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            manifests = list(results.glob("*/manifest.json"))
            if manifests and len(read_records(manifests[0].parent)) >= 2:
                break
            time.sleep(0.1)
        process.send_signal(signal.SIGINT)
        out, err = process.communicate(timeout=60)
    assert process.returncode == EXIT_INTERRUPTED, out + err
    run = run_dir(results)
    entry = json.loads((run / QUALITY_FILE).read_text())
    (result,) = entry["results"]
    assert entry["complete"] is False
    assert 2 <= result["n"] < 30 and result["planned"] == 30
    assert result["n"] == len(read_records(run))
    assert json.loads((run / "manifest.json").read_text())["status"] == "stopped"
    assert "stopped: keeping what was graded" in err
    assert "Traceback" not in err


def test_every_request_failing_grades_nothing_and_exits_1(tmp_path):
    dataset = gsm8k_file(tmp_path / "g.jsonl", lines=3)
    with scripted(Script(raw_response=NGINX_502)) as server:
        done = quality(
            "-H", server.url, "--dataset", str(dataset), "--results-dir", str(tmp_path / "r")
        )
    assert done.returncode == EXIT_REQUESTS_FAILED, done.stdout + done.stderr
    (result,) = json.loads((run_dir(tmp_path / "r") / QUALITY_FILE).read_text())["results"]
    assert (result["n"], result["accuracy"], result["failed"]) == (0, None, 3)
    assert result["failed_ids"] == ["1", "2", "3"]
    assert "g.jsonl: no item graded (3 failed of 3)" in done.stdout
