"""Issue 48, item 6, end to end: ``--tool-result-tokens 512`` sends results of exactly 512
tokens by the run's count (here ``--tokenizer``: the same fitting as ``--input-tokens``), so a
tool step grows the context by the call, 512 tokens and the messages' framing; the manifest
says how they were counted."""

from __future__ import annotations

import pytest
from tokenizers import Tokenizer

from tests.sparkload.workloads.agent_servers import tool_server
from tests.sparkload.workloads.test_agent_runs import against
from tests.sparkload.workloads.test_fitting import train_bpe

pytestmark = pytest.mark.e2e  # starts Locust


def test_every_tool_result_sent_has_exactly_the_tokens_asked_by_the_runs_count(tmp_path):
    path = train_bpe(tmp_path / "tokenizer.json")
    with tool_server() as server:
        run = against(
            server, tmp_path, "--workload", "agent", "--tool-turns", "2", "--ladder", "1",
            "--requests-per-user", "1", "--tool-result-tokens", "512", "--tokenizer", str(path),
        )  # fmt: skip
        bodies = list(server.bodies)
    assert run.returncode == 0, run.output
    encode = Tokenizer.from_file(str(path)).encode
    results = [m["content"] for b in bodies for m in b["messages"] if m["role"] == "tool"]
    assert len(results) == 0 + 1 + 2 + 2 + 3 + 4  # each step carries every result before it
    assert {len(encode(text, add_special_tokens=False).ids) for text in results} == {512}
    counted = run.manifest["workload"]["tool_results"]["token_count"]
    assert (counted["method"], counted["exact"]) == (f"tokenizer:{path}", True)
