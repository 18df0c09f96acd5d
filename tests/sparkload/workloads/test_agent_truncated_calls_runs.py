"""Issue 48, item 10: a forced tool call that max_tokens cut, as vLLM streams it (its arguments
half sent, then a last chunk of ``"arguments": "{}"`` with finish ``length``), is truncated: the
records say so and never call it valid, the placeholder moves neither the time the arguments
were done nor the token count, and the report's agent table counts truncated calls apart."""

from __future__ import annotations

import pandas as pd
import pytest

from analysis.figures.metrics import Settings
from analysis.reading.load import load
from analysis.views import agents
from tests.sparkload.workloads.agent_servers import ToolScript, tool_server
from tests.sparkload.workloads.test_agent_runs import against

pytestmark = pytest.mark.e2e  # starts Locust

STUB_DELAY = 0.3  # seconds between the last real delta and the stub's chunk


@pytest.fixture(scope="module")
def cut_run(tmp_path_factory):
    tmp_path = tmp_path_factory.mktemp("cut")
    with tool_server(ToolScript(cut_at_limit=True, stub_delay=STUB_DELAY)) as server:
        run = against(
            server, tmp_path, "--workload", "agent", "--tool-turns", "2", "--tool-choice",
            "required", "--ladder", "1", "--requests-per-user", "1",
        )  # fmt: skip
    assert run.returncode == 0, run.output
    return run


def tool_steps(run) -> list[dict]:
    return [r for r in run.records if r["phase"] == "measure" and r["step"] == "tool_call"]


def test_every_call_cut_at_the_limit_is_recorded_truncated_and_not_valid(cut_run):
    steps = tool_steps(cut_run)
    assert len(steps) == 4  # 1 session x 2 user turns x 2 tool steps
    assert all(r["finish_reason"] == "length" and r["tool_calls"] == 1 for r in steps)
    assert all(r["tool_args_truncated"] is True for r in steps)
    assert not any("tool_args_valid" in r for r in steps)


def test_the_stub_moves_neither_the_arguments_done_time_nor_the_last_token(cut_run):
    for r in tool_steps(cut_run):
        assert r["tool_args_done"] == r["t_last_token"]
        assert r["latency"] - r["tool_args_done"] >= STUB_DELAY * 0.9


def test_the_agent_table_counts_truncated_calls_apart_from_valid_ones(cut_run):
    steps = agents.step_records(load([cut_run.run_dir]).records)
    frame = agents.by_step(steps, steps["label"].iloc[0], Settings(bootstrap_resamples=0))
    row = frame.set_index("Step").loc["tool_call"]
    assert (row["Tool-call requests"], row["Truncated calls"]) == (4, 4)
    assert pd.isna(row["Valid JSON share"])  # none finished: no share to give
