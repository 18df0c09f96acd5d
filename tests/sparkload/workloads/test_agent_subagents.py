"""Sub-agents of synthetic agent sessions (issue 44): where they spawn, what they send, how the
parent waits for them and takes their answer, and the counts."""

from __future__ import annotations

import random

import pytest

from sparkload.errors import ConfigError
from sparkload.records import STEP_TOOL_CALL
from sparkload.transport.tally import Reply
from sparkload.workloads import registry
from sparkload.workloads.contract import PlannedRequest, Slot
from sparkload.workloads.conversation import ID_LINE
from sparkload.workloads.subagents import (
    SUBAGENT_SYSTEM_PROMPT,
    TASK_PREFIX,
    SubagentOptions,
    draw_spawns,
    fixed_total,
    tool_steps,
)
from tests.options import run_options
from tests.sparkload.workloads.test_agent import called, record, run_session, user, workload

ONE_EACH = ("--tool-turns", "1", "--turns", "1", "--subagent-rate", "1")


def subagent_answer(planned: PlannedRequest) -> Reply:
    """A tool call where one is asked, else text naming the agent session that answered."""
    if planned.step == STEP_TOOL_CALL:
        return called("read_file")
    return Reply([f"done by {planned.agent_session}"])


def test_a_tool_step_spawns_a_sub_agent_that_runs_before_the_parents_next_step():
    loaded = workload(*ONE_EACH)
    steps = run_session(loaded, user(loaded), 4, reply=subagent_answer)
    top = steps[0].agent_session
    assert [(s.depth, s.step) for s in steps] == [
        (0, "tool_call"),
        (1, "tool_call"),
        (1, "answer"),
        (0, "answer"),
    ]
    assert [s.agent_session == top for s in steps] == [True, False, False, True]
    assert [s.parent_session for s in steps] == [None, top, top, None]


def test_the_whole_session_counts_its_sub_agents_requests():
    loaded = workload(*ONE_EACH)
    steps = run_session(loaded, user(loaded), 8, reply=subagent_answer)
    assert [(s.turn, s.turns) for s in steps] == [(t, 4) for t in range(1, 5)] * 2
    assert len({s.session_id for s in steps}) == 2  # every request names its top-level session
    assert loaded.requests_per_session == 4


def test_the_sub_agents_answer_is_the_result_of_the_parents_call():
    loaded = workload(*ONE_EACH)
    steps = run_session(loaded, user(loaded), 4, reply=subagent_answer)
    assert steps[3].messages is not None
    result = steps[3].messages[-1]
    assert result["role"] == "tool"
    assert result["content"] == f"done by {steps[2].agent_session}"


def test_a_fresh_sub_agent_starts_with_its_own_system_prompt_and_id_line():
    loaded = workload(*ONE_EACH)
    steps = run_session(loaded, user(loaded), 2, reply=subagent_answer)
    opening = steps[1].messages
    assert opening is not None and len(opening) == 2
    assert opening[0] == {"role": "system", "content": SUBAGENT_SYSTEM_PROMPT}
    assert opening[1]["content"].startswith(ID_LINE.format(steps[1].agent_session) + TASK_PREFIX)
    assert steps[1].extra["subagent"] == "fresh"


def test_a_forked_sub_agent_starts_with_the_parents_context_as_sent_then_its_task():
    loaded = workload(*ONE_EACH, "--subagent-fork", "1")
    steps = run_session(loaded, user(loaded), 2, reply=subagent_answer)
    parent, child = steps[0].messages, steps[1].messages
    assert parent is not None and child is not None
    assert child[: len(parent)] == parent
    assert child[len(parent)]["content"].startswith(TASK_PREFIX)
    assert steps[1].extra["subagent"] == "fork"


def test_sub_agents_nest_down_to_the_depth_asked():
    loaded = workload(*ONE_EACH, "--subagent-depth", "2")
    steps = run_session(loaded, user(loaded), 6, reply=subagent_answer)
    assert [s.depth for s in steps] == [0, 1, 2, 2, 1, 0]
    assert steps[2].parent_session == steps[1].agent_session
    assert loaded.requests_per_session == 6


def test_a_sub_agent_has_its_own_user_turns_of_the_parents_steps():
    loaded = workload(
        "--tool-turns", "2", "--turns", "1", "--subagent-rate", "1", "--subagent-turns", "2"
    )
    # the parent: 3 steps; after each of its 2 tool steps a sub-agent of 2 x 3 steps
    assert loaded.requests_per_session == 3 + 2 * 6
    steps = run_session(loaded, user(loaded), 15, reply=subagent_answer)
    assert [s.depth for s in steps] == [0] + [1] * 6 + [0] + [1] * 6 + [0]


def test_a_failed_last_sub_agent_reply_leaves_the_drawn_result():
    loaded = workload(*ONE_EACH)
    someone = user(loaded)
    sent = []
    for n in range(4):
        planned = loaded.next_request(someone, Slot(0))
        status = "error" if n == 2 else "ok"  # the sub-agent's answer fails
        loaded.after(someone, planned, record(planned, status), subagent_answer(planned))
        sent.append(planned)
    assert sent[3].depth == 0
    assert sent[3].messages is not None
    assert not sent[3].messages[-1]["content"].startswith("done by")


def test_a_parent_step_answered_with_text_still_runs_its_sub_agent():
    loaded = workload(*ONE_EACH)
    steps = run_session(loaded, user(loaded), 4, reply=lambda p: Reply(["no tools needed"]))
    assert [s.depth for s in steps] == [0, 1, 1, 0]  # the count is planned whatever the replies


def test_under_stop_a_sub_agents_text_reply_ends_it_alone_and_the_session_counts_it():
    loaded = workload(
        "--tool-turns", "2", "--turns", "1", "--subagent-rate", "1", "--on-text-reply", "stop"
    )
    someone = user(loaded)
    first = loaded.next_request(someone, Slot(0))
    loaded.after(someone, first, record(first), called("read_file"))
    child = loaded.next_request(someone, Slot(0))
    assert child.depth == 1 and child.turns == 3 + 2 * 3
    stopped = record(child)
    loaded.after(someone, child, stopped, Reply(["I give up"]))
    assert stopped.extra["turns_unsent"] == 2  # its other two steps
    after = loaded.next_request(someone, Slot(0))
    assert (after.depth, after.turn, after.turns) == (0, 3, 9 - 2)
    assert someone.unsent == 0  # the session goes on


def test_spawns_are_drawn_with_the_rate_and_repeat_with_the_seed():
    options = SubagentOptions(rate=0.5, depth=1, turns=1)
    draws = [draw_spawns(random.Random(seed), 40, 1, 0, options) for seed in range(2)]
    assert draws[0] == draw_spawns(random.Random(0), 40, 1, 0, options)
    assert all(step in tool_steps(40, 1) for step in draws[0])
    assert 5 < len(draws[0]) < 15  # of 20 tool steps, about half


def test_a_rate_between_0_and_1_leaves_the_count_to_each_session():
    assert workload("--subagent-rate", "0.5").requests_per_session is None


@pytest.mark.parametrize(
    ("requests", "tool_turns", "depth", "expected"),
    [(2, 1, 1, 4), (6, 2, 1, 6 + 4 * 3), (2, 1, 2, 2 + 1 * (2 + 2))],
)
def test_every_tool_step_spawning_gives_the_fixed_total(requests, tool_turns, depth, expected):
    options = SubagentOptions(rate=1.0, depth=depth, turns=1)
    assert fixed_total(requests, tool_turns, options) == expected


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("--subagent-rate", "1.5"), "--subagent-rate: '1.5' is a share"),
        (("--subagent-depth", "2"), "--subagent-depth: sub-agents need --subagent-rate"),
        (("--subagent-rate", "1", "--tool-turns", "0"), "spawns sub-agents from tool steps"),
    ],
)
def test_sub_agent_options_that_cannot_work_are_one_line(args, message):
    with pytest.raises(ConfigError, match=message):
        registry.load(run_options("--workload", "agent", *args))
