"""A dataset runs the ladder end to end: every request sends its line's messages and asks for its
line's max_tokens, and every record says which prompt it sent and what it asked."""

from __future__ import annotations

import json
from collections import Counter

import pytest
from PIL import Image

from tests.conftest import run_locust
from tests.servers import Script, scripted

pytestmark = pytest.mark.e2e  # starts Locust processes

SYSTEM = {"role": "system", "content": "You answer in one short sentence."}
LINES = [
    {"messages": [SYSTEM, {"role": "user", "content": f"Question {i}?"}], "max_tokens": 3 + i}
    for i in range(4)
]


def run_with(server, tmp_path, prompts, *args: str):
    return run_locust(
        [
            "--headless",
            "-H",
            server.url,
            "--ladder",
            "1,2",
            "--requests-per-user",
            "2",
            "--no-server-metrics",
            "--prompts",
            str(prompts),
            *args,
        ],
        tmp_path / "results",
        timeout=90,
    )


def test_a_jsonl_dataset_sends_each_lines_messages_and_max_tokens(tmp_path):
    path = tmp_path / "chat.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in LINES))
    with scripted(Script(tokens=16)) as server:
        run = run_with(server, tmp_path, path)
    assert run.returncode == 0, run.output
    assert Counter((r["level"], r["phase"]) for r in run.records) == {
        (1, "measure"): 2,
        (2, "measure"): 4,
        (1, "warmup"): 1,
        (2, "warmup"): 1,
    }
    bodies = [json.loads(body) for _, body in server.requests]
    assert len(bodies) == len(run.records) == 8
    by_question = {line["messages"][1]["content"]: line for line in LINES}
    for body in bodies:
        line = by_question[body["messages"][1]["content"]]
        assert body["messages"] == line["messages"]
        assert body["max_tokens"] == line["max_tokens"]
    for record in run.records:
        line = LINES[record["prompt_index"]]
        assert record["max_tokens"] == line["max_tokens"]
        assert record["status"] == "ok" and record["output_tokens"] == line["max_tokens"]
    assert run.manifest["prompts"]["format"] == "jsonl"
    assert run.manifest["prompts"]["with_max_tokens"] == 4


@pytest.mark.parametrize(
    ("content", "said"),
    [
        ('{"prompt": "fine"}\n{"prompt": oops}\n', "bad.jsonl line 2: not JSON"),
        ('{"prompt": "fine"}\n{"system": "x"}\n', "bad.jsonl line 2: no 'messages'"),
        ("\n\n", "bad.jsonl holds no prompts"),
    ],
)
def test_a_bad_dataset_is_one_line_and_exit_2_before_anything_is_sent(tmp_path, content, said):
    path = tmp_path / "bad.jsonl"
    path.write_text(content)
    with scripted(Script(tokens=4)) as server:
        run = run_with(server, tmp_path, path)
    assert run.returncode == 2, run.output
    errors = [line for line in run.output.splitlines() if "error" in line.lower()]
    assert len(errors) == 1 and said in errors[0], run.output
    assert "Traceback" not in run.output
    assert server.requests == []


def image_line(name: str) -> dict:
    content = [
        {"type": "text", "text": "What is in the picture?"},
        {"type": "image_url", "image_url": {"url": name}},
    ]
    return {"messages": [{"role": "user", "content": content}]}


def test_a_datasets_image_files_are_sent_as_data_urls_and_counted(tmp_path):
    (tmp_path / "pics").mkdir()
    for name in ("a", "b"):
        Image.new("RGB", (512, 512), "red" if name == "a" else "blue").save(
            tmp_path / "pics" / f"{name}.png"
        )
    path = tmp_path / "pictures.jsonl"
    path.write_text("".join(json.dumps(image_line(f"pics/{n}.png")) + "\n" for n in "ab"))
    with scripted(Script(tokens=4, images=(1, 512, 512))) as server:
        run = run_with(server, tmp_path, path)
    assert run.returncode == 0, run.output
    assert len(run.records) == 8
    for record in run.records:
        assert record["status"] == "ok", record
        assert (record["images"], record["image_size"]) == (1, "512x512")


def test_a_dataset_naming_a_missing_image_is_one_line_and_exit_2_before_the_load(tmp_path):
    path = tmp_path / "pictures.jsonl"
    path.write_text(json.dumps(image_line("pics/gone.png")) + "\n")
    with scripted(Script(tokens=4)) as server:
        run = run_with(server, tmp_path, path)
    assert run.returncode == 2, run.output
    errors = [line for line in run.output.splitlines() if "gone.png" in line]
    assert len(errors) == 1, run.output
    assert "pictures.jsonl line 1: message 1: image" in errors[0]
    assert "cannot be read" in errors[0]
    assert "Traceback" not in run.output
    assert server.requests == []
