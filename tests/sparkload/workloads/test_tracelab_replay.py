"""TraceLab sessions replayed by the agent workload (issue 44): one request per round as one
synthesized user message at the recorded size, asking the recorded output pinned, after the
recorded pause capped; a nested sub-agent run on the user's stack after its round, its parent
waiting; the whole session one session of the quota."""

from __future__ import annotations

import json

import pytest

from sparkload.errors import ConfigError
from sparkload.sim.textlength import estimate_tokens
from sparkload.workloads import registry
from sparkload.workloads.agent import AgentWorkload
from sparkload.workloads.contract import Slot
from sparkload.workloads.tracelab_replay import LabSynthesis
from tests.options import run_options
from tests.sparkload.workloads.test_agent import run_session, user
from tests.tracelab_rows import row, tool, write

PARENT = [
    row("parent", 0, 2000, 0, 24, start=0.0, end=10.0, tools=(tool("Task", 10.0, 100.0),)),
    row("parent", 1, 2600, 1990, 16, start=101.0, end=110.0),
]
CHILD = [
    row("child", 0, 1200, 0, 12, start=12.0, end=20.0, tools=(tool("Grep", 20.0, 21.0),)),
    row("child", 1, 1500, 1190, 12, start=22.0, end=90.0),
]


def lab_workload(tmp_path, *args: str, rows=(*PARENT, *CHILD)) -> AgentWorkload:
    trace = write(tmp_path / "lab.jsonl", list(rows))
    loaded = registry.load(run_options("--agent-trace", str(trace), *args))
    assert isinstance(loaded, AgentWorkload)
    return loaded


def test_each_round_is_one_user_message_of_its_recorded_size_asking_its_output(tmp_path):
    loaded = lab_workload(tmp_path)
    steps = run_session(loaded, user(loaded), 4)
    assert [s.extra["trace_session"] for s in steps] == [
        "claude:parent",
        "claude:child",
        "claude:child",
        "claude:parent",
    ]
    for step in steps:
        (message,) = step.messages
        assert message["role"] == "user" and step.tools is None
        assert estimate_tokens(message["content"]) == step.extra["recorded_prompt_tokens"]
        assert step.max_tokens == step.extra["recorded_output_tokens"]
    assert [s.step for s in steps] == ["tool_call", "tool_call", "answer", "answer"]
    assert loaded.sampling.pinned  # the recorded length, unless --ignore-eos no


def test_a_sub_agent_runs_after_its_round_naming_its_parent_in_one_session(tmp_path):
    loaded = lab_workload(tmp_path)
    steps = run_session(loaded, user(loaded), 4)
    top = steps[0].agent_session
    assert [(s.depth, s.parent_session) for s in steps] == [
        (0, None),
        (1, top),
        (1, top),
        (0, None),
    ]
    assert [(s.turn, s.turns) for s in steps] == [(1, 4), (2, 4), (3, 4), (4, 4)]
    assert {s.session_id for s in steps} == {top}
    assert loaded.requests_per_session == 4


def test_a_later_round_keeps_its_recorded_prefix_of_the_round_before(tmp_path):
    loaded = lab_workload(tmp_path)
    first, child_first, child_second, second = run_session(loaded, user(loaded), 4)
    keep = 4 * 1990
    assert second.messages[0]["content"][:keep] == first.messages[0]["content"][:keep]
    keep = 4 * 1190
    assert child_second.messages[0]["content"][:keep] == child_first.messages[0]["content"][:keep]
    assert child_first.messages[0]["content"][:80] != first.messages[0]["content"][:80]  # fresh


def test_pauses_are_replayed_after_the_reply_and_capped(tmp_path):
    steps = run_session(lab_workload(tmp_path), user(lab_workload(tmp_path)), 4)
    assert [s.delay for s in steps] == pytest.approx([0.0, 2.0, 2.0, 11.0])
    assert not any(s.delay_from_send for s in steps)
    capped = lab_workload(tmp_path, "--max-think-time", "5")
    assert [s.delay for s in run_session(capped, user(capped), 4)] == [0.0, 2.0, 2.0, 5.0]


def test_turns_caps_a_sessions_own_rounds_and_the_sub_agents_after_those_dropped(tmp_path):
    rows = [*PARENT, row("parent", 2, 3000, 2500, 8, start=111.0, end=112.0), *CHILD]
    loaded = lab_workload(tmp_path, "--turns", "1", rows=rows)
    assert loaded.requests_per_session == 3  # round 0 and the sub-agent after it
    steps = run_session(loaded, user(loaded), 3)
    assert [s.extra["round_index"] for s in steps] == [0, 0, 1]
    assert [s.depth for s in steps] == [0, 1, 1]


def test_the_warm_up_is_the_first_sessions_first_round_alone(tmp_path):
    loaded = lab_workload(tmp_path)
    someone = user(loaded)
    warm = loaded.next_request(someone, Slot(0, warmup=True))
    assert (warm.turn, warm.turns, warm.extra["round_index"]) == (1, 1, 0)


def test_a_target_counting_a_unit_as_three_tokens_gets_a_third_of_the_units():
    run = LabSynthesis.of({"salt": "s", "token_count": {"block_tokens": 1536}}, None)
    assert run.scale == pytest.approx(1 / 3)
    assert LabSynthesis.of({}, 2.0) == LabSynthesis("", 1.0, 2.0)


def test_max_think_time_needs_a_tracelab_trace(tmp_path):
    with pytest.raises(ConfigError, match="--max-think-time caps a TraceLab trace's"):
        registry.settle(run_options("--workload", "agent", "--max-think-time", "5"))


def test_sub_agents_of_one_round_run_one_after_another_and_nest_deeper(tmp_path):
    child = [
        row("child", 0, 1200, 0, 12, start=12.0, end=20.0, tools=(tool("Task", 20.0, 60.0),)),
        row("child", 1, 1500, 1190, 12, start=61.0, end=70.0),
    ]
    grandchild = [row("grandchild", 0, 1000, 0, 8, start=25.0, end=50.0)]
    sibling = [row("sibling", 0, 1100, 0, 8, start=72.0, end=95.0)]
    loaded = lab_workload(tmp_path, rows=(*PARENT, *child, *grandchild, *sibling))
    steps = run_session(loaded, user(loaded), 6)
    assert [(s.extra["trace_session"], s.depth) for s in steps] == [
        ("claude:parent", 0),
        ("claude:child", 1),
        ("claude:grandchild", 2),
        ("claude:child", 1),
        ("claude:sibling", 1),
        ("claude:parent", 0),
    ]
    assert steps[2].parent_session == steps[1].agent_session
    assert steps[4].parent_session == steps[0].agent_session
    assert loaded.requests_per_session == 6


def test_the_rounds_ask_their_own_lengths_so_a_run_length_is_refused(tmp_path):
    assert lab_workload(tmp_path).manifest()["max_tokens"] == 24  # the longest recorded
    with pytest.raises(ConfigError, match="--max-tokens: .* holds TraceLab rounds"):
        lab_workload(tmp_path, "--max-tokens", "64")


@pytest.mark.parametrize(
    "args", [("--tools", "tools.json"), ("--tool-choice", "required"), ("--think-time", "2")]
)
def test_options_a_tracelab_replay_has_no_use_for_are_one_line(tmp_path, args):
    (tmp_path / "tools.json").write_text(
        json.dumps([{"type": "function", "function": {"name": "f", "parameters": {}}}])
    )
    with pytest.raises(ConfigError, match=f"{args[0]}: .* holds TraceLab rounds"):
        lab_workload(
            tmp_path, *(a.replace("tools.json", str(tmp_path / "tools.json")) for a in args)
        )
