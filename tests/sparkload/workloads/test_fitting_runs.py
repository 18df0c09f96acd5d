"""--input-tokens N: every request's prompt holds N tokens as the counting method counts them,
the method is in the manifest, and the 4-characters fallback is flagged."""

from __future__ import annotations

import json

import pytest
import requests
from tokenizers import Tokenizer

from tests.conftest import locust_workers, run_locust
from tests.servers import Script, running_sim, scripted
from tests.sparkload.workloads.test_fitting import train_bpe

pytestmark = pytest.mark.e2e  # starts Locust and simulator processes

LADDER = ["--ladder", "1,2", "--requests-per-user", "2", "--no-server-metrics"]


def chat_bodies(server) -> list[dict]:
    bodies = [json.loads(body) for _, body in server.requests]
    return [body for body in bodies if body.get("stream")]


def test_the_simulator_counts_at_its_tokenize_route_as_its_usage_counts():
    text = "x" * 2047
    with running_sim("--profile", "fixed") as url:
        model = requests.get(url + "/v1/models", timeout=10).json()["data"][0]["id"]
        by_prompt = requests.post(url + "/tokenize", json={"model": model, "prompt": text})
        messages = [{"role": "system", "content": "abc"}, {"role": "user", "content": text}]
        by_messages = requests.post(url + "/tokenize", json={"messages": messages})
        chat = requests.post(
            url + "/v1/chat/completions", json={"messages": messages, "max_tokens": 1}, timeout=10
        )
        wrong = requests.post(url + "/tokenize", json={"model": "other", "prompt": "x"})
    assert by_prompt.json()["count"] == len(by_prompt.json()["tokens"]) == 512
    assert by_messages.json()["count"] == chat.json()["usage"]["prompt_tokens"] == 513
    assert by_prompt.json()["max_model_len"] > 0 and wrong.status_code == 404


def test_input_tokens_512_on_the_simulator_gives_512_prompt_tokens_in_every_record(tmp_path):
    run = run_locust(
        [
            "--headless",
            *LADDER,
            "--sim-profile",
            "fixed",
            "--sim-time-scale",
            "20",
            "--input-tokens",
            "512",
            "--output-tokens",
            "16",
        ],
        tmp_path / "results",
        timeout=120,
    )
    assert run.returncode == 0, run.output
    counts = [r["prompt_tokens"] for r in run.records]
    assert len(counts) == 8 and all(abs(count - 512) <= 512 * 0.01 for count in counts), counts
    assert all(r["max_tokens"] == 16 == r["output_tokens"] for r in run.records)
    prompts = run.manifest["prompts"]
    assert prompts["input_tokens"] == 512
    assert prompts["token_count"]["method"] == "server:/tokenize"
    assert prompts["token_count"]["exact"] is True
    assert run.manifest["sampling"]["ignore_eos"] is True


def test_with_a_tokenizer_file_every_prompt_has_exactly_n_tokens_by_it(tmp_path):
    path = train_bpe(tmp_path / "tokenizer.json")
    with scripted(Script(tokens=4)) as server:
        run = run_locust(
            [
                "--headless",
                "-H",
                server.url,
                *LADDER,
                "--input-tokens",
                "300",
                "--tokenizer",
                str(path),
            ],
            tmp_path / "results",
            timeout=90,
        )
    assert run.returncode == 0, run.output
    tokenizer = Tokenizer.from_file(str(path))
    bodies = chat_bodies(server)
    assert len(bodies) == len(server.requests) == 8  # no /tokenize asked: the file counts
    for body in bodies:
        (message,) = body["messages"]
        assert len(tokenizer.encode(message["content"], add_special_tokens=False).ids) == 300
    assert run.manifest["prompts"]["token_count"]["method"] == f"tokenizer:{path}"


def test_workers_send_the_prompts_the_master_fitted(tmp_path):
    """Workers started with no options of their own send the master's texts (they reach them
    with the options of the test's start), each exactly N tokens by the master's tokenizer."""
    path = train_bpe(tmp_path / "tokenizer.json")
    with locust_workers(2) as port, scripted(Script(tokens=4)) as server:
        run = run_locust(
            [
                "--headless",
                "-H",
                server.url,
                *LADDER,
                "--input-tokens",
                "250",
                "--tokenizer",
                str(path),
                "--master",
                "--expect-workers",
                "2",
                "--master-bind-port",
                port,
            ],
            tmp_path / "results",
            timeout=120,
        )
    assert run.returncode == 0, run.output
    assert {r["worker"] for r in run.records} <= {"0", "1"} and len(run.records) == 8
    tokenizer = Tokenizer.from_file(str(path))
    for body in chat_bodies(server):
        content = body["messages"][0]["content"]
        assert len(tokenizer.encode(content, add_special_tokens=False).ids) == 250


def test_without_a_way_to_count_the_estimate_is_flagged(tmp_path):
    with scripted(Script(tokens=4)) as server:
        run = run_locust(
            ["--headless", "-H", server.url, *LADDER, "--input-tokens", "100"],
            tmp_path / "results",
            timeout=90,
        )
    assert run.returncode == 0, run.output
    warnings = [line for line in run.output.splitlines() if "4 characters a token" in line]
    assert len(warnings) == 1 and "WARNING" in warnings[0], run.output
    assert run.manifest["prompts"]["token_count"]["method"] == "estimate:4-chars"
    assert {len(body["messages"][0]["content"]) for body in chat_bodies(server)} == {400}


def test_input_tokens_with_another_workload_is_one_line_and_exit_2(tmp_path):
    run = run_locust(
        ["--headless", "-H", "http://127.0.0.1:9", "--workload", "edit", "--input-tokens", "10"],
        tmp_path / "results",
        timeout=60,
    )
    assert run.returncode == 2 and "--input-tokens makes chat prompts" in run.output
    assert "Traceback" not in run.output
