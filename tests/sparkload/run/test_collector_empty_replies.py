"""A model that ends at once (its end-of-sequence first) gave a valid, empty reply: the run
counts it ok and apart, and does not fail for it."""

from __future__ import annotations

import json

import pytest

from tests.conftest import run_locust
from tests.servers import Script, scripted

pytestmark = pytest.mark.e2e  # starts Locust processes


def event(payload: dict) -> bytes:
    return b"data: " + json.dumps(payload).encode() + b"\n\n"


def empty_reply() -> bytes:
    """vLLM's stream of an immediate end-of-sequence: the role, the finish, the usage, done."""
    choice = {"index": 0, "delta": {"role": "assistant", "content": ""}, "finish_reason": None}
    body = (
        event({"id": "chatcmpl-e", "choices": [choice]})
        + event(
            {"id": "chatcmpl-e", "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]}
        )
        + event(
            {
                "id": "chatcmpl-e",
                "choices": [],
                "usage": {"prompt_tokens": 5, "completion_tokens": 1},
            }
        )
        + b"data: [DONE]\n\n"
    )
    return (
        b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nServer: scripted\r\n"
        b"Content-Length: %d\r\n\r\n%s" % (len(body), body)
    )


def test_empty_replies_are_ok_counted_apart_and_the_run_passes(tmp_path):
    with scripted(Script(raw_response=empty_reply())) as server:
        run = run_locust(
            ["--headless", "-H", server.url, "--ladder", "1,2", "--requests-per-user", "2"]
            + ["--no-server-metrics"],
            tmp_path / "results",
            timeout=90,
        )
    assert run.returncode == 0, run.output
    measured = [r for r in run.records if r["phase"] == "measure"]
    assert [(r["status"], r["chunks"], r["finish_reason"]) for r in measured] == [
        ("ok", 0, "stop")
    ] * 6
    assert "empty replies (the model ended at once: ok, no TTFT or ITL): " in run.output
    assert "C=1 2 of 2, C=2 4 of 4" in run.output
