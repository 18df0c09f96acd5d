"""The agent workload on ``--api responses`` against the simulator: each tool call comes back
as a ``function_call`` item, its result goes back as a ``function_call_output`` input item, and
the session runs its steps as on chat (every step ok, the context growing)."""

from __future__ import annotations

import pytest

from tests.conftest import run_locust

pytestmark = pytest.mark.e2e  # starts Locust and the simulator


def test_an_agent_session_runs_its_tool_steps_on_the_responses_api(tmp_path):
    run = run_locust(
        ["--headless", "--workload", "agent", "--tool-turns", "2", "--ladder", "1"]
        + ["--requests-per-user", "1", "--max-tokens", "48", "--api", "responses"]
        + ["--sim-profile", "fixed", "--sim-tool-call-rate", "1"],
        tmp_path / "results",
    )
    assert run.returncode == 0, run.output
    steps = [r for r in run.records if r["phase"] == "measure"]
    assert steps and all(r["status"] == "ok" for r in steps)
    calls = [r for r in steps if r["step"] == "tool_call"]
    assert calls and all(r["tool_calls"] == 1 and r["tool_args_valid"] for r in calls)
    prompts = [r["prompt_tokens"] for r in steps]
    assert prompts == sorted(prompts) and len(set(prompts)) == len(prompts)  # results went back
